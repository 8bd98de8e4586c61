// bench/catalog-pages: the album page (GetAlbum + GetAlbumTracks) and the
// artist page (GetArtist + GetArtistTopTracks + GetArtistDiscography) of a
// music app on the 1,000,000-song demo catalog (SQLite, the default).
//
// Server pinned to core 0, wrk (one thread, 32 connections) to core 1. Each
// page is measured twice: "hot" ids (1,000 albums or artists, so answers come
// from the fragment cache) and "uniform" ids over the whole catalog (mostly
// misses: rows read and rendered). Reported per run: requests/s, page
// views/s, p50/p99 per request, server CPU microseconds per request (from
// /proc over the run), RSS; and beside each run the bare node:http server
// (bench/lib/load.ts bareServerLike): its CPU answering as many bytes (the
// ceiling: x ceiling) and its p99 spinning for the run's CPU a request (the
// tail that CPU alone makes at this load). Also prints the query plan of
// every list query (explain.ts).
//
//   npm run bench:catalog-pages          (BENCH_SONGS, BENCH_SECONDS, BENCH_WARMUP)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { bareServerLike, cpuSeconds, memoryOf, startPinned, stop, waitReady, warmPageCache, wrk } from '../lib/load.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const HERE = import.meta.dirname;
const DATA = join(ROOT, 'bench/.data');
const BIN = join(ROOT, 'packages/cli/bin/maqam.js');
const SONGS = Number(process.env.BENCH_SONGS ?? 1_000_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 15);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP ?? 5);
const CONNECTIONS = 32;
const HOT = 1000;
const DB_FILE = join(DATA, `bench-${SONGS}.db`);
const env = { ...process.env, DATABASE_URL: `sqlite:${DB_FILE}`, LOG_LEVEL: 'warn', MAQAM_RATE_LIMIT: '0' };

function cli(args: string[]): string {
  const result = spawnSync(process.execPath, [BIN, ...args], { env, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`maqam ${args.join(' ')} failed:\n${result.stderr}`);
  return result.stdout;
}

mkdirSync(DATA, { recursive: true });
if (!existsSync(DB_FILE)) {
  console.log(`seeding ${SONGS.toLocaleString('en')} songs into ${DB_FILE} ...`);
  console.log(`seeded in ${JSON.parse(cli(['seed-demo', '--songs', String(SONGS), '--json'])).seconds} s`);
} else {
  // A catalog seeded by an older version gains the new tables here.
  const started = performance.now();
  const applied = cli(['migrate', '--json']);
  console.log(`migrated ${applied.trim()} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}
console.log(`database file read into the page cache in ${warmPageCache(DB_FILE).toFixed(1)} s`);
const apiKey: string = JSON.parse(cli(['keys', 'create', '--name', `bench-${Date.now()}`, '--json'])).key;
const sizes = { album: Math.round((SONGS * 5000) / 50_000), artist: Math.round((SONGS * 2000) / 50_000) };

const PORT = 19_000 + Math.floor(Math.random() * 1000);
const base = `http://127.0.0.1:${PORT}`;
const server = startPinned([BIN, 'serve'], { ...env, PORT: String(PORT) });
await waitReady(server, () => fetch(`${base}/v1/music/albums/album-1`, { headers: { 'x-api-key': apiKey } }));

const rows: string[] = [];
for (const page of ['album', 'artist'] as const) {
  for (const [label, count] of [['hot', HOT], ['uniform', sizes[page]]] as const) {
    const run = (seconds: number) =>
      wrk({ url: `${base}/`, script: join(HERE, 'pages.lua'), seconds, connections: CONNECTIONS, env: { PAGE: page, COUNT: String(count), API_KEY: apiKey } });
    run(WARMUP_SECONDS);
    const cpuBefore = cpuSeconds(server.pid!);
    const result = run(SECONDS);
    const cpuUs = ((cpuSeconds(server.pid!) - cpuBefore) * 1e6) / result.requests;
    const memory = memoryOf(server.pid!);
    const bare = await bareServerLike(result, cpuUs, CONNECTIONS, SECONDS);
    const perPage = page === 'album' ? 2 : 3;
    rows.push(
      `| ${page} | ${label} (${count.toLocaleString('en')}) | ${Math.round(result.requestsPerSecond).toLocaleString('en')} | ` +
        `${Math.round(result.requestsPerSecond / perPage).toLocaleString('en')} | ${result.p50Ms.toFixed(2)} ms | ${result.p99Ms.toFixed(2)} ms | ` +
        `${Math.round(cpuUs)} | ${(cpuUs / bare.ceilingUs).toFixed(1)} | ${bare.p99Ms.toFixed(2)} ms | ${memory.rssMb} MB (${memory.rssAnonMb} MB) | ${result.errors} |`,
    );
    console.log(rows.at(-1));
  }
}
console.log(`\n${SONGS.toLocaleString('en')} songs (${sizes.album.toLocaleString('en')} albums, ${sizes.artist.toLocaleString('en')} artists), ${CONNECTIONS} connections, ${SECONDS} s a run after ${WARMUP_SECONDS} s warm-up\n`);
console.log('| page | ids | requests/s | page views/s | p50 | p99 | CPU us/request | x ceiling | bare server at that CPU: p99 | RSS (anon) | errors |');
console.log('|---|---|---:|---:|---:|---:|---:|---:|---:|---|---:|');
for (const row of rows) console.log(row);
await stop(server);

console.log('\nQuery plans of the list queries (SQLite):\n');
const explained = spawnSync(process.execPath, [join(HERE, 'explain.ts')], { env, encoding: 'utf8', stdio: ['ignore', 'inherit', 'inherit'] });
if (explained.status !== 0) process.exitCode = 1;
