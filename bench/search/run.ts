// bench/search: GET /v1/search on the 1,000,000-song demo catalog, one run per
// kind of query (one word, two words, a half-typed last word, a misspelled
// word), wrk with 8 connections on core 1 and the server on core 0. Prints
// p50 / p99 and CPU us per request per kind, and beside each kind the bare
// node:http server (bench/lib/load.ts bareServerLike): its CPU answering as many
// bytes (the ceiling: x ceiling) and its p99 spinning for the kind's CPU a
// request (the tail that CPU alone makes at this load).
//
//   npm run bench:search        (DATABASE_URL to use another catalog, e.g. PostgreSQL; BENCH_SECONDS)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { bareServerLike, cpuSeconds, startPinned, stop, waitReady, warmPageCache, wrk } from '../lib/load.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const DATA = join(ROOT, 'bench/.data');
const BIN = join(ROOT, 'packages/cli/bin/maqam.js');
const SECONDS = Number(process.env.BENCH_SECONDS ?? 15);
const DB_FILE = join(DATA, 'bench-1000000.db');
const databaseUrl = process.env.DATABASE_URL ?? `sqlite:${DB_FILE}`;
const env = { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn', MAQAM_RATE_LIMIT: '0' };

function cli(args: string[]): string {
  const result = spawnSync(process.execPath, [BIN, ...args], { env, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`maqam ${args.join(' ')} failed:\n${result.stderr}`);
  return result.stdout;
}

mkdirSync(DATA, { recursive: true });
if (databaseUrl === `sqlite:${DB_FILE}` && !existsSync(DB_FILE)) {
  console.log('seeding 1,000,000 songs ...');
  console.log(`seeded in ${JSON.parse(cli(['seed-demo', '--songs', '1000000', '--json'])).seconds} s`);
}
console.log(cli(['migrate', '--json']).trim());
if (databaseUrl === `sqlite:${DB_FILE}`) console.log(`database file read into the page cache in ${warmPageCache(DB_FILE).toFixed(1)} s`);
const apiKey: string = JSON.parse(cli(['keys', 'create', '--name', `bench-${Date.now()}`, '--json'])).key;

// Words of the demo catalog (demo-catalog.ts), typed as people type them.
const KINDS: Record<string, string[]> = {
  'one word': ['حبيبي', 'Habibi', 'قلبي', 'sahran', 'ليالي', 'Midnight', 'عمرو', 'Nancy', 'فيروز', 'Layali'],
  'two words': ['يا ليل', 'نور العين', 'Tamally Maak', 'عمرو دياب', 'Sherine Diab', 'ya omri', 'Golden Rain', 'حلم شمس'],
  'prefix': ['حبي', 'Hab', 'نور ال', 'tamally m', 'Mira V', 'شير', 'Gol', 'يا عم'],
  'misspelled': ['Habibbi', 'Sahrn', 'Midnigth', 'Shereen', 'Tamaly Maak', '7abibi', 'عيونق', 'Layaly'],
};

const PORT = 19_500 + Math.floor(Math.random() * 400);
const base = `http://127.0.0.1:${PORT}`;
const server = startPinned([BIN, 'serve'], { ...env, PORT: String(PORT) });
await waitReady(server, () => fetch(`${base}/v1/search?q=x`, { headers: { 'x-api-key': apiKey } }));

const rows: string[] = [];
for (const [kind, queries] of Object.entries(KINDS)) {
  const file = join(DATA, `search-${kind.replace(/\W+/g, '-')}.txt`);
  writeFileSync(file, queries.map((q) => encodeURIComponent(q)).join('\n') + '\n');
  const run = (seconds: number) => wrk({ url: `${base}/`, script: join(import.meta.dirname, 'queries.lua'), seconds, connections: 8, timeoutSeconds: 60, env: { QUERIES_FILE: file, API_KEY: apiKey } });
  run(2);
  const before = cpuSeconds(server.pid!);
  const result = run(SECONDS);
  const cpuUs = ((cpuSeconds(server.pid!) - before) * 1e6) / Math.max(1, result.requests);
  const bare = await bareServerLike(result, cpuUs, 8, SECONDS, 60);
  rows.push(`| ${kind} | ${result.requestsPerSecond.toFixed(1)} | ${result.p50Ms.toFixed(1)} ms | ${result.p99Ms.toFixed(1)} ms | ${Math.round(cpuUs).toLocaleString('en')} | ${(cpuUs / bare.ceilingUs).toFixed(1)} | ${bare.p99Ms.toFixed(1)} ms | ${result.errors} |`);
  console.log(rows.at(-1));
}
await stop(server);

console.log(`\n${databaseUrl.split(':')[0]}: 8 connections, ${SECONDS} s a kind\n`);
console.log('| query kind | requests/s | p50 | p99 | CPU us/request | x ceiling | bare server at that CPU: p99 | errors |');
console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
for (const row of rows) console.log(row);
