// bench/batch-get: BatchGetSongs of 100 ids from the 1,000,000-song catalog,
// measured as a real client stream would load it.
//
// Server pinned to core 0, wrk pinned to core 1, 32 connections on loopback.
// Every Maqam run draws its requests from 50,000 distinct bodies (100 ids
// each), so a warm cache does not turn the stream into replays: Zipf (s = 1)
// over a fixed random permutation of the songs, and uniform. An "all hits"
// run replays 100 bodies, to price the path where every id is cached. In the
// same run: the ceiling (bare node:http answering the POST with the
// pre-serialized answer) and Fastify's floor (parse and validate the body,
// send fixed bytes), and the ceiling once more at about the all-hits pace
// (ceiling-server.ts, BUSY_US). The headline is the server's CPU microseconds per
// request (from /proc/PID/stat over the run): it holds when the machine is
// noisy, where requests/s does not. (Against another commit, side by side:
// compare.ts.)
//
//   npm run bench:batch-get                      # 1,000,000 songs (seeded once, cached in bench/.data)
//   BENCH_SONGS=100000 BENCH_SECONDS=5 BENCH_WARMUP=3 npm run bench:batch-get
//   BENCH_MEMORY_SECONDS=60 npm run bench:batch-get   # the Zipf run as long as the memory target asks
//   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/maqam_bench_1m npm run bench:batch-get   # a catalog seeded there first
import { spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { seededRandom } from '@maqam/server';
import { cpuSeconds, memoryOf, startPinned, stop, storageReadBytes, waitReady, warmPageCache, wrk, type WrkResult } from '../lib/load.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const HERE = import.meta.dirname;
const DATA = join(ROOT, 'bench/.data');
const RESULTS = join(ROOT, 'bench/results');
const BIN = join(ROOT, 'packages/cli/bin/maqam.js');
const SONGS = Number(process.env.BENCH_SONGS ?? 1_000_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 15);
const MEMORY_SECONDS = Number(process.env.BENCH_MEMORY_SECONDS ?? SECONDS);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP ?? 10);
const CONNECTIONS = 32;
const FRESH_BODIES = 50_000;
const HIT_BODIES = 100;
const BATCH = 100;
const DB_FILE = join(DATA, `bench-${SONGS}.db`);
/** Another catalog, already seeded (a PostgreSQL one: `maqam seed-demo --songs 1000000` on it first). */
const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? `sqlite:${DB_FILE}`;
const onSqlite = DATABASE_URL.startsWith('sqlite:');
const env = { ...process.env, DATABASE_URL, LOG_LEVEL: 'warn', MAQAM_RATE_LIMIT: '0' };

mkdirSync(DATA, { recursive: true });
mkdirSync(RESULTS, { recursive: true });

