// bench/video: the video catalog against the music catalog it was built beside (issue 53's targets), on SQLite
// and PostgreSQL, in one run each:
//
// 1. BatchGetMovies and BatchGetEpisodes of 100 ids against BatchGetSongs of 100 ids, on one server holding
//    100,000 songs (1,000 artists, 10,000 albums), 100,000 episodes (1,000 shows x 10 seasons x 10 episodes)
//    and 100,000 films (BENCH_MOVIES): the server's CPU a request from /proc/PID/stat over exactly the measured
//    load, 32 connections, the server on core 0 and wrk on core 1. Each operation draws its requests from
//    50,000 distinct bodies of 100 distinct ids, Zipf (s = 1) over a fixed random permutation of its kind's
//    ids (as bench:batch-get's "fresh zipf"), so the cache is not just replays. The operations alternate in
//    rounds by lib/compare.ts (A: songs, A again: songs once more, B: films and episodes; the order turns each
//    round), each measured run after a warm-up of its own: the runs before it filled the shared fragment cache
//    (64 MB on SQLite, 128 on PostgreSQL) with other kinds, and a kind's CPU a request falls for 10 to 16 s
//    after a switch, as its ids come back in (the cache admits an id at its second sight). Target: films and
//    episodes each within 1.2 x songs' CPU a request.
// 2. `maqam import FILE.ndjson` of 100,000 episodes with their shows and seasons against 100,000 songs with
//    their artists and albums (catalog.ts: files of the same shape and about the same bytes), one batch size
//    (BENCH_BATCH_SIZE, 40,000: the default), each into a new database, alternating as above: wall seconds a
//    1,000 records. Target: episodes within 1.2 x songs.
//
//   npm run bench:video                    # BENCH_SECONDS (8), BENCH_WARMUP (16, before every measured run), BENCH_ROUNDS (4)
//   BENCH_DIALECTS=sqlite BENCH_PARTS=batch-get BENCH_ROUNDS=3 npm run bench:video
//   BENCH_IMPORT_ROUNDS (2), BENCH_EPISODES (100,000: also the songs), BENCH_MOVIES (100,000), BENCH_BATCH_SIZE
//
// PostgreSQL runs in databases made for the run and dropped after it (maqam_bench_video, maqam_bench_video_import),
// with Redis (lib/load.ts scaleOut); its figures add the CPU of the server's PostgreSQL backends a request.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { seededRandom } from '@maqam/server';
import { alternate, median, printComparison, ratios, type Comparison, type Figures, type Side } from '../lib/compare.ts';
import { bareServerAt, cpuSeconds, memoryOf, scaleOut, startPinned, stop, waitReady, warmPageCache, wrk } from '../lib/load.ts';
import { freshPostgresDatabase } from '../lib/postgres.ts';
import { movieRecords, musicRecords, videoRecords, writeNdjson } from './catalog.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const HERE = import.meta.dirname;
const DATA = join(ROOT, 'bench/.data/video');
const RESULTS = join(ROOT, 'bench/results');
const BIN = join(ROOT, 'packages/cli/bin/maqam.js');
const EPISODES = Number(process.env.BENCH_EPISODES ?? 100_000);
const MOVIES = Number(process.env.BENCH_MOVIES ?? 100_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 16);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const IMPORT_ROUNDS = Number(process.env.BENCH_IMPORT_ROUNDS ?? 2);
const BATCH_SIZE = Number(process.env.BENCH_BATCH_SIZE ?? 40_000);
const DIALECTS = (process.env.BENCH_DIALECTS ?? 'sqlite,postgres').split(',');
const PARTS = (process.env.BENCH_PARTS ?? 'batch-get,import').split(',');
const ADMIN_URL = process.env.MAQAM_TEST_POSTGRES ?? 'postgres://postgres@127.0.0.1:5432/test';
const CONNECTIONS = 32;
const BODIES = 50_000;
const IDS = 100;
const TARGET = 1.2;
if (EPISODES % 100 !== 0) throw new Error('BENCH_EPISODES must be a multiple of 100');

