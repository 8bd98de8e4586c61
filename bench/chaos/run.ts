// bench/chaos: correctness under concurrent load and outage drills, on both
// configurations (issue 8's proof).
//
// For each dialect: a real `maqam serve` process (MAQAM_SONG_CACHE_MB=1, so
// 20,000 songs churn the cache) behind TCP proxies to its database
// (PostgreSQL) and to Redis, which this script starts itself. 32 clients
// batch-get 50 random ids (Arabic or English) without pause; every 200 answer
// is compared byte for byte with what a cacheless server renders for the same
// ids. Phases: steady load, then each outage (database cut, database paused,
// Redis cut, Redis paused) for OUTAGE seconds, each followed by a restore.
// Printed per phase: answers by status, invalid bodies, the slowest answer,
// and the time from restore to the first good answer; and whether the
// process lived. Targets: 0 invalid bodies, 0 exits, only 200 and 503 during
// outages, recovery under 1 s.
//
//   npm run bench:chaos          (BENCH_SECONDS steady load, default 20; BENCH_OUTAGE seconds, default 3;
//                                 BENCH_DIALECTS, default sqlite,postgres)
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import {
  buildApp, createApiKeysRepo, createApiKeysService, loadConfig, prepareDatabase, openStorage, seedDemoCatalog, seededRandom,
} from '@maqam/server';
import { TcpProxy } from '../../packages/server/test/outage/tcp-proxy.ts';
import { spawnServer, timeToRecover, type ServerProcess } from '../../packages/server/test/outage/spawn-server.ts';

const STEADY_SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const OUTAGE_SECONDS = Number(process.env.BENCH_OUTAGE ?? 3);
const SONGS = 20_000;
const POOL = 4_000;
const WORKERS = 32;
const IDS_PER_REQUEST = 50;
const LOCALES = ['ar', 'en'] as const;
const PG_ADMIN = process.env.MAQAM_TEST_POSTGRES ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS = new URL(process.env.MAQAM_TEST_REDIS ?? 'redis://127.0.0.1:6379');
// The reference and the server make the same absolute URLs (artwork) only with the same public URL.
const PUBLIC_URL = 'https://maqam.example';

interface Phase {
  name: string;
  statuses: Map<string, number>;
  invalid: number;
  slowestMs: number;
  recoveryMs?: number;
  /** The messages of the error answers, counted: what a 503 was about. */
  errors: Map<string, number>;
}

async function createDatabase(dialect: 'sqlite' | 'postgres'): Promise<{ url: string; drop(): Promise<void> }> {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'maqam-chaos-'));
    return { url: `sqlite:${join(dir, 'chaos.db')}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const name = `maqam_chaos_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(PG_ADMIN);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: PG_ADMIN });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    },
  };
}

/** The catalog, an API key, and the exact bytes a cacheless server renders for each id of the pool, per locale. */
async function prepare(url: string) {
  const storage = openStorage(url);
  await prepareDatabase(storage);
  await seedDemoCatalog(storage, { songs: SONGS });
  const key = (await createApiKeysService(createApiKeysRepo(storage.db)).create({ name: 'chaos' })).key;
  const reference = await buildApp({
    config: loadConfig({ DATABASE_URL: url, MAQAM_SONG_CACHE_MB: '0', MAQAM_RATE_LIMIT: '0', MAQAM_SECRET: 'x'.repeat(40), MAQAM_PUBLIC_URL: PUBLIC_URL }),
    storage,
    logger: false,
  });
  const pool = Array.from({ length: POOL }, (_, i) => (i % 40 === 39 ? `missing-${i}` : `song-${1 + Math.floor((i * 7919) % SONGS)}`));
  const expected = new Map<string, Map<string, string>>();
  for (const locale of LOCALES) {
    const fragments = new Map<string, string>();
    for (const id of pool) {
      const res = await reference.inject({
        method: 'POST', url: '/v1/music/songs:batchGet', payload: { songIdList: [{ value: id }] },
        headers: { 'content-type': 'application/json', 'accept-language': locale, 'x-api-key': key },
      });
      fragments.set(id, res.body.slice(`{"results":{${JSON.stringify(id)}:`.length, -2));
    }
    expected.set(locale, fragments);
  }
  await reference.close();
  await storage.close();
  return { key, pool, expected };
}