function cli(args: string[]): string {
  const result = spawnSync(process.execPath, [BIN, ...args], { env, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`maqam ${args.join(' ')} failed:\n${result.stderr}`);
  return result.stdout;
}

// 1. The catalog.
if (onSqlite && !existsSync(DB_FILE)) {
  console.log(`seeding ${SONGS.toLocaleString('en')} songs into ${DB_FILE} ...`);
  console.log(`seeded in ${JSON.parse(cli(['seed-demo', '--songs', String(SONGS), '--json'])).seconds} s`);
}
if (onSqlite) console.log(`database file read into the page cache in ${warmPageCache(DB_FILE).toFixed(1)} s`);
else console.log(`catalog: ${DATABASE_URL.replace(/\/\/[^@]*@/, '//')}`);
const apiKey: string = JSON.parse(cli(['keys', 'create', '--name', `bench-${Date.now()}`, '--json'])).key;

// 2. Request bodies: 100 distinct ids each, Zipf(s = 1) over a fixed random permutation, or uniform.
const random = seededRandom(42);
const permutation = Uint32Array.from({ length: SONGS }, (_, i) => i);
for (let i = SONGS - 1; i > 0; i--) {
  const j = Math.floor(random.next() * (i + 1));
  [permutation[i], permutation[j]] = [permutation[j]!, permutation[i]!];
}
const cdf = new Float64Array(SONGS);
let harmonic = 0;
for (let rank = 0; rank < SONGS; rank++) cdf[rank] = harmonic += 1 / (rank + 1);
function zipfIndex(): number {
  const target = random.next() * harmonic;
  let lo = 0;
  let hi = SONGS - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (cdf[mid]! < target) lo = mid + 1;
    else hi = mid;
  }
  return permutation[lo]!;
}
function writeBodies(file: string, count: number, draw: () => number): { file: string; distinctIds: number } {
  const lines: string[] = [];
  const seen = new Set<number>();
  for (let b = 0; b < count; b++) {
    const ids = new Set<number>();
    while (ids.size < BATCH) ids.add(draw());
    for (const id of ids) seen.add(id);
    lines.push(JSON.stringify({ songIdList: [...ids].map((i) => ({ value: `song-${i + 1}` })) }));
  }
  writeFileSync(file, `${lines.join('\n')}\n`);
  return { file, distinctIds: seen.size };
}
const streams = {
  'all hits': writeBodies(join(DATA, `hits-${SONGS}.txt`), HIT_BODIES, zipfIndex),
  'fresh zipf': writeBodies(join(DATA, `fresh-zipf-${SONGS}.txt`), FRESH_BODIES, zipfIndex),
  'fresh uniform': writeBodies(join(DATA, `fresh-uniform-${SONGS}.txt`), FRESH_BODIES, () => Math.floor(random.next() * SONGS)),
};
for (const [name, stream] of Object.entries(streams)) console.log(`${name}: ${stream.distinctIds.toLocaleString('en')} distinct ids`);
const firstBody = readFileSync(streams['fresh zipf'].file, 'utf8').split('\n')[0]!;

