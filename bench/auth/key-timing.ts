// bench/auth/key-timing: how long refusing an API key takes when its id is
// unknown versus known with a wrong secret (issue 8, item 16: the two must not
// tell which key ids exist). In process, on SQLite, the two kinds interleaved
// so machine noise hits both alike; prints the medians and their difference.
//
//   node bench/auth/key-timing.ts      (BENCH_ROUNDS to change the run)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApiKeysRepo, createApiKeysService, migrateToLatest, openStorage } from '@maqam/server';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20_000);
const dir = mkdtempSync(join(tmpdir(), 'maqam-key-timing-'));
const storage = openStorage(`sqlite:${join(dir, 'keys.db')}`);
await migrateToLatest(storage);
const keys = createApiKeysService(createApiKeysRepo(storage.db));
const { id } = await keys.create({ name: 'timing' });
const wrongSecret = `mk_${id}_${'A'.repeat(43)}`;
const unknownId = `mk_zzzzzzzzzzzz_${'A'.repeat(43)}`;

const samples = { unknownId: [] as number[], wrongSecret: [] as number[] };
for (let i = 0; i < ROUNDS; i++) {
  for (const [kind, key] of i % 2 === 0 ? ([['unknownId', unknownId], ['wrongSecret', wrongSecret]] as const) : ([['wrongSecret', wrongSecret], ['unknownId', unknownId]] as const)) {
    const started = process.hrtime.bigint();
    if ((await keys.verify(key)) !== null) throw new Error('a wrong key was accepted');
    samples[kind].push(Number(process.hrtime.bigint() - started) / 1000);
  }
}
const median = (values: number[]) => values.sort((a, b) => a - b)[values.length >> 1]!;
const unknown = median(samples.unknownId.slice(ROUNDS / 10));
const wrong = median(samples.wrongSecret.slice(ROUNDS / 10));
console.log(`refusal of an API key, median of ${ROUNDS} each (first 10% dropped as warm-up):`);
console.log(`  unknown key id:            ${unknown.toFixed(2)} us`);
console.log(`  known id, wrong secret:    ${wrong.toFixed(2)} us`);
console.log(`  difference:                ${(wrong - unknown).toFixed(2)} us`);
await storage.close();
rmSync(dir, { recursive: true, force: true });