mkdirSync(DATA, { recursive: true });
mkdirSync(RESULTS, { recursive: true });

// 1. The files: written each run (deterministic, a few seconds).
const files = { songs: join(DATA, 'songs.ndjson'), episodes: join(DATA, 'episodes.ndjson'), movies: join(DATA, 'movies.ndjson') };
const written = {
  songs: await writeNdjson(files.songs, musicRecords(EPISODES)),
  episodes: await writeNdjson(files.episodes, videoRecords(EPISODES)),
  movies: await writeNdjson(files.movies, movieRecords(MOVIES)),
};
for (const [name, w] of Object.entries(written)) {
  console.log(`${name}: ${w.records.toLocaleString('en')} records, ${(w.bytes / 1e6).toFixed(1)} MB (${Math.round(w.bytes / w.records)} bytes a record)`);
}
const sizeRatio = written.episodes.bytes / written.songs.bytes;
console.log(`episodes' file / songs' file: ${sizeRatio.toFixed(3)} in bytes, ${(written.episodes.records / written.songs.records).toFixed(3)} in records`);
if (Math.abs(sizeRatio - 1) > 0.1) throw new Error('the two import files differ by more than 10% in bytes');

// 2. Request bodies: 100 distinct ids each, Zipf (s = 1) over a fixed random permutation of the kind's ids.
interface Operation {
  name: string;
  route: string;
  member: string;
  count: number;
  idOf(index: number): string;
  bodies: string;
}
const operation = (name: string, route: string, member: string, count: number, idOf: (index: number) => string): Operation =>
  ({ name, route, member, count, idOf, bodies: join(DATA, `bodies-${member}-${count}.txt`) });
const OPS = {
  songs: operation('BatchGetSongs', '/v1/music/songs:batchGet', 'songIdList', EPISODES, (i) => `song-${i + 1}`),
  movies: operation('BatchGetMovies', '/v1/video/movies:batchGet', 'movieIdList', MOVIES, (i) => `movie-${i + 1}`),
  // Index i: show i / 100, season (i / 10) % 10, episode i % 10 (catalog.ts videoRecords).
  episodes: operation('BatchGetEpisodes', '/v1/video/episodes:batchGet', 'episodeIdList', EPISODES, (i) => `episode-${Math.floor(i / 100) + 1}-${(Math.floor(i / 10) % 10) + 1}-${(i % 10) + 1}`),
};

function writeZipfBodies(op: Operation, seed: number): number {
  const random = seededRandom(seed);
  const n = op.count;
  const permutation = Uint32Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(random.next() * (i + 1));
    [permutation[i], permutation[j]] = [permutation[j]!, permutation[i]!];
  }
  const cdf = new Float64Array(n);
  let harmonic = 0;
  for (let rank = 0; rank < n; rank++) cdf[rank] = harmonic += 1 / (rank + 1);
  const draw = () => {
    const target = random.next() * harmonic;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (cdf[mid]! < target) lo = mid + 1;
      else hi = mid;
    }
    return permutation[lo]!;
  };
  const lines: string[] = [];
  const seen = new Set<number>();
  for (let b = 0; b < BODIES; b++) {
    const ids = new Set<number>();
    while (ids.size < IDS) ids.add(draw());
    for (const id of ids) seen.add(id);
    lines.push(JSON.stringify({ [op.member]: [...ids].map((i) => ({ value: op.idOf(i) })) }));
  }
  writeFileSync(op.bodies, `${lines.join('\n')}\n`);
  return seen.size;
}
for (const [i, op] of Object.values(OPS).entries()) {
  console.log(`${op.name}: ${BODIES.toLocaleString('en')} bodies, ${writeZipfBodies(op, 42 + i).toLocaleString('en')} distinct ids of ${op.count.toLocaleString('en')}`);
}

