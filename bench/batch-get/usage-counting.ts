// bench/batch-get/usage-counting.ts: what counting API keys' usage (keys/key-usage.ts countAnswer, an onResponse
// hook on every route that admits keys) costs a BatchGetSongs of 100 ids with an API key (issue 55: at most 3% of
// the server's CPU a request). A side by side of two builds by bench/lib/compare.ts, as batch-get/compare.ts does:
//
//   A, A again: counting OFF, a commit made for this bench only: HEAD's tree with the one wiring line of
//               packages/server/src/app.ts changed (`countKeyUse: keyUsage.countAnswer` -> `countKeyUse: undefined`),
//               written through a temporary index (GIT_INDEX_FILE) and `git commit-tree`: no branch, no ref and not
//               the shared index is touched; the commit is left unreferenced.
//   B:          counting ON, HEAD's tree as committed (not this work tree's uncommitted edits); BENCH_ON_SERVERS (2) servers
//               of it, each a B of its own: the verdict is the median of all their rounds' ratios to A.
//
// The servers up at once on core 0, loaded in turn by wrk on core 1 (32 connections), the order turned each
// round; the verdict is the median of the per-round ratios on / off of the server's CPU a request (from /proc),
// beside the A again / A ratios as the noise band. Streams (bench/.data, written by `npm run bench:batch-get`): `hits` (100
// bodies replayed: every id cached) and `fresh-zipf` (50,000 bodies drawn Zipf). On SQLite (the catalog
// bench:batch-get seeded) and on PostgreSQL with Redis (as operators run many nodes: the ON side hands its counts
// to Redis every second); the PostgreSQL catalog is seeded by this script the first time, into its own database.
// Then the hook alone, timed in this process: its cost a call against B's CPU a request.
//
//   BENCH_SONGS=100000 BENCH_SECONDS=5 BENCH_WARMUP=3 npm run bench:batch-get   # once: seeds the catalog, writes the streams
//   BENCH_SONGS=100000 npm run bench:usage-counting
//   BENCH_DIALECTS=sqlite BENCH_ROUNDS=6 BENCH_SECONDS=6 BENCH_SONGS=100000 npm run bench:usage-counting
//   BENCH_BASE=HEAD~1 npm run bench:usage-counting       # another commit than HEAD, on and off
//   BENCH_PROFILE=1 ...                                  # the servers write --cpu-prof profiles to bench/.scratch/usage-counting
//
// Knobs: BENCH_SONGS (1,000,000), BENCH_STREAMS (hits,fresh-zipf), BENCH_ROUNDS (8), BENCH_SECONDS (6),
// BENCH_WARMUP (6), BENCH_DIALECTS (sqlite,postgres), BENCH_POSTGRES_URL (a seeded catalog; default a database
// maqam_bench_usage_<songs> on MAQAM_TEST_POSTGRES, seeded if it lacks the songs), BENCH_REDIS_URL (`none`: without).
// Every run writes its figures to bench/results/usage-counting-<time>.json.
import { execFileSync, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { alternate, median, printComparison, ratios, treeAt, type Comparison } from '../lib/compare.ts';
import { loadedServerSide, memoryOf, scaleOut, startPinned, stop, waitReady, warmPageCache, wrk } from '../lib/load.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const DATA = join(ROOT, 'bench/.data');
const RESULTS = join(ROOT, 'bench/results');
const SONGS = Number(process.env.BENCH_SONGS ?? 1_000_000);
const STREAMS = (process.env.BENCH_STREAMS ?? 'hits,fresh-zipf').split(',');
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 8);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 6);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP ?? 6);
const DIALECTS = (process.env.BENCH_DIALECTS ?? 'sqlite,postgres').split(',');
const BASE = process.env.BENCH_BASE ?? 'HEAD';
const PROFILE = process.env.BENCH_PROFILE === '1';
/** Servers with counting on: each its own B, so one process's luck (two of one build differ by 10 to 20% here) shows as such. */
const ON_SERVERS = Number(process.env.BENCH_ON_SERVERS ?? 2);
const APP_FILE = 'packages/server/src/app.ts';
const WIRING = 'countKeyUse: keyUsage.countAnswer';
const UNWIRED = 'countKeyUse: undefined';
const SQLITE_FILE = join(DATA, `bench-${SONGS}.db`);

function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(2);
}
for (const stream of STREAMS) {
  if (!existsSync(join(DATA, `${stream}-${SONGS}.txt`))) fail(`no bench/.data/${stream}-${SONGS}.txt: run BENCH_SONGS=${SONGS} npm run bench:batch-get once first (it seeds the catalog and writes the streams)`);
}
if (DIALECTS.includes('sqlite') && !existsSync(SQLITE_FILE)) fail(`no ${SQLITE_FILE}: run BENCH_SONGS=${SONGS} npm run bench:batch-get once first`);

