// bench/library: LibraryService under load (issue 39's targets), on SQLite and
// on PostgreSQL when it answers.
//
// A demo catalog of BENCH_SONGS songs (50,000 by default: a library's queries
// read the user's own rows; the catalog is read by primary key), and four
// kinds of user, filled through the API before the runs:
// - a listener with 10,000 liked songs: every page of GetSavedItems (20, the
//   default, and 50 a page; each connection walks the pages by their tokens),
//   and CheckSavedItems of 100 ids (half of them saved);
// - 1,000 listeners reporting 50 plays a request, in turn: reports/s, p99;
// - a listener with 100,000 counted plays (of songs drawn over the whole
//   catalog, so a page's songs often miss the fragment cache): every page of
//   GetHistory, 20 and 50 a page;
// - a listener with 100,000 changes: GetLibraryChanges pages of 500 from
//   cursors spread over the feed.
//
// Server pinned to core 0, wrk (one thread, 32 connections) to core 1;
// server CPU microseconds a request from /proc over the run. The peer in
// the same run: GetArtistTopTracks of 20 songs, the catalog's own list of
// the same rendered songs, without the library's query or page token.
//
// Beside each run, the bare node:http server at its pace (bench/lib/load.ts bareServerLike): spinning for
// the run's CPU a request, answering as many bytes to as many connections. Its p99 is what the run's would
// be if nothing but that CPU made the latency: the floor under a latency target at this load.
//
//   npm run bench:library            (BENCH_SONGS, BENCH_SECONDS, BENCH_WARMUP, BENCH_DIALECTS=sqlite,postgres,
//                                     BENCH_ONLY=<regular expression>: the runs whose names match, and the peer)
//
// Given commits, it compares two builds by bench/lib/compare.ts instead, on the same filled database: A (the
// first commit), A again (a second server of it) and B (the second commit, or this tree), three servers pinned to
// core 0 and loaded in turn, BENCH_ROUNDS (6) rounds of each run BENCH_ONLY selects (the peer only if it matches);
// the verdict is the median of the per-round ratios of server CPU a request, beside the A again / A band.
//
//   BENCH_DIALECTS=sqlite BENCH_ONLY='CheckSavedItems, 100 ids$' npm run bench:library -- HEAD~1 HEAD
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { openStorage } from '@maqam/server';
import type { ChildProcess } from 'node:child_process';
import { analyzeTables } from '../../packages/server/src/storage/storage.ts';
import { alternate, printComparison, treeAt, type Side } from '../lib/compare.ts';
import { callerOf, eightAtOnce, seededDatabase, userTokens } from '../lib/fill.ts';
import { bareServerLike, cpuSeconds, loadedServerSide, scaleOut, memoryOf, startPinned, stop, waitReady, wrk } from '../lib/load.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const HERE = import.meta.dirname;
const DATA = join(ROOT, 'bench/.data');
const RESULTS = join(ROOT, 'bench/results');
const BIN = join(ROOT, 'packages/cli/bin/maqam.js');
const SONGS = Number(process.env.BENCH_SONGS ?? 50_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP ?? 3);
const DIALECTS = (process.env.BENCH_DIALECTS ?? 'sqlite,postgres').split(',');
const ONLY = new RegExp(process.env.BENCH_ONLY ?? '', 'i');
const CONNECTIONS = 32;
const REPORTERS = 1000;
const LIKED = 10_000;
const PLAYS = 100_000;
const CHANGES = 100_000;
/** Compare mode: A's commit, and B's (this tree when there is none). */
const [COMPARE_A, COMPARE_B] = process.argv.slice(2);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);

mkdirSync(DATA, { recursive: true });
mkdirSync(RESULTS, { recursive: true });

interface Row { dialect: string; run: string; requestsPerSecond: number; p50Ms: number; p99Ms: number; cpuUs: number; rssMb: number; errors: number; target: string; bareP99Ms: number; bareCpuUs: number }
const rows: Row[] = [];