async function drill(dialect: 'sqlite' | 'postgres'): Promise<{ phases: Phase[]; alive: boolean; stderr: string; log: string }> {
  const database = await createDatabase(dialect);
  const { key, pool, expected } = await prepare(database.url);
  const redisProxy = await TcpProxy.start(Number(REDIS.port || 6379), REDIS.hostname);
  const databaseProxy = dialect === 'postgres' ? await TcpProxy.start(Number(new URL(database.url).port || 5432)) : undefined;
  let serverUrl = database.url;
  if (databaseProxy) {
    const viaProxy = new URL(database.url);
    viaProxy.port = String(databaseProxy.port);
    serverUrl = viaProxy.toString();
  }
  const server: ServerProcess = await spawnServer({
    DATABASE_URL: serverUrl, REDIS_URL: `redis://127.0.0.1:${redisProxy.port}`, MAQAM_SONG_CACHE_MB: '1', MAQAM_RATE_LIMIT: '10000000', MAQAM_DB_TIMEOUT_MS: '1000',
    MAQAM_PUBLIC_URL: PUBLIC_URL,
  });

  const phases: Phase[] = [];
  let phase: Phase = { name: 'steady load', statuses: new Map(), invalid: 0, slowestMs: 0, errors: new Map() };
  phases.push(phase);
  let running = true;
  // (Until 2026-11-23 this was an LCG in floating point, whose products passed 2^53: it drew only 353
  // distinct locale and id pairs, which a 1 MB cache held, so outages of the database went unseen.)
  const random = seededRandom(1);
  const batchGet = async (signal: AbortSignal) => {
    const locale = random.pick(LOCALES);
    const ids = Array.from({ length: IDS_PER_REQUEST }, () => random.pick(pool));
    const res = await fetch(`${server.url}/v1/music/songs:batchGet`, {
      method: 'POST', signal, body: JSON.stringify({ songIdList: ids.map((value) => ({ value })) }),
      headers: { 'content-type': 'application/json', 'accept-language': locale, 'x-api-key': key },
    });
    const body = await res.text();
    const fragments = expected.get(locale)!;
    const want = `{"results":{${[...new Set(ids)].map((id) => `${JSON.stringify(id)}:${fragments.get(id)}`).join(',')}}}`;
    let valid = res.status === 200 ? body === want : false;
    let message: string | undefined;
    if (res.status !== 200) {
      try {
        const error = JSON.parse(body) as { code?: unknown; requestId?: unknown; message?: unknown };
        message = `${res.status} ${String(error.message)}`;
        valid = typeof error.code === 'string' && typeof error.requestId === 'string' && (res.status !== 503 || res.headers.get('retry-after') !== null);
      } catch {
        valid = false;
      }
    }
    return { status: res.status, valid, message };
  };
  const worker = async () => {
    while (running) {
      const started = performance.now();
      let status = 'no answer';
      let valid = false;
      try {
        const answer = await batchGet(AbortSignal.timeout(10_000));
        status = String(answer.status);
        valid = answer.valid;
        if (answer.message !== undefined) phase.errors.set(answer.message, (phase.errors.get(answer.message) ?? 0) + 1);
      } catch {
        // counted as 'no answer'
      }
      // An answer counts in the phase it arrived in (those sent before an outage and answered 503 in it are
      // the outage's, not the steady load's).
      const current = phase;
      current.statuses.set(status, (current.statuses.get(status) ?? 0) + 1);
      if (!valid && status !== 'no answer') current.invalid++;
      current.slowestMs = Math.max(current.slowestMs, performance.now() - started);
    }
  };
  const workers = Array.from({ length: WORKERS }, worker);
  const sleep = (seconds: number) => new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  const probe = async () => (await batchGet(AbortSignal.timeout(5000))).status;

  await sleep(STEADY_SECONDS);
  const outages: Array<[string, TcpProxy | undefined, 'cut' | 'pause']> = [
    ['database cut', databaseProxy, 'cut'],
    ['database paused', databaseProxy, 'pause'],
    ['Redis cut', redisProxy, 'cut'],
    ['Redis paused', redisProxy, 'pause'],
  ];
  for (const [name, proxy, outage] of outages) {
    if (!proxy) continue;
    phase = { name, statuses: new Map(), invalid: 0, slowestMs: 0, errors: new Map() };
    phases.push(phase);
    proxy[outage]();
    await sleep(OUTAGE_SECONDS);
    proxy.restore();
    phase = { name: `after ${name}`, statuses: new Map(), invalid: 0, slowestMs: 0, errors: new Map() };
    phases.push(phase);
    phase.recoveryMs = await timeToRecover(probe);
    await sleep(2);
  }
  running = false;
  await Promise.all(workers);
  const alive = server.alive();
  const stderr = server.stderr();
  const log = server.log();
  await server.stop();
  await redisProxy.close();
  await databaseProxy?.close();
  await database.drop();
  return { phases, alive, stderr, log };
}

const DIALECTS = (process.env.BENCH_DIALECTS ?? 'sqlite,postgres').split(',') as ('sqlite' | 'postgres')[];
for (const dialect of DIALECTS) {
  console.log(`\n## ${dialect}: ${WORKERS} clients, ${IDS_PER_REQUEST} ids a request, ${SONGS} songs, 1 MB song cache`);
  const { phases, alive, stderr, log } = await drill(dialect);
  console.log('| phase | answers by status | invalid bodies | slowest | recovery |');
  console.log('|---|---|---|---|---|');
  for (const p of phases) {
    const statuses = [...p.statuses].sort().map(([status, n]) => `${status}: ${n}`).join(', ');
    const recovery = p.recoveryMs === undefined ? '' : p.recoveryMs === Infinity ? 'never' : `${Math.round(p.recoveryMs)} ms`;
    console.log(`| ${p.name} | ${statuses} | ${p.invalid} | ${Math.round(p.slowestMs)} ms | ${recovery} |`);
  }
  for (const p of phases) {
    for (const [message, n] of p.errors) console.log(`- ${p.name}: ${n} × ${message}`);
  }
  console.log(`process ${alive ? 'alive throughout' : 'EXITED'}`);
  if (!alive) console.log(stderr.slice(-2000));
  if (process.env.BENCH_SHOW_LOG) console.log(log.split('\n').slice(0, Number(process.env.BENCH_SHOW_LOG)).join('\n'));
}