/** `base` with counting unwired: a commit of its own, made through a temporary index; no ref points at it. */
function countingOffCommit(base: string): string {
  const index = join(tmpdir(), `maqam-usage-off-${process.pid}.index`);
  const git = (args: string[], input?: string) => execFileSync('git', ['-C', ROOT, ...args], { env: { ...process.env, GIT_INDEX_FILE: index }, encoding: 'utf8', input });
  try {
    const baseCommit = git(['rev-parse', '--verify', `${base}^{commit}`]).trim();
    git(['read-tree', baseCommit]);
    const source = git(['show', `${baseCommit}:${APP_FILE}`]);
    const found = source.split(WIRING).length - 1;
    if (found !== 1) fail(`${APP_FILE} at ${base} holds \`${WIRING}\` ${found} times, not once: nothing to switch off`);
    const blob = git(['hash-object', '-w', '--stdin'], source.replace(WIRING, UNWIRED)).trim();
    const mode = git(['ls-tree', baseCommit, APP_FILE]).split(' ')[0]!;
    git(['update-index', '--cacheinfo', `${mode},${blob},${APP_FILE}`]);
    const tree = git(['write-tree']).trim();
    return git(['commit-tree', tree, '-p', baseCommit, '-m', `bench only (bench/batch-get/usage-counting.ts): ${base} with API keys' usage not counted (${UNWIRED} in ${APP_FILE})`]).trim();
  } finally {
    rmSync(index, { force: true });
  }
}

const baseCommit = execFileSync('git', ['-C', ROOT, 'rev-parse', '--short', `${BASE}^{commit}`], { encoding: 'utf8' }).trim();
const offCommit = countingOffCommit(BASE);
console.log(`counting ON: ${baseCommit}; counting OFF: ${offCommit.slice(0, 7)} (${baseCommit} with \`${UNWIRED}\`, made for this run)`);
const on = treeAt(ROOT, baseCommit);
const off = treeAt(ROOT, offCommit);
const profileDir = join(ROOT, 'bench/.scratch/usage-counting');
if (PROFILE) mkdirSync(profileDir, { recursive: true });

const cliOf = (root: string) => join(root, 'packages/cli/bin/maqam.js');
const baseEnv = { ...process.env, LOG_LEVEL: 'warn', MAQAM_RATE_LIMIT: '0', PATH: `${join(ROOT, 'node_modules/.bin')}:${process.env.PATH}` };

function cli(root: string, env: Record<string, string | undefined>, args: string[]): string {
  const result = spawnSync(process.execPath, [cliOf(root), ...args], { env: { ...baseEnv, ...env }, encoding: 'utf8' });
  if (result.status !== 0) fail(`maqam ${args.join(' ')} failed:\n${result.stderr}`);
  return result.stdout;
}

/** The PostgreSQL catalog: BENCH_POSTGRES_URL, or a database of this bench's own, seeded with SONGS songs when it lacks them. */
async function postgresCatalog(): Promise<string | undefined> {
  if (process.env.BENCH_POSTGRES_URL) return process.env.BENCH_POSTGRES_URL;
  const admin = process.env.MAQAM_TEST_POSTGRES ?? 'postgres://postgres@127.0.0.1:5432/test';
  const name = `maqam_bench_usage_${SONGS}`;
  const url = new URL(admin);
  url.pathname = `/${name}`;
  const query = async (connectionString: string, text: string) => {
    const client = new pg.Client({ connectionString, connectionTimeoutMillis: 2000 });
    await client.connect();
    try {
      return (await client.query(text)).rows;
    } finally {
      await client.end();
    }
  };
  try {
    await query(admin, 'select 1');
  } catch {
    return undefined;
  }
  const songs = await query(url.toString(), 'select count(*)::int as n from songs').then((rows) => rows[0].n as number, () => -1);
  if (songs !== SONGS) {
    console.log(`\nseeding ${SONGS.toLocaleString('en')} songs into ${name} ...`);
    await query(admin, `drop database if exists ${name} with (force)`);
    await query(admin, `create database ${name}`);
    console.log(`seeded in ${JSON.parse(cli(on.root, { DATABASE_URL: url.toString() }, ['seed-demo', '--songs', String(SONGS), '--json'])).seconds} s`);
    // This PostgreSQL runs without autovacuum: statistics first (bench/README.md, "Setup").
    await query(url.toString(), 'analyze');
  }
  return url.toString();
}