// 3. Helpers.
function cli(args: string[], url: string): string {
  const result = spawnSync(process.execPath, [BIN, ...args], { env: { ...process.env, DATABASE_URL: url, LOG_LEVEL: 'warn' }, encoding: 'utf8', maxBuffer: 1 << 26 });
  if (result.status !== 0) throw new Error(`maqam ${args.join(' ')} failed:\n${result.stderr}`);
  return result.stdout;
}

async function dropDatabase(name: string): Promise<void> {
  const admin = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 2000 });
  try {
    await admin.connect();
    await admin.query(`drop database if exists ${name} with (force)`);
  } catch {} finally {
    await admin.end().catch(() => {});
  }
}

/** CPU seconds of the PostgreSQL backends connected to `database` (the server's pool), from /proc. */
async function backendSeconds(admin: pg.Client | undefined, database: string): Promise<number> {
  if (admin === undefined) return 0;
  const { rows } = await admin.query<{ pid: number }>('select pid from pg_stat_activity where datname = $1', [database]);
  let seconds = 0;
  for (const { pid } of rows) {
    try {
      seconds += cpuSeconds(pid);
    } catch {}
  }
  return seconds;
}

/** CPU seconds (user + system) of this process's children that have been waited for (cutime + cstime). */
function childrenCpuSeconds(): number {
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[13]) + Number(fields[14])) / 100;
}

/** A fresh database of the dialect: a new SQLite file, or `name` made again in PostgreSQL. */
async function freshDatabase(dialect: string, name: string): Promise<string | undefined> {
  if (dialect === 'postgres') return freshPostgresDatabase(name);
  const file = join(DATA, `${name}.db`);
  for (const suffix of ['', '-wal', '-shm']) rmSync(file + suffix, { force: true });
  return `sqlite:${file}`;
}

function removeDatabase(url: string): Promise<void> | void {
  if (url.startsWith('sqlite:')) for (const suffix of ['', '-wal', '-shm']) rmSync(url.slice('sqlite:'.length) + suffix, { force: true });
  else return dropDatabase(new URL(url).pathname.slice(1));
}

const summaryOf = (stdout: string) => JSON.parse(stdout) as Record<string, number>;
const results: Record<string, unknown> = { episodes: EPISODES, movies: MOVIES, seconds: SECONDS, warmup: WARMUP, rounds: ROUNDS, importRounds: IMPORT_ROUNDS, batchSize: BATCH_SIZE, files: written };
const report: string[] = [];
const rangeOf = (values: number[], digits = 2) => `${Math.min(...values).toFixed(digits)} to ${Math.max(...values).toFixed(digits)}`;