for (const dialect of DIALECTS) {
  const url = await seededDatabase(dialect, 'library', SONGS, DATA, BIN);
  if (url === undefined) {
    console.log('PostgreSQL does not answer: its runs are skipped');
    continue;
  }
  const env = { ...process.env, DATABASE_URL: url, LOG_LEVEL: 'warn', MAQAM_RATE_LIMIT: '0', ...scaleOut(dialect) };
  const users = await userTokens(url);
  const newUser = users.newUser;
  const liker = await newUser('liker');
  const historian = await newUser('historian');
  const changer = await newUser('changer');
  const reporters: string[] = [];
  for (let i = 0; i < REPORTERS; i++) reporters.push(await newUser(`reporter-${i}`));
  await users.close();

  const keyMade = spawnSync(process.execPath, [BIN, 'keys', 'create', '--name', 'bench', '--json'], { env, encoding: 'utf8' });
  if (keyMade.status !== 0) throw new Error(keyMade.stderr);
  const apiKey = JSON.parse(keyMade.stdout).key as string;
  const port = 19_000 + Math.floor(Math.random() * 1000);
  const base = `http://127.0.0.1:${port}`;
  const server = startPinned([BIN, 'serve'], { ...env, PORT: String(port) });
  await waitReady(server, () => fetch(`${base}/readyz`));

  const call = callerOf(base);
  const ids = (from: number, count: number) => Array.from({ length: count }, (_, i) => ({ value: `song-${from + i}` }));

  const likeSeconds = await eightAtOnce(LIKED / 100, (i) => call(liker, 'POST', '/v1/library/saved:batchAdd', { songIdList: ids(1 + i * 100, 100) }));
  const playsStartedAt = new Date(Date.now() - 3_600_000).toISOString();
  const historySeconds = await eightAtOnce(PLAYS / 50, (i) => call(historian, 'POST', '/v1/library/history:report', {
    plays: Array.from({ length: 50 }, (_, n) => ({ playId: `h-${i}-${n}`, songId: { value: `song-${1 + ((i * 50 + n) % SONGS)}` }, startedAt: playsStartedAt, msPlayed: 45_000 })),
  }));
  const start = (await call(changer, 'GET', '/v1/library/changes')).nextCursor as string;
  // One writer: a user's changes take turns anyway.
  let changesSeconds = performance.now();
  for (let i = 0; i < CHANGES / 100; i++) await call(changer, 'POST', i % 2 === 0 ? '/v1/library/saved:batchAdd' : '/v1/library/saved:batchRemove', { songIdList: ids(1, 100) });
  changesSeconds = (performance.now() - changesSeconds) / 1000;
  const cursors: string[] = [];
  for (let cursor = start; ;) {
    const page = await call(changer, 'GET', `/v1/library/changes?cursor=${cursor}`);
    if ((page.changes as unknown[]).length === 0) break;
    cursors.push(cursor);
    cursor = page.nextCursor as string;
  }
  // PostgreSQL's planner needs statistics of the tables just filled (CI's server runs without autovacuum:
  // bench/README.md, "Setup"); SQLite's plans do not depend on them.
  if (dialect === 'postgres') {
    const analyzed = openStorage(url);
    await analyzeTables(analyzed, ['library_items', 'library_changes', 'play_history', 'users']);
    await analyzed.close();
  }
  console.log(`filled: ${LIKED.toLocaleString('en')} likes in ${likeSeconds.toFixed(1)} s (100 a request, 8 at once), ` +
    `${PLAYS.toLocaleString('en')} plays in ${historySeconds.toFixed(1)} s (50 a request, 8 at once), ` +
    `${CHANGES.toLocaleString('en')} changes in ${changesSeconds.toFixed(1)} s (100 a request, one at a time); ${cursors.length} cursors of 500`);

  const files = join(DATA, `library-${dialect}`);
  mkdirSync(files, { recursive: true });
  writeFileSync(join(files, 'tokens.txt'), reporters.join('\n') + '\n');
  writeFileSync(join(files, 'cursors.txt'), cursors.join('\n') + '\n');
  writeFileSync(join(files, 'check.json'), JSON.stringify({ songIdList: ids(LIKED - 49, 100) }));

  const runs: { run: string; script: string; connections?: number; env: Record<string, string>; target: string }[] = [
    // The peer: 20 songs rendered from the same cache by a catalog list, without a library query or a page token.
    { run: 'peer: GetArtistTopTracks, 20 songs (API key)', script: 'peer.lua', env: { API_KEY: apiKey, COUNT: '200' }, target: '(a peer)' },
    { run: 'GetSavedItems, every page (20, the default, of 10,000 likes)', script: 'pages.lua', env: { PATH_AND_QUERY: '/v1/library/saved?types=song', TOKEN: liker }, target: 'p99 < 10 ms' },
    { run: 'GetSavedItems, every page (50 of 10,000 likes)', script: 'pages.lua', env: { PATH_AND_QUERY: '/v1/library/saved?types=song&page_size=50', TOKEN: liker }, target: 'p99 < 10 ms' },
    { run: 'CheckSavedItems, 100 ids', script: 'post.lua', env: { POST_PATH: '/v1/library/saved:check', BODY_FILE: join(files, 'check.json'), TOKEN: liker }, target: 'p99 < 5 ms' },
    { run: 'ReportPlays, 50 plays, 1,000 users in turn', script: 'report.lua', env: { TOKENS_FILE: join(files, 'tokens.txt'), STARTED_AT: playsStartedAt, SONGS: String(SONGS) }, target: 'reports/s, p99' },
    { run: 'GetHistory, every page (20, the default, of 100,000 plays)', script: 'pages.lua', env: { PATH_AND_QUERY: '/v1/library/history', TOKEN: historian }, target: 'p99 < 10 ms' },
    { run: 'GetHistory, every page (50 of 100,000 plays)', script: 'pages.lua', env: { PATH_AND_QUERY: '/v1/library/history?page_size=50', TOKEN: historian }, target: 'p99 < 10 ms' },
    { run: 'GetLibraryChanges, 500 of 100,000 changes', script: 'changes.lua', env: { CURSORS_FILE: join(files, 'cursors.txt'), TOKEN: changer }, target: 'p99 < 20 ms' },
    // One connection: each operation's own latency, with no queue of other requests before it.
    { run: 'GetSavedItems, every page (20 of 10,000 likes; one connection)', script: 'pages.lua', connections: 1, env: { PATH_AND_QUERY: '/v1/library/saved?types=song', TOKEN: liker }, target: 'p99 < 10 ms' },
    { run: 'CheckSavedItems, 100 ids (one connection)', script: 'post.lua', connections: 1, env: { POST_PATH: '/v1/library/saved:check', BODY_FILE: join(files, 'check.json'), TOKEN: liker }, target: 'p99 < 5 ms' },
    { run: 'GetHistory, every page (20 of 100,000 plays; one connection)', script: 'pages.lua', connections: 1, env: { PATH_AND_QUERY: '/v1/library/history', TOKEN: historian }, target: 'p99 < 10 ms' },
    { run: 'GetLibraryChanges, 500 of 100,000 changes (one connection)', script: 'changes.lua', connections: 1, env: { CURSORS_FILE: join(files, 'cursors.txt'), TOKEN: changer }, target: 'p99 < 20 ms' },
  ];
  if (COMPARE_A !== undefined) {
    await stop(server);
    await compareBuilds(runs.filter(({ run }) => ONLY.test(run)), env);
    continue;
  }
  for (const { run, script, connections = CONNECTIONS, env: scriptEnv, target } of runs.filter(({ run }) => run.startsWith('peer') || ONLY.test(run))) {
    const go = (seconds: number) => wrk({ url: `${base}/`, script: join(HERE, script), seconds, connections, env: scriptEnv });
    go(WARMUP_SECONDS);
    const cpuBefore = cpuSeconds(server.pid!);
    const result = go(SECONDS);
    const cpuUs = ((cpuSeconds(server.pid!) - cpuBefore) * 1e6) / result.requests;
    const bare = await bareServerLike(result, cpuUs, connections, SECONDS);
    rows.push({ dialect, run, requestsPerSecond: result.requestsPerSecond, p50Ms: result.p50Ms, p99Ms: result.p99Ms, cpuUs, rssMb: memoryOf(server.pid!).rssMb, errors: result.errors, target, bareP99Ms: bare.p99Ms, bareCpuUs: bare.cpuUs });
    console.log(`  ${run}: ${Math.round(result.requestsPerSecond)}/s, p50 ${result.p50Ms.toFixed(2)} ms, p99 ${result.p99Ms.toFixed(2)} ms, ${Math.round(cpuUs)} us CPU a request, ${result.errors} errors; the bare server at that cost: p99 ${bare.p99Ms.toFixed(2)} ms (${Math.round(bare.cpuUs)} us)`);
  }
  await stop(server);
}