// 3. Processes and load.
const PORT = 18_000 + Math.floor(Math.random() * 1000);
const base = `http://127.0.0.1:${PORT}`;
const processEnv = { ...env, PATH: `${join(ROOT, 'node_modules/.bin')}:${process.env.PATH}`, PORT: String(PORT) };
const post = () => fetch(`${base}/v1/music/songs:batchGet`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': apiKey }, body: firstBody });

interface Run extends WrkResult {
  cpuMicrosecondsPerRequest: number;
  /** MB the server read from storage during the run: above zero, part of the run waited on the disk. */
  storageReadMb: number;
  rssMb?: number;
  rssAnonMb?: number;
  peakRssMb?: number;
}

/** wrk over a stream of bodies, with the server's CPU time over exactly that run. */
function measure(server: ChildProcess, bodies: string, seconds: number): Run {
  const before = cpuSeconds(server.pid!);
  const readBefore = storageReadBytes(server.pid!);
  const result = wrk({ url: `${base}/`, script: join(HERE, 'requests.lua'), seconds, connections: CONNECTIONS, env: { BODIES_FILE: bodies, API_KEY: apiKey } });
  const cpu = cpuSeconds(server.pid!) - before;
  return {
    ...result,
    cpuMicrosecondsPerRequest: Math.round((cpu * 1e6) / Math.max(1, result.requests)),
    storageReadMb: Math.round((storageReadBytes(server.pid!) - readBefore) / 1048576),
  };
}

const results: Record<string, Run> = {};
console.log(`\n${SONGS.toLocaleString('en')} songs, ${CONNECTIONS} connections, ${SECONDS} s per run after ${WARMUP_SECONDS} s warm-up`);

const maqam = startPinned([BIN, 'serve'], processEnv);
const started = performance.now();
await waitReady(maqam, post);
// The first start on a catalog stored in another format rebuilds it (prepareDatabase) before it listens.
console.log(`server ready in ${((performance.now() - started) / 1000).toFixed(1)} s`);
const sampleBody = Buffer.from(await (await fetch(`${base}/v1/music/songs:batchGet`, {
  method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': apiKey, 'accept-language': 'en' }, body: firstBody,
})).arrayBuffer());
const sampleFile = join(DATA, 'ceiling-body.json');
writeFileSync(sampleFile, sampleBody);
for (const name of ['all hits', 'fresh zipf', 'fresh uniform'] as const) {
  measure(maqam, streams[name].file, WARMUP_SECONDS);
  results[name] = { ...measure(maqam, streams[name].file, name === 'fresh zipf' ? MEMORY_SECONDS : SECONDS), ...memoryOf(maqam.pid!) };
  console.log(name, results[name]);
}
await stop(maqam);

for (const [name, script] of [['ceiling', 'ceiling-server.ts'], ['fastify floor', 'fastify-floor.ts']] as const) {
  const server = startPinned([process.execPath, join(HERE, script)], { ...processEnv, BODY_FILE: sampleFile });
  await waitReady(server, post);
  measure(server, streams['fresh zipf'].file, Math.min(3, WARMUP_SECONDS));
  results[name] = measure(server, streams['fresh zipf'].file, SECONDS);
  console.log(name, results[name]);
  await stop(server);
}
// The ceiling again, spinning before each answer for what all hits cost beyond it, so it serves at about the
// all-hits pace: its cost beyond the spin is what a request costs the kernel and Node at that pace, where the
// load generator sleeps between answers and each one wakes it (the ceiling at full pace rarely lets it sleep).
const busyUs = Math.max(0, Math.round(results['all hits']!.cpuMicrosecondsPerRequest - results.ceiling!.cpuMicrosecondsPerRequest));
{
  const server = startPinned([process.execPath, join(HERE, 'ceiling-server.ts')], { ...processEnv, BODY_FILE: sampleFile, BUSY_US: String(busyUs) });
  await waitReady(server, post);
  measure(server, streams['fresh zipf'].file, Math.min(3, WARMUP_SECONDS));
  results['ceiling, busy'] = measure(server, streams['fresh zipf'].file, SECONDS);
  console.log(`ceiling, busy ${busyUs} us a request`, results['ceiling, busy']);
  await stop(server);
}

// 4. Report.
const r = (name: string) => results[name]!;
const cpu = (name: string) => r(name).cpuMicrosecondsPerRequest;
console.log(`\nresponse body of the sample request: ${(sampleBody.length / 1024).toFixed(1)} KiB`);
console.log('\n| run | CPU us/request | x ceiling | x Fastify floor | requests/s | p50 ms | p99 ms | errors | RSS MB (anon, peak) | read from storage MB |');
console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
for (const [name, x] of Object.entries(results)) {
  console.log(`| ${name} | ${x.cpuMicrosecondsPerRequest} | ${(x.cpuMicrosecondsPerRequest / cpu('ceiling')).toFixed(1)} | ${(x.cpuMicrosecondsPerRequest / cpu('fastify floor')).toFixed(1)} | ${x.requestsPerSecond.toFixed(0)} | ${x.p50Ms.toFixed(2)} | ${x.p99Ms.toFixed(2)} | ${x.errors} | ${x.rssMb === undefined ? '' : `${x.rssMb} (${x.rssAnonMb}, ${x.peakRssMb})`} | ${x.storageReadMb} |`);
}
console.log(`\ntargets: all hits <= 250 us (${cpu('all hits')}), fresh zipf <= 450 us (${cpu('fresh zipf')}), uniform <= 800 us (${cpu('fresh uniform')}); fresh zipf p99 < 25 ms (${r('fresh zipf').p99Ms.toFixed(1)}); RSS < 300 MB (${r('fresh zipf').rssMb})`);
// The issue set its targets on a machine whose ceiling cost 66 us a request: as multiples of the ceiling,
// they hold on any machine, where the microseconds above only hold on one as fast as that.
const ratio = (name: string) => (cpu(name) / cpu('ceiling')).toFixed(1);
console.log(`as multiples of the ceiling (the issue's 66 us): all hits <= 3.8 (${ratio('all hits')}), fresh zipf <= 6.8 (${ratio('fresh zipf')}), uniform <= 12.1 (${ratio('fresh uniform')})`);
const pacedCeiling = cpu('ceiling, busy') - busyUs;
console.log(`the ceiling at about the all-hits pace (${r('ceiling, busy').requestsPerSecond.toFixed(0)} requests/s, spinning ${busyUs} us each): ${pacedCeiling} us a request beyond the spin, against ${cpu('ceiling')} at full pace (${r('ceiling').requestsPerSecond.toFixed(0)} requests/s); all hits are ${(cpu('all hits') / pacedCeiling).toFixed(1)} times that`);
const out = join(RESULTS, `batch-get-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
writeFileSync(out, JSON.stringify({ songs: SONGS, seconds: SECONDS, connections: CONNECTIONS, results }, null, 2));
console.log(`\nwritten to ${out}`);