// 4. BatchGet: three operations on one server.
async function batchGets(dialect: string): Promise<void> {
  const name = 'maqam_bench_video';
  const url = await freshDatabase(dialect, name);
  if (url === undefined) {
    console.log(`\n${dialect}: PostgreSQL does not answer; skipped`);
    return;
  }
  const admin = dialect === 'postgres' ? new pg.Client({ connectionString: ADMIN_URL }) : undefined;
  let server: ReturnType<typeof startPinned> | undefined;
  try {
    console.log(`\n${dialect}: the catalog (${url.replace(/\/\/[^@]*@/, '//')})`);
    for (const [kind, file] of Object.entries(files)) {
      const started = performance.now();
      const summary = summaryOf(cli(['import', file, '--json', '--batch-size', String(BATCH_SIZE)], url));
      console.log(`  ${kind} imported in ${((performance.now() - started) / 1000).toFixed(1)} s: ${JSON.stringify(summary)}`);
    }
    const apiKey: string = JSON.parse(cli(['keys', 'create', '--name', `bench-video-${Date.now()}`, '--json'], url)).key;
    if (dialect === 'sqlite') console.log(`  database file read into the page cache in ${warmPageCache(url.slice('sqlite:'.length)).toFixed(1)} s`);
    await admin?.connect();

    const port = 18_000 + Math.floor(Math.random() * 1000);
    const base = `http://127.0.0.1:${port}`;
    server = startPinned([BIN, 'serve'], {
      ...process.env, ...scaleOut(dialect), DATABASE_URL: url, LOG_LEVEL: 'warn', MAQAM_RATE_LIMIT: '0', PORT: String(port),
      PATH: `${join(ROOT, 'node_modules/.bin')}:${process.env.PATH}`,
    });
    const firstBody = (op: Operation) => {
      const text = readFileSync(op.bodies, 'utf8');
      return text.slice(0, text.indexOf('\n'));
    };
    const post = (op: Operation) => fetch(`${base}${op.route}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': apiKey, 'accept-language': 'en' }, body: firstBody(op) });
    await waitReady(server, () => post(OPS.songs));
    // Every id of a body is in the catalog: 100 results, none an error.
    for (const op of Object.values(OPS)) {
      const answer = await (await post(op)).json() as { results: Record<string, Record<string, unknown>> };
      const found = Object.values(answer.results).filter((result) => !('error' in result)).length;
      if (found !== IDS) throw new Error(`${op.name}: ${found} of ${IDS} ids found`);
    }

    const pid = server.pid!;
    const load = (op: Operation, seconds: number) =>
      wrk({ url: `${base}/`, script: join(HERE, 'requests.lua'), seconds, connections: CONNECTIONS, timeoutSeconds: 10, env: { BODIES_FILE: op.bodies, ROUTE: op.route, API_KEY: apiKey } });
    // As lib/load.ts loadedServerSide, with a warm-up before every measured run and the PostgreSQL backends' CPU.
    const side = (label: string, op: Operation): Side => ({
      label,
      warmUp: () => void load(op, 3),
      async measure() {
        load(op, WARMUP);
        const dbBefore = await backendSeconds(admin, name);
        const before = cpuSeconds(pid);
        const result = load(op, SECONDS);
        const cpu = cpuSeconds(pid) - before;
        const db = (await backendSeconds(admin, name)) - dbBefore;
        // wrk's errors: answers other than 200, and requests unanswered in 10 s (a machine loaded by others).
        if (result.errors > result.requests / 1000) throw new Error(`${label}: ${result.errors} errors of ${result.requests} requests`);
        const figures: Figures = { cpuUs: (cpu * 1e6) / result.requests, p99Ms: result.p99Ms, bytes: result.bytesPerRequest, rps: result.requestsPerSecond, errors: result.errors };
        if (admin) figures.dbCpuUs = (db * 1e6) / result.requests;
        return figures;
      },
    });
    console.log(`\n${dialect}: ${ROUNDS} rounds, ${SECONDS} s a measured run after ${WARMUP} s of warm-up, ${CONNECTIONS} connections`);
    const comparison = await alternate({
      a: side('BatchGetSongs', OPS.songs), aAgain: side('BatchGetSongs again', OPS.songs), b: [side('BatchGetMovies', OPS.movies), side('BatchGetEpisodes', OPS.episodes)], rounds: ROUNDS,
    });
    const memory = memoryOf(pid);
    await stop(server);
    printComparison(comparison, [{ key: 'cpuUs', label: 'server CPU us/request' }, { key: 'p99Ms', label: 'p99 ms', digits: 1 }], `${dialect}: BatchGet of 100 ids`);
    // What answers of each operation's size cost the bare node:http server (bench/batch-get/ceiling-server.ts):
    // a dearer operation that answers more bytes is partly the kernel's and Node's sending them.
    const ceilings: number[] = [];
    for (const [i, side] of comparison.sides.entries()) {
      const bytes = median(comparison.figures[0]!.map((round) => round[i]!.bytes!));
      const bare = await bareServerAt({ cpuUs: 0, ceilingUs: 0, bytes, connections: CONNECTIONS, seconds: SECONDS, warmupSeconds: 2 });
      console.log(`  bare server answering ${Math.round(bytes).toLocaleString('en')} bytes (as ${side.label}): ${bare.cpuUs.toFixed(0)} us a request`);
      ceilings.push(bare.cpuUs);
    }
    summarizeBatchGets(dialect, comparison, memory, ceilings);
  } finally {
    if (server) await stop(server);
    await admin?.end().catch(() => {});
    await removeDatabase(url);
  }
}

function summarizeBatchGets(dialect: string, comparison: Comparison, memory: ReturnType<typeof memoryOf>, ceilings: number[]): void {
  const at = (side: number, key: string) => comparison.figures[0]!.map((round) => round[side]![key]!);
  const rows = comparison.sides.map((side, i) => {
    const cpu = at(i, 'cpuUs');
    const r = i === 0 ? [1] : ratios(comparison, 0, i, 'cpuUs');
    const db = comparison.figures[0]![0]![i]!.dbCpuUs === undefined ? undefined : median(at(i, 'dbCpuUs'));
    return {
      operation: side.label, cpuUs: median(cpu), cpuRange: [Math.min(...cpu), Math.max(...cpu)], ratio: median(r), ratioRange: [Math.min(...r), Math.max(...r)],
      ...(db === undefined ? {} : { dbCpuUs: db }), p99Ms: median(at(i, 'p99Ms')), bytes: median(at(i, 'bytes')), requestsPerSecond: median(at(i, 'rps')),
      bareServerUs: ceilings[i]!, errors: at(i, 'errors').reduce((x, y) => x + y, 0),
    };
  });
  results[`${dialect} batchGet`] = { rows, memory, orders: comparison.orders, figures: comparison.figures };
  const errors = rows.reduce((sum, row) => sum + row.errors, 0);
  report.push(`\n${dialect}: BatchGet of 100 ids, Zipf (s = 1) over 50,000 bodies a kind; ${ROUNDS} rounds, ${SECONDS} s a run after ${WARMUP} s of its own warm-up; RSS ${memory.rssMb} MB (peak ${memory.peakRssMb}); ${errors} errors\n`);
  report.push('| operation | server CPU us/request: median (rounds) | x songs: median (rounds) | target | PostgreSQL backends us/request | bytes/request | bare server at those bytes: us | CPU beyond it: us | p99 ms | requests/s |');
  report.push('|---|---|---|---|---:|---:|---:|---:|---:|---:|');
  for (const [i, row] of rows.entries()) {
    const target = i < 2 ? '' : row.ratio <= TARGET ? `<= ${TARGET}: met` : `<= ${TARGET}: **not met**`;
    report.push(`| ${row.operation} | ${Math.round(row.cpuUs)} (${Math.round(row.cpuRange[0]!)} to ${Math.round(row.cpuRange[1]!)}) | ${i === 0 ? '1.00' : `**${row.ratio.toFixed(2)}** (${rangeOf(row.ratioRange)})`} | ${target} | ${row.dbCpuUs === undefined ? '' : Math.round(row.dbCpuUs)} | ${Math.round(row.bytes).toLocaleString('en')} | ${Math.round(row.bareServerUs)} | ${Math.round(row.cpuUs - row.bareServerUs)} | ${row.p99Ms.toFixed(1)} | ${Math.round(row.requestsPerSecond).toLocaleString('en')} |`);
  }
}

// 5. Imports: each file into a new database, alternating.
async function imports(dialect: string): Promise<void> {
  const name = 'maqam_bench_video_import';
  if (dialect === 'postgres' && (await freshPostgresDatabase(name)) === undefined) {
    console.log(`\n${dialect}: PostgreSQL does not answer; imports skipped`);
    return;
  }
  const importOnce = async (kind: 'songs' | 'episodes'): Promise<Figures> => {
    const url = (await freshDatabase(dialect, name))!;
    try {
      const before = childrenCpuSeconds();
      const started = performance.now();
      const child = spawn(process.execPath, [BIN, 'import', files[kind], '--json', '--batch-size', String(BATCH_SIZE)], {
        env: { ...process.env, DATABASE_URL: url, LOG_LEVEL: 'warn' }, stdio: ['ignore', 'pipe', 'inherit'],
      });
      let stdout = '';
      child.stdout.on('data', (chunk) => (stdout += chunk));
      const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
      const seconds = (performance.now() - started) / 1000;
      const cpu = childrenCpuSeconds() - before;
      if (code !== 0) throw new Error(`maqam import ${files[kind]} exited with ${code}`);
      const summary = summaryOf(stdout);
      const records = Object.values(summary).reduce((a, b) => a + b, 0);
      if (records !== written[kind].records || summary[kind] !== EPISODES) throw new Error(`${kind}: imported ${JSON.stringify(summary)}`);
      const thousands = records / 1000;
      return { secondsPer1000: seconds / thousands, cpuPer1000: cpu / thousands, seconds };
    } finally {
      await removeDatabase(url);
    }
  };
  const side = (label: string, kind: 'songs' | 'episodes'): Side => ({ label, measure: () => importOnce(kind) });
  console.log(`\n${dialect}: imports, ${IMPORT_ROUNDS} rounds, batches of ${BATCH_SIZE.toLocaleString('en')}`);
  const comparison = await alternate({ a: side('songs', 'songs'), aAgain: side('songs again', 'songs'), b: side('episodes', 'episodes'), rounds: IMPORT_ROUNDS });
  printComparison(comparison, [
    { key: 'secondsPer1000', label: 'wall seconds a 1,000 records', digits: 3 },
    { key: 'cpuPer1000', label: "the importer's CPU seconds a 1,000 records", digits: 3 },
  ], `${dialect}: maqam import`);
  const at = (side: number, key: string) => comparison.figures[0]!.map((round) => round[side]![key]!);
  const r = ratios(comparison, 0, 2, 'secondsPer1000');
  const band = ratios(comparison, 0, 1, 'secondsPer1000');
  const cpuRatio = ratios(comparison, 0, 2, 'cpuPer1000');
  results[`${dialect} import`] = { figures: comparison.figures, orders: comparison.orders };
  report.push(`\n${dialect}: maqam import, ${(written.songs.records / 1000).toFixed(0)}k records a file, batches of ${BATCH_SIZE.toLocaleString('en')}; ${IMPORT_ROUNDS} rounds\n`);
  report.push('| import | wall s / 1,000 records: median (rounds) | importer CPU s / 1,000 records | x songs (wall): median (rounds) | x songs (importer CPU) | target |');
  report.push('|---|---|---:|---|---:|---|');
  const row = (label: string, side: number, ratio: number[] | undefined, cpu: number[] | undefined, target: string) => {
    const wall = at(side, 'secondsPer1000');
    report.push(`| ${label} | ${median(wall).toFixed(3)} (${rangeOf(wall, 3)}) | ${median(at(side, 'cpuPer1000')).toFixed(3)} | ${ratio ? `**${median(ratio).toFixed(2)}** (${rangeOf(ratio)})` : '1.00'} | ${cpu ? median(cpu).toFixed(2) : '1.00'} | ${target} |`);
  };
  row('songs (artists, albums)', 0, undefined, undefined, '');
  row('songs again', 1, band, ratios(comparison, 0, 1, 'cpuPer1000'), '');
  row('episodes (shows, seasons)', 2, r, cpuRatio, median(r) <= TARGET ? `<= ${TARGET}: met` : `<= ${TARGET}: **not met**`);
  if (dialect === 'postgres') await dropDatabase(name);
}

try {
  for (const dialect of DIALECTS) {
    if (PARTS.includes('batch-get')) await batchGets(dialect);
    if (PARTS.includes('import')) await imports(dialect);
  }
} finally {
  await dropDatabase('maqam_bench_video');
  await dropDatabase('maqam_bench_video_import');
}
console.log('\n## bench:video summary');
for (const line of report) console.log(line);
const out = join(RESULTS, `video-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
writeFileSync(out, JSON.stringify(results, null, 2));
console.log(`\nwritten to ${out}`);
