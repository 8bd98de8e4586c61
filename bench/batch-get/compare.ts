// bench/batch-get/compare.ts: BatchGetSongs CPU per request of this tree, or a second commit, (B) against another commit (A),
// by bench/lib/compare.ts: three servers up at once, all pinned to core 0 and loaded in turn by wrk on
// core 1 (A, A again: a second server of the same commit, B), the order turned each round; the verdict
// is the median of the per-round ratios B / A, beside the A again / A ratios as the noise band.
//
//   npm run bench:batch-get                                   # once: seeds bench/.data and writes the streams
//   npm run bench:batch-get:compare -- HEAD~1                 # this tree against HEAD~1
//   npm run bench:batch-get:compare -- HEAD~1 HEAD            # HEAD against HEAD~1 (neither with this tree's uncommitted edits)
//   BENCH_STREAMS=hits BENCH_ROUNDS=6 BENCH_SECONDS=6 npm run bench:batch-get:compare -- 45c8d2d
//   BENCH_THIS_ENV="MAQAM_SONG_CACHE_MB=96" npm run bench:batch-get:compare   # a setting against none, this tree both sides
//   BENCH_OTHER_DATABASE=bench/.data/bench-1000000-e803b81.db npm run bench:batch-get:compare -- e803b81
//
// BENCH_OTHER_DATABASE gives the other commit a copy of the catalog of its own: needed when the two trees
// store data in different formats (this tree rebuilds what it finds in another one when it starts), or when
// the other commit does not know this tree's migrations. Copy the file while the other commit's tree made it.
import { spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { alternate, printComparison, treeAt, type Side } from '../lib/compare.ts';
import { loadedServerSide, memoryOf, startPinned, stop, waitReady, waitSongSnapshot, warmPageCache, wrk } from '../lib/load.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const DATA = join(ROOT, 'bench/.data');
const SONGS = Number(process.env.BENCH_SONGS ?? 1_000_000);
const DB_FILE = join(DATA, `bench-${SONGS}.db`);
const STREAMS = (process.env.BENCH_STREAMS ?? 'hits,fresh-zipf,fresh-uniform').split(',');
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP ?? 8);
const other = process.argv[2];
/** B: another commit than this tree, when given. */
const bCommit = process.argv[3];
function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(2);
}
const thisEnv = Object.fromEntries((process.env.BENCH_THIS_ENV ?? '').split(' ').filter(Boolean).map((pair) => pair.split('=') as [string, string]));
if (!other && Object.keys(thisEnv).length === 0) fail('usage: npm run bench:batch-get:compare -- <commit>   (or BENCH_THIS_ENV="NAME=value" alone: this tree with the setting against without)');
for (const stream of STREAMS) {
  if (!existsSync(join(DATA, `${stream}-${SONGS}.txt`)) || !existsSync(DB_FILE)) fail('run npm run bench:batch-get once first: it seeds the catalog and writes the streams');
}

const otherTree = other ? treeAt(ROOT, other) : undefined;
const bTree = bCommit ? treeAt(ROOT, bCommit) : undefined;
const env = { ...process.env, DATABASE_URL: `sqlite:${DB_FILE}`, LOG_LEVEL: 'warn', MAQAM_RATE_LIMIT: '0', PATH: `${join(ROOT, 'node_modules/.bin')}:${process.env.PATH}` };
const otherEnv: Record<string, string> = otherTree && process.env.BENCH_OTHER_DATABASE ? { DATABASE_URL: `sqlite:${resolve(process.env.BENCH_OTHER_DATABASE)}` } : {};
/** A key made by a tree's own CLI in the database its server reads. */
function createKey(root: string, databaseEnv: Record<string, string>): string {
  const created = spawnSync(process.execPath, [join(root, 'packages/cli/bin/maqam.js'), 'keys', 'create', '--name', `compare-${Date.now()}`, '--json'], { env: { ...env, ...databaseEnv }, encoding: 'utf8' });
  if (created.status !== 0) fail(`could not create an API key: ${created.stderr}`);
  return JSON.parse(created.stdout).key;
}

// Every catalog read into the OS page cache first, as bench/batch-get/run.ts does: no run measures the disk.
for (const file of new Set([DB_FILE, ...(otherEnv.DATABASE_URL ? [otherEnv.DATABASE_URL.slice('sqlite:'.length)] : [])])) warmPageCache(file);

const children: ChildProcess[] = [];
/** A server of the tree at `root` with `extra` settings, as a side: wrk over a stream's bodies, its CPU over exactly that run. */
async function serverSide(label: string, root: string, extra: Record<string, string>): Promise<Side & { pid: number }> {
  const apiKey = createKey(root, extra.DATABASE_URL === undefined ? {} : { DATABASE_URL: extra.DATABASE_URL });
  const port = 18_000 + Math.floor(Math.random() * 1000);
  const base = `http://127.0.0.1:${port}`;
  const child = startPinned([join(root, 'packages/cli/bin/maqam.js'), 'serve'], { ...env, ...extra, PORT: String(port) });
  children.push(child);
  const body = JSON.stringify({ songIdList: [{ value: 'song-1' }] });
  await waitReady(child, () => fetch(`${base}/v1/music/songs:batchGet`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': apiKey }, body }));
  await waitSongSnapshot(base);
  const load = (stream: string, seconds: number) => wrk({
    url: `${base}/`, script: join(ROOT, 'bench/batch-get/requests.lua'), seconds, connections: 32,
    env: { BODIES_FILE: join(DATA, `${stream}-${SONGS}.txt`), API_KEY: apiKey },
  });
  return { ...loadedServerSide(label, child.pid!, load, { warmUp: WARMUP_SECONDS, measured: SECONDS }), pid: child.pid! };
}

try {
  const a = otherTree
    ? { label: other!, root: otherTree.root, extra: otherEnv }
    : { label: 'this tree', root: ROOT, extra: {} };
  const thisLabel = bCommit ?? 'this tree';
  const b = { label: Object.keys(thisEnv).length ? `${thisLabel}, ${process.env.BENCH_THIS_ENV}` : thisLabel, root: bTree?.root ?? ROOT, extra: thisEnv };
  const sides = {
    a: await serverSide(a.label, a.root, a.extra),
    aAgain: await serverSide(a.label, a.root, a.extra),
    b: await serverSide(b.label, b.root, b.extra),
  };
  console.log(`${SONGS.toLocaleString('en')} songs, ${ROUNDS} rounds of ${SECONDS} s per stream and server, after ${WARMUP_SECONDS} s of warm-up each`);
  const comparison = await alternate({ ...sides, subjects: STREAMS, rounds: ROUNDS });
  printComparison(comparison, [
    { key: 'cpuUs', label: 'server CPU us/request' },
    { key: 'p99Ms', label: 'p99 ms', digits: 1 },
  ], `BatchGetSongs, B: ${b.label} against A: ${a.label}`);
  console.log(`\nRSS MB: A ${memoryOf(sides.a.pid).rssMb}, A again ${memoryOf(sides.aAgain.pid).rssMb}, B ${memoryOf(sides.b.pid).rssMb}`);
} finally {
  for (const child of children) await stop(child);
  otherTree?.remove();
  bTree?.remove();
}