/** Calls counted in the database for each key (read after the servers stopped: a clean stop writes what is left). */
async function countedCalls(databaseUrl: string, keyIds: string[]): Promise<number[]> {
  if (databaseUrl.startsWith('sqlite:')) {
    const db = new DatabaseSync(databaseUrl.slice('sqlite:'.length), { readOnly: true });
    try {
      return keyIds.map((id) => Number((db.prepare('select coalesce(sum(calls), 0) as n from api_key_usage where key_id = ?').get(id) as { n: number }).n));
    } finally {
      db.close();
    }
  }
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const counted: number[] = [];
    for (const id of keyIds) counted.push(Number((await db.query('select coalesce(sum(calls), 0) as n from api_key_usage where key_id = $1', [id])).rows[0].n));
    return counted;
  } finally {
    await db.end();
  }
}

interface DialectRun {
  dialect: string;
  comparison: Comparison;
  requests: number[];
  counted: number[];
  rssMb: number[];
}

async function compareOn(dialect: string, databaseUrl: string): Promise<DialectRun> {
  const env = { DATABASE_URL: databaseUrl, ...scaleOut(dialect) };
  const children: ChildProcess[] = [];
  const requests = Array.from({ length: 2 + ON_SERVERS }, () => 0);
  const keyIds: string[] = [];
  try {
    const serverSide = async (index: number, label: string, root: string) => {
      const created = JSON.parse(cli(root, env, ['keys', 'create', '--name', `usage-counting-${label}-${Date.now()}`, '--json'])) as { id: string; key: string };
      keyIds[index] = created.id;
      const port = 18_000 + Math.floor(Math.random() * 1000);
      const base = `http://127.0.0.1:${port}`;
      const profile = PROFILE ? [`--cpu-prof`, `--cpu-prof-dir=${profileDir}`, `--cpu-prof-name=${dialect}-${index}-${label.replace(/\W+/g, '-')}.cpuprofile`] : [];
      const child = startPinned([process.execPath, ...profile, cliOf(root), 'serve'], { ...baseEnv, ...env, PORT: String(port) });
      children.push(child);
      const body = JSON.stringify({ songIdList: [{ value: 'song-1' }] });
      await waitReady(child, () => fetch(`${base}/v1/music/songs:batchGet`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': created.key }, body }));
      const load = (stream: string, seconds: number) => {
        const result = wrk({
          url: `${base}/`, script: join(ROOT, 'bench/batch-get/requests.lua'), seconds, connections: 32,
          env: { BODIES_FILE: join(DATA, `${stream}-${SONGS}.txt`), API_KEY: created.key },
        });
        requests[index]! += result.requests;
        return result;
      };
      return { ...loadedServerSide(label, child.pid!, load, { warmUp: WARMUP_SECONDS, measured: SECONDS }), pid: child.pid! };
    };
    // Started off, on, off, on...: no build is always the one started last.
    const a = await serverSide(0, 'counting off', off.root);
    const bs = [await serverSide(2, 'counting on', on.root)];
    const aAgain = await serverSide(1, 'counting off', off.root);
    for (let n = 1; n < ON_SERVERS; n++) bs.push(await serverSide(2 + n, `counting on, server ${n + 1}`, on.root));
    const sides = { a, aAgain, b: bs };
    console.log(`\n${dialect}: ${SONGS.toLocaleString('en')} songs, ${ROUNDS} rounds of ${SECONDS} s per stream and server, after ${WARMUP_SECONDS} s of warm-up each`);
    const comparison = await alternate({ ...sides, subjects: STREAMS, rounds: ROUNDS });
    printComparison(comparison, [{ key: 'cpuUs', label: 'server CPU us/request' }, { key: 'p99Ms', label: 'p99 ms', digits: 1 }], `${dialect}: BatchGetSongs of 100 ids with an API key, B: counting on (${baseCommit}) against A: counting off (${offCommit.slice(0, 7)})`);
    const rssMb = [a.pid, aAgain.pid, ...bs.map((b) => b.pid)].map((pid) => memoryOf(pid).rssMb);
    for (const child of children) await stop(child);
    children.length = 0;
    // Every side's requests, warm-ups included, answered 200 (loadedServerSide refuses a measured run with errors), plus the readiness probe.
    const counted = await countedCalls(databaseUrl, keyIds);
    console.log(`\nRSS MB: off ${rssMb[0]}, off again ${rssMb[1]}, on ${rssMb.slice(2).join(', ')}`);
    console.log(`calls counted in api_key_usage after the servers stopped: off ${counted[0]}, off again ${counted[1]}, on ${counted.slice(2).join(', ')} (wrk answered ${requests.slice(2).join(', ')} of theirs, plus the readiness probes and what was in flight when a run ended)`);
    return { dialect, comparison, requests, counted, rssMb };
  } finally {
    for (const child of children) await stop(child);
  }
}

/** The hook alone: countAnswer of HEAD's tree called as Fastify calls it, ns a call (the fastest of 7 passes of 1,000,000). */
async function hookAlone(): Promise<{ nsPerCall: number; passes: number[] }> {
  const { createKeyUsage } = await import(pathToFileURL(join(on.root, 'packages/server/src/keys/key-usage.ts')).href);
  const usage = createKeyUsage({ addUsage: async () => {} }, Date.now);
  const request = { principal: { kind: 'apiKey', keyId: 'k0123456789a' }, routeOptions: { schema: { operationId: 'BatchGetSongs' }, url: '/v1/music/songs:batchGet' } };
  const reply = { statusCode: 200 };
  const done = () => {};
  const passes: number[] = [];
  for (let pass = 0; pass < 7; pass++) {
    const started = process.hrtime.bigint();
    for (let i = 0; i < 1_000_000; i++) usage.countAnswer(request, reply, done);
    passes.push(Number(process.hrtime.bigint() - started) / 1_000_000);
  }
  if (usage.pending() !== 7_000_000) throw new Error(`the hook counted ${usage.pending()} calls, not 7,000,000`);
  return { nsPerCall: Math.min(...passes), passes };
}

const runs: DialectRun[] = [];
try {
  for (const dialect of DIALECTS) {
    if (dialect === 'sqlite') {
      console.log(`\n${SQLITE_FILE} read into the page cache in ${warmPageCache(SQLITE_FILE).toFixed(1)} s`);
      runs.push(await compareOn('sqlite', `sqlite:${SQLITE_FILE}`));
    } else if (dialect === 'postgres') {
      const url = await postgresCatalog();
      if (url === undefined) console.log('\nPostgreSQL not reachable: skipped');
      else runs.push(await compareOn(`postgres${scaleOut('postgres').REDIS_URL ? ' + Redis' : ''}`, url));
    } else fail(`unknown dialect ${dialect}`);
  }
  const hook = await hookAlone();
  console.log(`\nthe hook alone (countAnswer, this process, not pinned): ${hook.nsPerCall.toFixed(0)} ns a call (7 passes of 1,000,000: ${hook.passes.map((ns) => ns.toFixed(0)).join(', ')} ns)`);
  console.log('\n| dialect | stream | counting off: CPU us/request (median) | on / off: each server (median of rounds) | on / off: all rounds of all on servers (median) | off again / off: median (range) | the hook alone, share of on |');
  console.log('|---|---|---:|---|---:|---|---:|');
  const summary = runs.flatMap((run) => run.comparison.subjects.map((subject, s) => {
    const figures = run.comparison.figures[s]!;
    const offUs = median(figures.map((round) => round[0]!.cpuUs!));
    const onSides = run.comparison.sides.slice(2).map((_, i) => i + 2);
    const onUs = median(onSides.flatMap((side) => figures.map((round) => round[side]!.cpuUs!)));
    const each = onSides.map((side) => median(ratios(run.comparison, s, side, 'cpuUs')));
    const pooled = median(onSides.flatMap((side) => ratios(run.comparison, s, side, 'cpuUs')));
    const aa = ratios(run.comparison, s, 1, 'cpuUs');
    const band = { median: median(aa), low: Math.min(...aa), high: Math.max(...aa) };
    const hookShare = hook.nsPerCall / 1000 / onUs;
    console.log(`| ${run.dialect} | ${subject} | ${offUs.toFixed(0)} | ${each.map((r) => r.toFixed(2)).join(', ')} | **${pooled.toFixed(3)}** | ${band.median.toFixed(2)} (${band.low.toFixed(2)} to ${band.high.toFixed(2)}) | ${(hookShare * 100).toFixed(2)}% |`);
    return { dialect: run.dialect, stream: subject, offUs, onUs, ratioEachOnServer: each, ratio: pooled, band, outsideBand: pooled < band.low || pooled > band.high, hookShare };
  }));
  console.log(`\ntarget (issue 55): on / off <= 1.03`);
  mkdirSync(RESULTS, { recursive: true });
  const out = join(RESULTS, `usage-counting-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(out, JSON.stringify({
    on: baseCommit, off: offCommit, songs: SONGS, rounds: ROUNDS, seconds: SECONDS, warmUpSeconds: WARMUP_SECONDS, streams: STREAMS, hook, summary,
    runs: runs.map((run) => ({
      dialect: run.dialect, requests: run.requests, counted: run.counted, rssMb: run.rssMb, orders: run.comparison.orders,
      figures: Object.fromEntries(run.comparison.subjects.map((subject, s) => [subject, run.comparison.figures[s]])),
    })),
  }, null, 2));
  console.log(`\nwritten to ${out}`);
} finally {
  on.remove();
  off.remove();
}
