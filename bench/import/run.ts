// bench/import: `maqam import` of the generated demo catalog into a new
// SQLite file, once per batch size, timed from the outside, against the
// issue's ceiling of 90 s for 1,000,000 songs (scaled to BENCH_SONGS). Prints
// seconds, songs a second, the importer's peak RSS and the search segments
// the import leaves.
//
//   npm run bench:import                                   # 1,000,000 songs, batches of 2,000 and the default
//   BENCH_SONGS=200000 BENCH_BATCH_SIZES=2000,10000,40000 npm run bench:import
import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { generateDemoCatalog } from '@maqam/server';
import { alternate, printComparison, type Side } from '../lib/compare.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const DATA = join(ROOT, 'bench/.data');
const BIN = join(ROOT, 'packages/cli/bin/maqam.js');
const SONGS = Number(process.env.BENCH_SONGS ?? 1_000_000);
const SIZES = (process.env.BENCH_BATCH_SIZES ?? 'default').split(',');
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const CEILING_SECONDS = (90 * SONGS) / 1_000_000;

mkdirSync(DATA, { recursive: true });
const file = join(DATA, `catalog-${SONGS}.ndjson`);
if (!existsSync(file)) {
  console.log(`writing the demo catalog of ${SONGS.toLocaleString('en')} songs to ${file} ...`);
  const out = createWriteStream(`${file}.part`);
  for (const record of generateDemoCatalog({ songs: SONGS, video: false })) {
    if (!out.write(`${JSON.stringify(record)}\n`)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
  }
  await new Promise<void>((resolve) => out.end(() => resolve()));
  renameSync(`${file}.part`, file);
}

/** Runs `maqam import` into a new file; its wall time and the highest VmHWM read from /proc while it ran. */
async function importOnce(batchSize: string, database: string): Promise<{ seconds: number; peakMb: number; summary: Record<string, number> }> {
  for (const suffix of ['', '-wal', '-shm']) rmSync(database + suffix, { force: true });
  const args = [BIN, 'import', file, '--json', ...(batchSize === 'default' ? [] : ['--batch-size', batchSize])];
  const started = performance.now();
  const child = spawn(process.execPath, args, { env: { ...process.env, DATABASE_URL: `sqlite:${database}` }, stdio: ['ignore', 'pipe', 'inherit'] });
  let stdout = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  let peakKb = 0;
  const poll = setInterval(() => {
    try {
      const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
      if (match) peakKb = Math.max(peakKb, Number(match[1]));
    } catch {}
  }, 200);
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  clearInterval(poll);
  if (code !== 0) throw new Error(`maqam import exited with ${code}`);
  return { seconds: (performance.now() - started) / 1000, peakMb: peakKb / 1024, summary: JSON.parse(stdout) };
}

const database = join(DATA, 'import-bench.db');
/** One import at a batch size, checked, with the figures of its row in the table. */
async function importAt(size: string) {
  const { seconds, peakMb, summary } = await importOnce(size, database);
  if (summary.songs !== SONGS) throw new Error(`imported ${summary.songs} songs, expected ${SONGS}`);
  const db = new DatabaseSync(database, { readOnly: true });
  const segments = (db.prepare('select count(*) as n from search_segments').get() as { n: number }).n;
  db.close();
  for (const suffix of ['', '-wal', '-shm']) rmSync(database + suffix, { force: true });
  console.log(`| ${size} | ${seconds.toFixed(1)} | ${Math.round(SONGS / seconds).toLocaleString('en')} | ${(seconds / CEILING_SECONDS).toFixed(2)} | ${Math.round(peakMb).toLocaleString('en')} MB | ${segments} |`);
  return { seconds, peakMb };
}

console.log(`\nmaqam import of ${SONGS.toLocaleString('en')} songs into a new SQLite file; bound ${CEILING_SECONDS.toFixed(1)} s\n`);
console.log('| batch size | seconds | songs/s | x bound | peak RSS | segments left |');
console.log('|---|---:|---:|---:|---:|---:|');
if (SIZES.length === 1) await importAt(SIZES[0]!);
else {
  const side = (size: string): Side => ({ label: `batches of ${size}`, measure: () => importAt(size) });
  const comparison = await alternate({ a: side(SIZES[0]!), aAgain: side(SIZES[0]!), b: SIZES.slice(1).map(side), rounds: ROUNDS, onMeasured: () => {} });
  printComparison(comparison, [{ key: 'seconds', label: 'seconds an import', digits: 1 }, { key: 'peakMb', label: 'peak RSS MB' }]);
}
