// bench/batch-get: BatchGetSongs of 100 ids from a large SQLite catalog.
//
// Server pinned to core 0, wrk pinned to core 1, 32 connections on loopback.
// Measures, in one run: Maqam under Zipf (s = 1.0) and uniform id draws, the
// ceiling (bare node:http answering the same POST with pre-serialized bytes)
// the naive reference (Fastify + one IN query + parse/stringify), and
// Fastify's own floor on this route (parse + validate, fixed bytes out).
//
//   npm run bench:batch-get                      # 1,000,000 songs (seeded once, cached in bench/.data)
//   BENCH_SONGS=100000 BENCH_SECONDS=5 npm run bench:batch-get
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');
const HERE = import.meta.dirname;
const DATA = join(ROOT, 'bench/.data');
const RESULTS = join(ROOT, 'bench/results');
const BIN = join(ROOT, 'packages/cli/bin/maqam.js');
const SONGS = Number(process.env.BENCH_SONGS ?? 1_000_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 15);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP ?? 10);
const CONNECTIONS = 32;
const BODIES = 2000;
const BATCH = 100;
const DB_FILE = join(DATA, `bench-${SONGS}.db`);
const env = { ...process.env, DATABASE_URL: `sqlite:${DB_FILE}`, LOG_LEVEL: 'warn', MAQAM_RATE_LIMIT: '0' };

mkdirSync(DATA, { recursive: true });
mkdirSync(RESULTS, { recursive: true });

function cli(args: string[]): string {
  const result = spawnSync(process.execPath, [BIN, ...args], { env, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`maqam ${args.join(' ')} failed:\n${result.stderr}`);
  return result.stdout;
}

// 1. The catalog (seeding time is the second figure this issue asks for).
let seedSeconds: number | null = null;
if (!existsSync(DB_FILE)) {
  console.log(`seeding ${SONGS.toLocaleString('en')} songs into ${DB_FILE} ...`);
  seedSeconds = JSON.parse(cli(['seed-demo', '--songs', String(SONGS), '--json'])).seconds;
  console.log(`seeded in ${seedSeconds} s`);
}
const apiKey: string = JSON.parse(cli(['keys', 'create', '--name', `bench-${Date.now()}`, '--json'])).key;

// 2. Request bodies: 100 distinct ids each, drawn Zipf(s = 1) over a fixed random permutation, or uniformly.
function random(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const next = random(42);
const permutation = Uint32Array.from({ length: SONGS }, (_, i) => i);
for (let i = SONGS - 1; i > 0; i--) {
  const j = Math.floor(next() * (i + 1));
  [permutation[i], permutation[j]] = [permutation[j]!, permutation[i]!];
}
const cdf = new Float64Array(SONGS);
let harmonic = 0;
for (let rank = 0; rank < SONGS; rank++) cdf[rank] = harmonic += 1 / (rank + 1);
function zipfIndex(): number {
  const target = next() * harmonic;
  let lo = 0;
  let hi = SONGS - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (cdf[mid]! < target) lo = mid + 1;
    else hi = mid;
  }
  return permutation[lo]!;
}
function bodies(draw: () => number): string {
  const lines: string[] = [];
  for (let b = 0; b < BODIES; b++) {
    const ids = new Set<number>();
    while (ids.size < BATCH) ids.add(draw());
    lines.push(JSON.stringify({ songIdList: [...ids].map((i) => ({ value: `song-${i + 1}` })) }));
  }
  return lines.join('\n') + '\n';
}
const zipfFile = join(DATA, `zipf-${SONGS}.txt`);
const uniformFile = join(DATA, `uniform-${SONGS}.txt`);
writeFileSync(zipfFile, bodies(zipfIndex));
writeFileSync(uniformFile, bodies(() => Math.floor(next() * SONGS)));

// 3. Processes and load.
const PORT = 18_000 + Math.floor(Math.random() * 1000);
const base = `http://127.0.0.1:${PORT}`;

async function waitReady(url: string, child: ChildProcess): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    try {
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': apiKey }, body: readFileSync(zipfFile, 'utf8').split('\n')[0] });
      if (res.status === 200) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('server did not become ready');
}

function startPinned(args: string[], extraEnv: Record<string, string> = {}): ChildProcess {
  // The maqam bin runs through its shebang, with the Node flags operators get.
  const command = args[0] === BIN ? args : [process.execPath, ...args];
  return spawn('taskset', ['-c', '0', ...command], {
    env: { ...env, PATH: `${join(ROOT, 'node_modules/.bin')}:${process.env.PATH}`, PORT: String(PORT), ...extraEnv },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.on('exit', r));
  child.kill('SIGTERM');
  await exited;
}

interface WrkResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
}

function toMs(text: string): number {
  const match = /^([\d.]+)(us|ms|s|m)$/.exec(text)!;
  const value = Number(match[1]);
  return match[2] === 'us' ? value / 1000 : match[2] === 'ms' ? value : match[2] === 's' ? value * 1000 : value * 60000;
}

function wrk(bodiesFile: string, seconds: number): WrkResult {
  const result = spawnSync(
    'taskset',
    ['-c', '1', 'wrk', '-t1', `-c${CONNECTIONS}`, `-d${seconds}s`, '--latency', '-s', join(HERE, 'requests.lua'), `${base}/`],
    { env: { ...process.env, BODIES_FILE: bodiesFile, API_KEY: apiKey }, encoding: 'utf8' },
  );
  if (result.status !== 0) throw new Error(`wrk failed: ${result.stderr}`);
  const out = result.stdout;
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)![1]);
  const p50 = toMs(/\s50%\s+(\S+)/.exec(out)![1]!);
  const p99 = toMs(/\s99%\s+(\S+)/.exec(out)![1]!);
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0);
  const socketErrors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  const errors = non2xx + (socketErrors ? socketErrors.slice(1).reduce((a, b) => a + Number(b), 0) : 0);
  return { requestsPerSecond: rps, p50Ms: p50, p99Ms: p99, errors };
}

