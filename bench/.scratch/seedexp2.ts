import { openStorage, migrateToLatest, seedDemoCatalog } from '/work/main/packages/server/src/index.ts';
import { sql } from 'kysely';
import { rmSync } from 'node:fs';
const songs = Number(process.argv[2] ?? 200000);
const mode = process.argv[3] ?? 'base';
const path = `/tmp/prof/exp2-${mode}.db`;
for (const s of ['', '-wal', '-shm']) rmSync(path + s, { force: true });
const storage = openStorage(`sqlite://${path}`);
await migrateToLatest(storage);
if (process.env.CACHE) await sql.raw(`pragma cache_size = -${process.env.CACHE}`).execute(storage.db);
if (mode === 'nowalk' || mode === 'rebuild') await sql`drop index search_postings_walk`.execute(storage.db);
if (mode === 'norowid') {
  await sql`drop table search_postings`.execute(storage.db);
  await sql`create table search_postings (word text not null, kind text not null, item_id text not null, popularity bigint not null, primary key (kind, item_id, word)) without rowid`.execute(storage.db);
  await sql`create index search_postings_walk on search_postings (word, popularity desc, item_id, kind)`.execute(storage.db);
}
const t = performance.now();
await seedDemoCatalog(storage, { songs });
console.log((globalThis as any).__T); console.log(`mode=${mode} seed ${(performance.now() - t) / 1000} s`);
if (mode === 'rebuild') {
  const t2 = performance.now();
  await sql`create index search_postings_walk on search_postings (word, popularity desc, item_id, kind)`.execute(storage.db);
  console.log(`index ${(performance.now() - t2) / 1000} s`);
}
await storage.close();
