// bench/batch-get/compare.ts: BatchGetSongs CPU per request of this tree against another commit, measured
// side by side. On a shared machine CPU time drifts by 10 to 15% within minutes, more than most single
// changes; two servers up at once (both pinned to core 0, loaded in turn by wrk on core 1, the order
// swapped each round) see the same drift, and their medians can be compared.
//
//   npm run bench:batch-get                                   # once: seeds bench/.data and writes the streams
//   node bench/batch-get/compare.ts HEAD~1                    # this tree against HEAD~1
//   BENCH_STREAMS=hits BENCH_ROUNDS=6 BENCH_SECONDS=6 node bench/batch-get/compare.ts 45c8d2d
//   BENCH_THIS_ENV="MAQAM_SONG_CACHE_MB=96" node bench/batch-get/compare.ts HEAD   # a setting against none
//   BENCH_OTHER_DATABASE=bench/.data/bench-1000000-e803b81.db node bench/batch-get/compare.ts e803b81
//
// BENCH_OTHER_DATABASE gives the other commit a copy of the catalog of its own: needed when the two trees
// store data in different formats (this tree rebuilds what it finds in another one when it starts), or when
// the other commit does not know this tree's migrations. Copy the file while the other commit's tree made it.
//
// The other commit is extracted into a temporary directory beside this tree's node_modules (its own
// workspace links), so both run the same dependencies.
import { execFileSync, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { cpuSeconds, memoryOf, startPinned, stop, waitReady, waitSongSnapshot, warmPageCache, wrk } from '../lib/load.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const DATA = join(ROOT, 'bench/.data');
const SONGS = Number(process.env.BENCH_SONGS ?? 1_000_000);
const DB_FILE = join(DATA, `bench-${SONGS}.db`);
const STREAMS = (process.env.BENCH_STREAMS ?? 'hits,fresh-zipf,fresh-uniform').split(',');
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP ?? 8);
const other = process.argv[2];
function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(2);
}
if (!other) fail('usage: npm run bench:batch-get:compare -- <commit>');
for (const stream of STREAMS) {
  if (!existsSync(join(DATA, `${stream}-${SONGS}.txt`)) || !existsSync(DB_FILE)) fail('run npm run bench:batch-get once first: it seeds the catalog and writes the streams');
}
if (spawnSync('git', ['-C', ROOT, 'rev-parse', '--verify', '--quiet', `${other}^{commit}`]).status !== 0) fail(`no commit ${other} in this repository`);

// The other commit, with node_modules linked entry by entry but its own @maqam workspace links.
const otherRoot = mkdtempSync(join(tmpdir(), 'maqam-compare-'));
execFileSync('sh', ['-c', `git -C "${ROOT}" archive "${other}" | tar -x -C "${otherRoot}"`]);
mkdirSync(join(otherRoot, 'node_modules/@maqam'), { recursive: true });
for (const entry of readdirSync(join(ROOT, 'node_modules'))) {
  if (entry !== '@maqam') symlinkSync(join(ROOT, 'node_modules', entry), join(otherRoot, 'node_modules', entry));
}
for (const entry of readdirSync(join(ROOT, 'node_modules/@maqam'))) symlinkSync(`../../packages/${entry}`, join(otherRoot, 'node_modules/@maqam', entry));

const env = { ...process.env, DATABASE_URL: `sqlite:${DB_FILE}`, LOG_LEVEL: 'warn', MAQAM_RATE_LIMIT: '0', PATH: `${join(ROOT, 'node_modules/.bin')}:${process.env.PATH}` };
const thisEnv = Object.fromEntries((process.env.BENCH_THIS_ENV ?? '').split(' ').filter(Boolean).map((pair) => pair.split('=') as [string, string]));
const otherEnv: Record<string, string> = process.env.BENCH_OTHER_DATABASE ? { DATABASE_URL: `sqlite:${resolve(process.env.BENCH_OTHER_DATABASE)}` } : {};
/** A key made by a tree's own CLI in the database its server reads. */
function createKey(root: string, databaseEnv: Record<string, string>): string {
  const created = spawnSync(process.execPath, [join(root, 'packages/cli/bin/maqam.js'), 'keys', 'create', '--name', `compare-${Date.now()}`, '--json'], { env: { ...env, ...databaseEnv }, encoding: 'utf8' });
  if (created.status !== 0) fail(`could not create an API key: ${created.stderr}`);
  return JSON.parse(created.stdout).key;
}

