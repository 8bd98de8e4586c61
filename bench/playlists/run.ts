// bench/playlists: PlaylistService under load (issue 40's targets), on SQLite
// and on PostgreSQL when it answers.
//
// A demo catalog of BENCH_SONGS songs (50,000 by default), and, filled
// through the API before the runs:
// - 32 users each with a playlist of 10,000 entries (songs spread over the
//   catalog), one a connection for the writes: a user's writes take turns,
//   so 32 connections on one playlist would measure a queue of 32;
// - 200 users each with a playlist of 100 entries.
// Runs:
// - GetPlaylistItems: every page of 100 of one 10,000-entry playlist, each
//   connection following its tokens (target p99 < 10 ms);
// - AddPlaylistItems of 100 just before an entry in the middle, then
//   RemovePlaylistItems of those 100, alternating on each connection, so the
//   playlists keep their size (wrk times both kinds together: target p99 < 20 ms);
// - MovePlaylistItems of 100 entries to the middle (target p99 < 20 ms);
// - 200 users at once, each adding a song to the middle of their own playlist
//   and removing it: writes/s and p99;
// - the three targeted operations again on one connection: their own
//   latency, with no queue of other requests before each.
// The peer in the same run: BatchGetSongs of each page's 100 songs in turn,
// the catalog's own answer of the same rendered songs without the playlist's
// queries. The server holds up to 11,000 entries a playlist: a run (the
// warm-up too) may end between an add and its removal, leaving 100 more.
//
// Server pinned to core 0, wrk to core 1 (one thread, or a thread a
// connection where each keeps its own state); server CPU microseconds a
// request from /proc over the run.
//
// Beside each run, the bare node:http server at its pace (bench/lib/load.ts bareServerLike): spinning for
// the run's CPU a request, answering as many bytes to as many connections. Its p99 is what the run's would
// be if nothing but that CPU made the latency: the floor under a latency target at this load.
//
//   npm run bench:playlists          (BENCH_SONGS, BENCH_SECONDS, BENCH_WARMUP, BENCH_DIALECTS=sqlite,postgres,
//                                     BENCH_ONLY=<regular expression>: the runs whose names match, and the peer)
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { openStorage } from '@maqam/server';
import { analyzeTables } from '../../packages/server/src/storage/storage.ts';
import { callerOf, eightAtOnce, seededDatabase, userTokens } from '../lib/fill.ts';
import { bareServerLike, cpuSeconds, scaleOut, memoryOf, startPinned, stop, waitReady, wrk } from '../lib/load.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const HERE = import.meta.dirname;
const LIBRARY = join(ROOT, 'bench/library');
const DATA = join(ROOT, 'bench/.data');
const RESULTS = join(ROOT, 'bench/results');
const BIN = join(ROOT, 'packages/cli/bin/maqam.js');
const SONGS = Number(process.env.BENCH_SONGS ?? 50_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP ?? 3);
const DIALECTS = (process.env.BENCH_DIALECTS ?? 'sqlite,postgres').split(',');
const ONLY = new RegExp(process.env.BENCH_ONLY ?? '', 'i');
const CONNECTIONS = 32;
const ENTRIES = 10_000;
const EDITORS = 200;
const EDITOR_ENTRIES = 100;

mkdirSync(DATA, { recursive: true });
mkdirSync(RESULTS, { recursive: true });

interface Row { dialect: string; run: string; requestsPerSecond: number; p50Ms: number; p99Ms: number; cpuUs: number; rssMb: number; errors: number; target: string; bareP99Ms: number; bareCpuUs: number; bareErrors: number }
const rows: Row[] = [];

