// bench/batch-get/miss-layout.ts: what a missed song's template costs to read, and an import's batches to write,
// in two layouts of the song templates on SQLite (issue 56, item 5: "a miss in one B-tree descent"):
//
// - by id, as stored (migration 013): a rowid table with an index on the id. A lookup descends the id's
//   index, then the table by the rowid it found: two descents.
// - by key: the table keyed by an integer drawn from the id (63 bits of its SHA-256), so a lookup is one
//   descent of the table. Keys drawn from ids are in no order: an import's batch inserts all over the table.
//
// Reads: BENCH_BATCH ids a statement (14: about a Zipf request's misses on the 300,000-song catalog at the
// default cache), uniform over the catalog, the statement as catalog.repo.ts runs it (json_each, group_concat),
// the parameter made from the ids within the time,
// SQLite's page cache as the server's (8 MB), the layouts alternating in BENCH_ROUNDS rounds; medians printed.
// Writes: the catalog's templates into an empty table of each layout in import batches of 40,000 (each a
// transaction, a WAL checkpoint after it, as `maqam import` does), in the order the import writes songs.
//
//   node bench/batch-get/miss-layout.ts                  # the catalog bench:batch-get seeded (BENCH_SONGS, 1,000,000)
//   BENCH_SONGS=300000 node bench/batch-get/miss-layout.ts
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { median } from '../lib/compare.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const SONGS = Number(process.env.BENCH_SONGS ?? 1_000_000);
const CATALOG = join(ROOT, `bench/.data/bench-${SONGS}.db`);
const SCRATCH = join(ROOT, 'bench/.data/miss-layout');
const BATCH = Number(process.env.BENCH_BATCH ?? 14);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CALLS = Number(process.env.BENCH_CALLS ?? 3000);
const IMPORT_BATCH = 40_000;
if (!existsSync(CATALOG)) throw new Error(`${CATALOG} is missing: run BENCH_SONGS=${SONGS} npm run bench:batch-get first`);

const keyOf = (id: string): bigint => createHash('sha256').update(id).digest().readBigInt64LE(0) >> 1n;

const layouts = {
  'by id (two descents)': {
    table: 'create table t (id text primary key not null, template blob not null)',
    insert: 'insert into t (id, template) values (?, ?)',
    row: (id: string, template: Uint8Array) => [id, template],
    lookup: 'select cast(group_concat(template, \'\') as blob) as templates from t where id in (select value from json_each(?))',
    parameter: (ids: string[]) => JSON.stringify(ids),
  },
  'by key (one descent)': {
    table: 'create table t (key integer primary key, template blob not null)',
    insert: 'insert into t (key, template) values (?, ?)',
    row: (id: string, template: Uint8Array) => [keyOf(id), template],
    lookup: 'select cast(group_concat(template, \'\') as blob) as templates from t where key in (select value from json_each(?))',
    parameter: (ids: string[]) => `[${ids.map((id) => keyOf(id).toString()).join(',')}]`,
  },
} as const;
type Layout = (typeof layouts)[keyof typeof layouts];

const source = new DatabaseSync(CATALOG, { readOnly: true });
// The order the import writes songs in: the catalog's own (rowid) order.
const rows = source.prepare('select id, template from song_templates order by rowid').all() as { id: string; template: Uint8Array }[];
source.close();
console.log(`${rows.length.toLocaleString('en')} templates from ${CATALOG}`);

function open(name: string): DatabaseSync {
  const db = new DatabaseSync(join(SCRATCH, `${name.split(' ')[1]}.db`));
  db.exec('pragma journal_mode = wal; pragma synchronous = normal; pragma cache_size = -8192;');
  return db;
}

/** Seconds to write every template in import batches into an empty table. */
function write(name: string, layout: Layout): number {
  for (const suffix of ['', '-wal', '-shm']) rmSync(join(SCRATCH, `${name.split(' ')[1]}.db${suffix}`), { force: true });
  const db = open(name);
  db.exec(layout.table);
  const insert = db.prepare(layout.insert);
  const started = performance.now();
  for (let at = 0; at < rows.length; at += IMPORT_BATCH) {
    db.exec('begin');
    for (const row of rows.slice(at, at + IMPORT_BATCH)) insert.run(...(layout.row(row.id, row.template) as [string, Uint8Array]));
    db.exec('commit');
    db.exec('pragma wal_checkpoint(truncate)');
  }
  const seconds = (performance.now() - started) / 1000;
  db.close();
  return seconds;
}

rmSync(SCRATCH, { recursive: true, force: true });
mkdirSync(SCRATCH, { recursive: true });
for (const [name, layout] of Object.entries(layouts)) console.log(`write, ${name}: ${write(name, layout).toFixed(1)} s`);

let seed = 7;
const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
const batches = Array.from({ length: CALLS }, () => Array.from({ length: BATCH }, () => rows[Math.floor(random() * rows.length)]!.id));
const readers = Object.entries(layouts).map(([name, layout]) => {
  const db = open(name);
  const statement = db.prepare(layout.lookup);
  return { name, us: [] as number[], run: () => {
    let bytes = 0;
    const started = process.hrtime.bigint();
    // The parameter is made on the request path too: the by-key layout draws each missed id's key.
    for (const ids of batches) bytes += (statement.get(layout.parameter(ids)) as { templates: Uint8Array }).templates.length;
    const us = Number(process.hrtime.bigint() - started) / 1000 / (CALLS * BATCH);
    if (bytes === 0) throw new Error('nothing read');
    return us;
  } };
});
for (const reader of readers) reader.run();
for (let round = 0; round < ROUNDS; round++) for (const reader of readers) reader.us.push(reader.run());
for (const reader of readers) console.log(`read, ${reader.name}: ${median(reader.us).toFixed(2)} us an id (rounds ${reader.us.map((us) => us.toFixed(2)).join(', ')})`);
rmSync(SCRATCH, { recursive: true, force: true });