/**
 * The runs on three servers of the filled database, by bench/lib/compare.ts: A (COMPARE_A's tree), A again and B
 * (COMPARE_B's tree, or this one), each a side whose measure is one wrk run and the server's CPU over it.
 */
async function compareBuilds(selected: { run: string; script: string; connections?: number; env: Record<string, string> }[], env: NodeJS.ProcessEnv): Promise<void> {
  const trees = [treeAt(ROOT, COMPARE_A!), ...(COMPARE_B === undefined ? [] : [treeAt(ROOT, COMPARE_B)])];
  const children: ChildProcess[] = [];
  const serverSide = async (label: string, root: string): Promise<Side> => {
    const port = 19_000 + Math.floor(Math.random() * 1000);
    const child = startPinned([join(root, 'packages/cli/bin/maqam.js'), 'serve'], { ...env, PORT: String(port) });
    children.push(child);
    await waitReady(child, () => fetch(`http://127.0.0.1:${port}/readyz`));
    const load = (run: string, seconds: number) => {
      const { script, connections = CONNECTIONS, env: scriptEnv } = selected.find((candidate) => candidate.run === run)!;
      return wrk({ url: `http://127.0.0.1:${port}/`, script: join(HERE, script), seconds, connections, env: scriptEnv });
    };
    return loadedServerSide(label, child.pid!, load, { warmUp: WARMUP_SECONDS, measured: SECONDS });
  };
  try {
    const a = await serverSide(COMPARE_A!, trees[0]!.root);
    const aAgain = await serverSide(COMPARE_A!, trees[0]!.root);
    const b = await serverSide(COMPARE_B ?? 'this tree', trees[1]?.root ?? ROOT);
    console.log(`${ROUNDS} rounds of ${SECONDS} s a run and server, after ${WARMUP_SECONDS} s of warm-up each`);
    const comparison = await alternate({ a, aAgain, b, subjects: selected.map(({ run }) => run), rounds: ROUNDS });
    printComparison(comparison, [{ key: 'cpuUs', label: 'server CPU us/request' }, { key: 'p99Ms', label: 'p99 ms', digits: 2 }], `B: ${b.label} against A: ${a.label}`);
  } finally {
    for (const child of children) await stop(child);
    for (const tree of trees) tree.remove();
  }
}

if (COMPARE_A !== undefined) process.exit(0);
console.log(`\n${CONNECTIONS} connections unless told, ${SECONDS} s a run after ${WARMUP_SECONDS} s of warm-up, ${SONGS.toLocaleString('en')}-song catalog\n`);
console.log('| dialect | run | requests/s | p50 | p99 | target | server CPU us/request | RSS | errors | bare server at that CPU: p99 |');
console.log('|---|---|---:|---:|---:|---|---:|---:|---:|---:|');
for (const row of rows) {
  console.log(`| ${row.dialect} | ${row.run} | ${Math.round(row.requestsPerSecond).toLocaleString('en')} | ${row.p50Ms.toFixed(2)} ms | ${row.p99Ms.toFixed(2)} ms | ${row.target} | ${Math.round(row.cpuUs)} | ${row.rssMb} MB | ${row.errors} | ${row.bareP99Ms.toFixed(2)} ms |`);
}
writeFileSync(join(RESULTS, `library-${new Date().toISOString().replace(/[:.]/g, '-')}.json`), JSON.stringify(rows, null, 2));