for (const dialect of DIALECTS) {
  const env = { ...process.env, LOG_LEVEL: 'warn', MAQAM_RATE_LIMIT: '0', MAQAM_PLAYLIST_MAX_ITEMS: String(ENTRIES + 1000), ...scaleOut(dialect) };
  const url = await seededDatabase(dialect, 'playlists', SONGS, DATA, BIN, env);
  if (url === undefined) {
    console.log('PostgreSQL does not answer: its runs are skipped');
    continue;
  }
  const users = await userTokens(url);
  const newUser = users.newUser;
  const owners: string[] = [];
  for (let i = 0; i < CONNECTIONS; i++) owners.push(await newUser(`owner-${i}`));
  const editors: string[] = [];
  for (let i = 0; i < EDITORS; i++) editors.push(await newUser(`editor-${i}`));
  await users.close();

  const port = 19_000 + Math.floor(Math.random() * 1000);
  const base = `http://127.0.0.1:${port}`;
  const server = startPinned([BIN, 'serve'], { ...env, DATABASE_URL: url, PORT: String(port) });
  await waitReady(server, () => fetch(`${base}/readyz`));

  const call = callerOf(base);
  const song = (n: number) => `song-${1 + (n % SONGS)}`;
  type Item = { itemId: string; song?: { id: { value: string } } };
  async function allItems(token: string, id: string): Promise<Item[]> {
    const items: Item[] = [];
    for (let pageToken = ''; ;) {
      const page = await call(token, 'GET', `/v1/playlists/${id}/items?page_size=100${pageToken ? `&page_token=${pageToken}` : ''}`);
      items.push(...(page.items as Item[]));
      pageToken = page.nextPageToken as string;
      if (!pageToken) return items;
    }
  }

  // 32 playlists of 10,000 entries, each of 10,000 songs spread over the catalog.
  const playlists = await Promise.all(owners.map(async (token, i) => ((await call(token, 'POST', '/v1/playlists', { name: `big ${i}` })).playlist as { id: { value: string } }).id.value));
  const fillSeconds = await eightAtOnce(CONNECTIONS * (ENTRIES / 100), async (n) => {
    const owner = n % CONNECTIONS;
    const batch = Math.floor(n / CONNECTIONS);
    await call(owners[owner]!, 'POST', `/v1/playlists/${playlists[owner]}/items:batchAdd`, {
      songIdList: Array.from({ length: 100 }, (_, k) => ({ value: song((owner * 7919 + batch * 100 + k) * 13) })),
    });
  });
  const editorPlaylists = await Promise.all(editors.map(async (token, i) => ((await call(token, 'POST', '/v1/playlists', {
    name: `small ${i}`, songIdList: Array.from({ length: EDITOR_ENTRIES }, (_, k) => ({ value: song(i * 101 + k) })),
  })).playlist as { id: { value: string } }).id.value));
  if (dialect === 'postgres') {
    const analyzed = openStorage(url);
    await analyzeTables(analyzed, ['playlists', 'playlist_items', 'library_counters', 'library_changes', 'users']);
    await analyzed.close();
  }
  console.log(`filled: ${CONNECTIONS} playlists of ${ENTRIES.toLocaleString('en')} entries in ${fillSeconds.toFixed(1)} s (100 a request, 8 at once), ${EDITORS} of ${EDITOR_ENTRIES}`);

  const files = join(DATA, `playlists-${dialect}`);
  mkdirSync(files, { recursive: true });
  const addLines: string[] = [];
  const moveLines: string[] = [];
  for (let i = 0; i < CONNECTIONS; i++) {
    const items = await allItems(owners[i]!, playlists[i]!);
    const middle = items[ENTRIES / 2]!.itemId;
    addLines.push([owners[i], playlists[i], middle, ...Array.from({ length: 100 }, (_, k) => song(i * 31 + k * 3))].join(' '));
    // The 100 entries moved: from a quarter in, to just before the entry three quarters in.
    moveLines.push([owners[i], playlists[i], items[(3 * ENTRIES) / 4]!.itemId, ...items.slice(ENTRIES / 4, ENTRIES / 4 + 100).map((item) => item.itemId)].join(' '));
  }
  const editorLines: string[] = [];
  for (let i = 0; i < EDITORS; i++) {
    const items = await allItems(editors[i]!, editorPlaylists[i]!);
    editorLines.push([editors[i], editorPlaylists[i], items[EDITOR_ENTRIES / 2]!.itemId, song(i * 997)].join(' '));
  }
  writeFileSync(join(files, 'add.txt'), addLines.join('\n') + '\n');
  writeFileSync(join(files, 'move.txt'), moveLines.join('\n') + '\n');
  writeFileSync(join(files, 'editors.txt'), editorLines.join('\n') + '\n');
  const firstItems = await allItems(owners[0]!, playlists[0]!);
  const pageBodies: string[] = [];
  for (let at = 0; at < firstItems.length; at += 100) pageBodies.push(JSON.stringify({ songIdList: firstItems.slice(at, at + 100).map((item) => ({ value: item.song!.id.value })) }));
  writeFileSync(join(files, 'peer.txt'), pageBodies.join('\n') + '\n');

  const runs: { run: string; script: string; connections: number; threads?: number; env: Record<string, string>; target: string }[] = [
    // The peer: 100 of the playlist's songs rendered from the same cache by the catalog, without a playlist's query.
    { run: 'peer: BatchGetSongs of each page\'s 100 songs', script: join(HERE, 'peer.lua'), connections: CONNECTIONS, env: { BODIES_FILE: join(files, 'peer.txt'), TOKEN: owners[0]! }, target: '(a peer)' },
    { run: 'GetPlaylistItems, every page of 100 of 10,000 entries', script: join(LIBRARY, 'pages.lua'), connections: CONNECTIONS, env: { PATH_AND_QUERY: `/v1/playlists/${playlists[0]}/items?page_size=100`, TOKEN: owners[0]! }, target: 'p99 < 10 ms' },
    { run: 'AddPlaylistItems of 100 in the middle, then RemovePlaylistItems of them (alternating)', script: join(HERE, 'edit-pairs.lua'), connections: CONNECTIONS, threads: CONNECTIONS, env: { SETUP_FILE: join(files, 'add.txt'), COUNT: '100' }, target: 'p99 < 20 ms' },
    { run: 'MovePlaylistItems of 100 to the middle', script: join(HERE, 'move.lua'), connections: CONNECTIONS, threads: CONNECTIONS, env: { SETUP_FILE: join(files, 'move.txt') }, target: 'p99 < 20 ms' },
    // One connection: each operation's own latency, with no queue of other requests before it.
    { run: 'GetPlaylistItems, every page of 100 (one connection)', script: join(LIBRARY, 'pages.lua'), connections: 1, env: { PATH_AND_QUERY: `/v1/playlists/${playlists[0]}/items?page_size=100`, TOKEN: owners[0]! }, target: 'p99 < 10 ms' },
    { run: 'AddPlaylistItems of 100 in the middle, then RemovePlaylistItems (one connection)', script: join(HERE, 'edit-pairs.lua'), connections: 1, threads: 1, env: { SETUP_FILE: join(files, 'add.txt'), COUNT: '100' }, target: 'p99 < 20 ms' },
    { run: 'MovePlaylistItems of 100 to the middle (one connection)', script: join(HERE, 'move.lua'), connections: 1, threads: 1, env: { SETUP_FILE: join(files, 'move.txt') }, target: 'p99 < 20 ms' },
    { run: `${EDITORS} users each adding a song to their own playlist and removing it`, script: join(HERE, 'edit-pairs.lua'), connections: EDITORS, threads: EDITORS, env: { SETUP_FILE: join(files, 'editors.txt'), COUNT: '1' }, target: 'writes/s, p99' },
  ];
  for (const { run, script, connections, threads, env: scriptEnv, target } of runs.filter(({ run }) => run.startsWith('peer') || ONLY.test(run))) {
    const go = (seconds: number) => wrk({ url: `${base}/`, script, seconds, connections, ...(threads && { threads }), timeoutSeconds: 5, env: scriptEnv });
    go(WARMUP_SECONDS);
    const cpuBefore = cpuSeconds(server.pid!);
    const result = go(SECONDS);
    const cpuUs = ((cpuSeconds(server.pid!) - cpuBefore) * 1e6) / result.requests;
    const bare = await bareServerLike(result, cpuUs, connections, SECONDS, 5);
    rows.push({ dialect, run, requestsPerSecond: result.requestsPerSecond, p50Ms: result.p50Ms, p99Ms: result.p99Ms, cpuUs, rssMb: memoryOf(server.pid!).rssMb, errors: result.errors, target, bareP99Ms: bare.p99Ms, bareCpuUs: bare.cpuUs, bareErrors: bare.errors });
    console.log(`  ${run}: ${Math.round(result.requestsPerSecond)}/s, p50 ${result.p50Ms.toFixed(2)} ms, p99 ${result.p99Ms.toFixed(2)} ms, ${Math.round(cpuUs)} us CPU a request, ${result.errors} errors; the bare server at that cost: p99 ${bare.p99Ms.toFixed(2)} ms (${Math.round(bare.cpuUs)} us, ${bare.errors} errors)`);
  }
  // The playlists are whole after the runs: each holds its 10,000 entries, and 100 more for each wrk that ended
  // between an add and its removal (the add runs of 32 connections and of one each run wrk twice, warm-up and
  // measure, on the first playlist: four at most).
  for (let i = 0; i < CONNECTIONS; i++) {
    const items = await allItems(owners[i]!, playlists[i]!);
    const extra = items.length - ENTRIES;
    if (extra < 0 || extra > 400 || extra % 100 !== 0) throw new Error(`playlist ${i} holds ${items.length} entries after the runs`);
  }
  await stop(server);
}

console.log(`\n${SECONDS} s a run after ${WARMUP_SECONDS} s of warm-up, ${SONGS.toLocaleString('en')}-song catalog\n`);
console.log('| dialect | run | requests/s | p50 | p99 | target | server CPU us/request | RSS | errors | bare server at that CPU: p99 |');
console.log('|---|---|---:|---:|---:|---|---:|---:|---:|---:|');
for (const row of rows) {
  console.log(`| ${row.dialect} | ${row.run} | ${Math.round(row.requestsPerSecond).toLocaleString('en')} | ${row.p50Ms.toFixed(2)} ms | ${row.p99Ms.toFixed(2)} ms | ${row.target} | ${Math.round(row.cpuUs)} | ${row.rssMb} MB | ${row.errors} | ${row.bareP99Ms.toFixed(2)} ms (${row.bareErrors} errors) |`);
}
writeFileSync(join(RESULTS, `playlists-${new Date().toISOString().replace(/[:.]/g, '-')}.json`), JSON.stringify(rows, null, 2));
