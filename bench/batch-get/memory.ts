// bench/batch-get/memory.ts: where the server's memory goes under one request
// stream. It serves the 1M catalog that `npm run bench:batch-get` seeded, on
// core 0, and sends one of that run's body files from core 1 (32 connections,
// a 10 s warm-up, then BENCH_SECONDS). It prints the server's requests/s, CPU
// us per request, p99 and RSS (anonymous, peak; and by kind of mapping), and the heap and external
// memory from /metrics. Knobs for experiments: SERVER_NODE_OPTIONS (V8 flags
// for the server only; the young generation's size is set in maqam.js's
// shebang, which wins over NODE_OPTIONS), MAQAM_SONG_CACHE_MB, BENCH_STREAM (a body file in
// bench/.data).
//
//   npm run bench:batch-get           # once, to seed the catalog and write the body files
//   BENCH_SECONDS=30 node bench/batch-get/memory.ts
//   SERVER_NODE_OPTIONS=--max-old-space-size=256 node bench/batch-get/memory.ts
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { cpuSeconds, memoryOf, residentByMapping, startPinned, stop, storageReadBytes, waitReady, warmPageCache, wrk } from '../lib/load.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const DATA = join(ROOT, 'bench/.data');
const BIN = join(ROOT, 'packages/cli/bin/maqam.js');
const SECONDS = Number(process.env.BENCH_SECONDS ?? 30);
const DB_FILE = join(DATA, 'bench-1000000.db');
const BODIES = join(DATA, process.env.BENCH_STREAM ?? 'fresh-zipf-1000000.txt');

if (!existsSync(DB_FILE) || !existsSync(BODIES)) {
  console.error(`needs ${DB_FILE} and ${BODIES}: run \`npm run bench:batch-get\` once first`);
  process.exit(1);
}
const env = { ...process.env, DATABASE_URL: `sqlite:${DB_FILE}`, LOG_LEVEL: 'warn', MAQAM_RATE_LIMIT: '0' };
const created = spawnSync(process.execPath, [BIN, 'keys', 'create', '--name', `memory-${Date.now()}`, '--json'], { env, encoding: 'utf8' });
if (created.status !== 0) throw new Error(`maqam keys create failed:\n${created.stderr}`);
console.log(`database file read into the page cache in ${warmPageCache(DB_FILE).toFixed(1)} s`);
const apiKey: string = JSON.parse(created.stdout).key;

const PORT = 17_000 + Math.floor(Math.random() * 1000);
const base = `http://127.0.0.1:${PORT}`;
const server = startPinned([BIN, 'serve'], {
  ...env,
  PATH: `${join(ROOT, 'node_modules/.bin')}:${process.env.PATH}`,
  PORT: String(PORT),
  NODE_OPTIONS: process.env.SERVER_NODE_OPTIONS ?? '',
});
const firstBody = readFileSync(BODIES, 'utf8').split('\n')[0]!;
await waitReady(server, () =>
  fetch(`${base}/v1/music/songs:batchGet`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': apiKey }, body: firstBody }));

const load = (seconds: number) =>
  wrk({ url: `${base}/`, script: join(import.meta.dirname, 'requests.lua'), seconds, connections: 32, env: { BODIES_FILE: BODIES, API_KEY: apiKey } });
load(10);
const before = cpuSeconds(server.pid!);
const readBefore = storageReadBytes(server.pid!);
const result = load(SECONDS);
const readMb = (storageReadBytes(server.pid!) - readBefore) / 1048576;
const cpuUs = ((cpuSeconds(server.pid!) - before) * 1e6) / Math.max(1, result.requests);
const memory = memoryOf(server.pid!);
const mappings = residentByMapping(server.pid!);
const metrics = await (await fetch(`${base}/metrics`)).text();
await stop(server);

const mb = (name: string) => {
  const line = metrics.split('\n').find((l) => l.startsWith(`${name} `));
  return line === undefined ? '?' : `${Math.round(Number(line.split(' ')[1]) / 1048576)} MB`;
};
console.log(`${BODIES.split('/').pop()}, ${SECONDS} s, server NODE_OPTIONS "${process.env.SERVER_NODE_OPTIONS ?? ''}", song cache ${process.env.MAQAM_SONG_CACHE_MB ?? 'default'} MB`);
console.log(`requests/s ${result.requestsPerSecond.toFixed(0)}, CPU ${Math.round(cpuUs)} us/request, p99 ${result.p99Ms.toFixed(1)} ms, errors ${result.errors}, read from storage ${Math.round(readMb)} MB`);
console.log(`RSS ${memory.rssMb} MB (anonymous ${memory.rssAnonMb}, peak ${memory.peakRssMb})`);
console.log(`resident by mapping: ${Object.entries(mappings).sort((a, b) => b[1] - a[1]).map(([name, mb]) => `${name} ${mb} MB`).join(', ')}`);
console.log(`V8 heap ${mb('nodejs_heap_size_total_bytes')} (in use ${mb('nodejs_heap_size_used_bytes')}), external ${mb('nodejs_external_memory_bytes')}`);
// Garbage collection over the warm-up and the run, from prom-client's default metrics: count and total pause by kind.
const gc = (kind: string, what: 'sum' | 'count') => Number(metrics.split('\n').find((l) => l.startsWith(`nodejs_gc_duration_seconds_${what}{kind="${kind}"}`))?.split(' ')[1] ?? NaN);
console.log(`GC pauses (warm-up and run): ${['minor', 'major', 'incremental'].map((kind) => `${kind} ${gc(kind, 'count')} (${Math.round(gc(kind, 'sum') * 1000)} ms)`).join(', ')}`);
// Event-loop lag (prom-client's monitor since the server started): under saturation it tracks the latency,
// since a timer waits for the round of ready connections the loop is serving.
const lagMs = (name: string) => Math.round(Number(metrics.split('\n').find((l) => l.startsWith(`nodejs_eventloop_lag_${name}_seconds `))?.split(' ')[1] ?? NaN) * 1000);
console.log(`event-loop lag: p50 ${lagMs('p50')} ms, p99 ${lagMs('p99')} ms, max ${lagMs('max')} ms`);