// Both catalogs read into the OS page cache first, as bench/batch-get/run.ts does: no run measures the disk.
for (const file of new Set([DB_FILE, ...(process.env.BENCH_OTHER_DATABASE ? [resolve(process.env.BENCH_OTHER_DATABASE)] : [])])) warmPageCache(file);

interface Server { label: string; base: string; child: ChildProcess; apiKey: string }
const servers: Server[] = [];
try {
  for (const [label, root, extra] of [['this tree', ROOT, thisEnv], [other, otherRoot, otherEnv]] as const) {
    const apiKey = createKey(root, extra.DATABASE_URL === undefined ? {} : { DATABASE_URL: extra.DATABASE_URL });
    const port = 18_000 + Math.floor(Math.random() * 1000);
    const base = `http://127.0.0.1:${port}`;
    const child = startPinned([join(root, 'packages/cli/bin/maqam.js'), 'serve'], { ...env, ...extra, PORT: String(port) });
    const body = JSON.stringify({ songIdList: [{ value: 'song-1' }] });
    await waitReady(child, () => fetch(`${base}/v1/music/songs:batchGet`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': apiKey }, body }));
    await waitSongSnapshot(base);
    servers.push({ label, base, child, apiKey });
  }

  const measure = (server: Server, stream: string, seconds: number, warmUp = false) => {
    const before = cpuSeconds(server.child.pid!);
    const result = wrk({
      url: `${server.base}/`, script: join(ROOT, 'bench/batch-get/requests.lua'), seconds, connections: 32,
      env: { BODIES_FILE: join(DATA, `${stream}-${SONGS}.txt`), API_KEY: server.apiKey },
    });
    // A cold server can time a few requests out while it warms up; a measured run must answer every one.
    if (result.errors > 0 && !warmUp) throw new Error(`${server.label}, ${stream}: ${result.errors} errors`);
    return { us: ((cpuSeconds(server.child.pid!) - before) * 1e6) / result.requests, p99: result.p99Ms };
  };
  for (const stream of STREAMS) for (const server of servers) measure(server, stream, WARMUP_SECONDS, true);
  const runs = new Map<string, { us: number; p99: number }[]>();
  for (let round = 0; round < ROUNDS; round++) {
    for (const stream of STREAMS) {
      for (const server of round % 2 === 0 ? servers : [...servers].reverse()) {
        const key = `${server.label}\u0000${stream}`;
        runs.set(key, [...(runs.get(key) ?? []), measure(server, stream, SECONDS)]);
      }
    }
  }

  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  console.log(`\n${SONGS.toLocaleString('en')} songs, ${ROUNDS} rounds of ${SECONDS} s per stream and server, after ${WARMUP_SECONDS} s of warm-up each`);
  console.log(`\n| stream | this tree: CPU us/request (median) | ${other} | runs, this tree | runs, ${other} | p99 ms, this tree / ${other} |`);
  console.log('|---|---:|---:|---|---|---|');
  for (const stream of STREAMS) {
    const [mine, theirs] = servers.map((server) => runs.get(`${server.label}\u0000${stream}`)!);
    const list = (xs: { us: number }[]) => xs.map((x) => x.us.toFixed(0)).join(' ');
    console.log(`| ${stream} | ${median(mine!.map((x) => x.us)).toFixed(0)} | ${median(theirs!.map((x) => x.us)).toFixed(0)} | ${list(mine!)} | ${list(theirs!)} | ${median(mine!.map((x) => x.p99)).toFixed(1)} / ${median(theirs!.map((x) => x.p99)).toFixed(1)} |`);
  }
  console.log(`\nRSS MB: this tree ${memoryOf(servers[0]!.child.pid!).rssMb}, ${other} ${memoryOf(servers[1]!.child.pid!).rssMb}`);
} finally {
  for (const server of servers) await stop(server.child);
  rmSync(otherRoot, { recursive: true, force: true });
}
