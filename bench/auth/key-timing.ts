// bench/auth/key-timing: how long refusing an API key takes when its id is
// unknown versus known with a wrong secret (the two must not tell which key
// ids exist), as an attacker sees it: over HTTP to a listening server, on
// SQLite and on PostgreSQL with the shared Redis (where credentials are kept
// in memory between writes). Compared in rounds by bench/lib/compare.ts: A is
// an unknown id, A again an unknown id once more, B a known id with a wrong
// secret; a side's figure in a round is the median of its BENCH_REQUESTS
// refusals. A verdict inside the A/A band is what the two must give (issue 55: within 10%). This
// comparison lives here and not in a test: a test must not assert wall-clock bounds; the tests assert
// that both refusals run the same statements (test/http/credential-cache.test.ts).
//
//   npm run bench:key-timing      (BENCH_ROUNDS, default 25; BENCH_REQUESTS a side a round, default 200)
import { request, Agent } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { alternate, median, printComparison, type Side } from '../lib/compare.ts';
import { freshPostgresDatabase } from '../lib/postgres.ts';
import { buildApp, createApiKeysRepo, createApiKeysService, formatKey, loadConfig, prepareDatabase, openStorage } from '@maqam/server';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 25);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 200);
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
  // Keys in the checksummed format (contract section 16) with a right checksum: both reach the database. A bad
  // checksum is refused before any read, sooner, and may be: it tells nothing about which ids exist.
  const unknownId = formatKey('zzzzzzzzzzzz', 'A'.repeat(43));
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
  const refusals = (label: string, apiKey: string): Side => {
    const run = async (count: number) => {
      const times: number[] = [];
      for (let i = 0; i < count; i++) times.push(await get(apiKey));
      return times;
    };
    return { label, warmUp: async () => void (await run(REQUESTS * 2)), measure: async () => ({ us: median(await run(REQUESTS)) }) };
  };
  const comparison = await alternate({
    a: refusals('unknown key id', unknownId),
    aAgain: refusals('unknown key id', unknownId),
    b: refusals('known id, wrong secret', formatKey(id, 'A'.repeat(43))),
    rounds: ROUNDS,
    onMeasured: () => {},
  });
  printComparison(comparison, [{ key: 'us', label: 'refusal over HTTP, us (median of the round)', digits: 1 }], `${label}: ${ROUNDS} rounds of ${REQUESTS} refusals a side`);
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