function rssOf(pid: number): { rssMb: number; peakRssMb: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)![1]);
  return { rssMb: Math.round(kb('VmRSS') / 1024), peakRssMb: Math.round(kb('VmHWM') / 1024) };
}

const results: Record<string, WrkResult & Partial<{ rssMb: number; peakRssMb: number }>> = {};

console.log(`maqam: ${SONGS.toLocaleString('en')} songs, ${CONNECTIONS} connections, ${SECONDS} s per run after ${WARMUP_SECONDS} s warm-up`);
const maqam = startPinned([BIN, 'serve']);
await waitReady(`${base}/v1/music/songs:batchGet`, maqam);
const sample = await fetch(`${base}/v1/music/songs:batchGet`, {
  method: 'POST',
  headers: { 'content-type': 'application/json', 'x-api-key': apiKey, 'accept-language': 'en' },
  body: readFileSync(zipfFile, 'utf8').split('\n')[0],
});
const sampleBody = Buffer.from(await sample.arrayBuffer());
const sampleFile = join(DATA, 'ceiling-body.json');
writeFileSync(sampleFile, sampleBody);
for (const [name, file] of [['maqam zipf', zipfFile], ['maqam uniform', uniformFile]] as const) {
  wrk(file, WARMUP_SECONDS);
  results[name] = { ...wrk(file, SECONDS), ...rssOf(maqam.pid!) };
  console.log(name, results[name]);
}
await stop(maqam);

const ceiling = startPinned([join(HERE, 'ceiling-server.ts')], { BODY_FILE: sampleFile });
await waitReady(`${base}/`, ceiling);
results.ceiling = wrk(zipfFile, SECONDS);
console.log('ceiling', results.ceiling);
await stop(ceiling);

// Fastify's own floor on this route: parse and validate the body, send fixed bytes.
const floor = startPinned([join(HERE, 'fastify-floor.ts')], { BODY_FILE: sampleFile });
await waitReady(`${base}/v1/music/songs:batchGet`, floor);
results['fastify floor'] = wrk(zipfFile, SECONDS);
console.log('fastify floor', results['fastify floor']);
await stop(floor);

const naive = startPinned([join(HERE, 'naive-server.ts')], { DATABASE_FILE: DB_FILE });
await waitReady(`${base}/v1/music/songs:batchGet`, naive);
for (const [name, file] of [['naive zipf', zipfFile], ['naive uniform', uniformFile]] as const) {
  results[name] = wrk(file, SECONDS);
  console.log(name, results[name]);
}
await stop(naive);

// 4. Report.
const r = (name: string) => results[name]!;
const ratios = {
  fastifyFloorVsCeiling: r('fastify floor').requestsPerSecond / r('ceiling').requestsPerSecond,
  zipfVsFastifyFloor: r('maqam zipf').requestsPerSecond / r('fastify floor').requestsPerSecond,
  zipfVsCeiling: r('maqam zipf').requestsPerSecond / r('ceiling').requestsPerSecond,
  uniformVsNaiveUniform: r('maqam uniform').requestsPerSecond / r('naive uniform').requestsPerSecond,
  zipfVsNaiveZipf: r('maqam zipf').requestsPerSecond / r('naive zipf').requestsPerSecond,
};
console.log(`\nresponse body of the sample request: ${(sampleBody.length / 1024).toFixed(1)} KiB`);
console.log('\n| run | requests/s | p50 ms | p99 ms | errors | RSS MB (peak) |');
console.log('|---|---:|---:|---:|---:|---:|');
for (const [name, x] of Object.entries(results)) {
  console.log(`| ${name} | ${x.requestsPerSecond.toFixed(0)} | ${x.p50Ms.toFixed(2)} | ${x.p99Ms.toFixed(2)} | ${x.errors} | ${x.rssMb === undefined ? '' : `${x.rssMb} (${x.peakRssMb})`} |`);
}
console.log(`\nzipf / ceiling = ${ratios.zipfVsCeiling.toFixed(2)} (target >= 0.5, p99 < 25 ms: ${r('maqam zipf').p99Ms.toFixed(1)} ms)`);
console.log(`fastify floor / ceiling = ${ratios.fastifyFloorVsCeiling.toFixed(2)}; zipf / fastify floor = ${ratios.zipfVsFastifyFloor.toFixed(2)}`);
console.log(`uniform / naive uniform = ${ratios.uniformVsNaiveUniform.toFixed(1)} (target >= 5)`);
console.log(`zipf / naive zipf = ${ratios.zipfVsNaiveZipf.toFixed(1)}`);
if (seedSeconds !== null) console.log(`seed-demo --songs ${SONGS}: ${seedSeconds} s (target < 60 s)`);
const out = join(RESULTS, `batch-get-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
writeFileSync(out, JSON.stringify({ songs: SONGS, seconds: SECONDS, connections: CONNECTIONS, seedSeconds, results, ratios }, null, 2));
console.log(`\nwritten to ${out}`);
