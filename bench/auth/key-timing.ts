// bench/auth/key-timing: how long refusing an API key takes when its id is
// unknown versus known with a wrong secret (the two must not tell which key
// ids exist), as an attacker sees it: over HTTP to a listening server, on
// SQLite and on PostgreSQL with the shared Redis (where credentials are kept
// in memory between writes). The two kinds are interleaved so machine noise
// hits both alike; prints the medians and their difference per dialect.
//
//   npm run bench:key-timing      (BENCH_ROUNDS to change the run)
import { request, Agent } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freshPostgresDatabase } from '../lib/postgres.ts';
import { buildApp, createApiKeysRepo, createApiKeysService, loadConfig, prepareDatabase, openStorage } from '@maqam/server';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5_000);
const REDIS_URL = process.env.MAQAM_TEST_REDIS ?? 'redis://127.0.0.1:6379';

const postgresUrl = () => freshPostgresDatabase('maqam_bench_key_timing');

async function measure(label: string, databaseUrl: string, redisUrl: string | undefined) {
  const storage = openStorage(databaseUrl, { redisUrl });
  await prepareDatabase(storage);
  const config = loadConfig({ DATABASE_URL: databaseUrl, MAQAM_SECRET: 'x'.repeat(40), MAQAM_RATE_LIMIT: '0', ...(redisUrl ? { REDIS_URL: redisUrl } : {}) });
  const app = await buildApp({ config, storage, logger: false });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as { port: number };
  const { id, key } = await createApiKeysService(createApiKeysRepo(storage.db)).create({ name: 'timing' });
  const kinds = {
    'unknown key id': `mk_zzzzzzzzzzzz_${'A'.repeat(43)}`,
    'known id, wrong secret': `mk_${id}_${'A'.repeat(43)}`,
  };
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const get = (apiKey: string) => new Promise<number>((resolve, reject) => {
    const started = process.hrtime.bigint();
    request({ host: '127.0.0.1', port, path: '/v1/music/songs/song-1', agent, headers: { 'x-api-key': apiKey } }, (res) => {
      res.resume();
      res.on('end', () => resolve(Number(process.hrtime.bigint() - started) / 1000));
    }).on('error', reject).end();
  });
  // The real key once, so the node keeps its row in memory as it would for a key in use.
  await get(key);
  const samples = new Map<string, number[]>(Object.keys(kinds).map((kind) => [kind, []]));
  const entries = Object.entries(kinds);
  for (let i = 0; i < ROUNDS; i++) {
    for (const [kind, apiKey] of i % 2 === 0 ? entries : [...entries].reverse()) samples.get(kind)!.push(await get(apiKey));
  }
  const median = (values: number[]) => values.slice(ROUNDS / 10).sort((a, b) => a - b)[(values.length - ROUNDS / 10) >> 1]!;
  const [unknown, wrong] = [...samples.values()].map(median);
  console.log(`${label}: refusal over HTTP, median of ${ROUNDS} each (first 10% dropped as warm-up)`);
  console.log(`  unknown key id:            ${unknown!.toFixed(1)} us`);
  console.log(`  known id, wrong secret:    ${wrong!.toFixed(1)} us`);
  console.log(`  difference:                ${(wrong! - unknown!).toFixed(1)} us (${((wrong! / unknown! - 1) * 100).toFixed(1)}%)`);
  agent.destroy();
  await app.close();
  await storage.close();
}

const dir = mkdtempSync(join(tmpdir(), 'maqam-key-timing-'));
try {
  await measure('SQLite', `sqlite:${join(dir, 'keys.db')}`, undefined);
  const postgres = await postgresUrl();
  if (postgres) await measure('PostgreSQL + Redis', postgres, REDIS_URL);
  else console.log('PostgreSQL not reachable: skipped');
} finally {
  rmSync(dir, { recursive: true, force: true });
}
