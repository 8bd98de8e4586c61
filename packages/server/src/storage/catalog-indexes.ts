import { sql, type Kysely } from 'kysely';
import type { Database, DialectName } from './database.ts';
import { catalogWriteLock, tryCatalogWriteLock } from './catalog-write-lock.ts';

/**
 * The catalog's secondary indexes that serve reads only: an album's tracks,
 * an artist's top songs, discography and related artists. No write checks a
 * constraint through them, and a query answers the same rows without them,
 * only slower.
 *
 * So a load into an empty catalog drops them first and builds them at its
 * end: sorting a million rows once is much cheaper than inserting them one
 * by one at random places of four B-trees. Measured on the 1M demo import
 * (SQLite, bench/README.md at 9b0c7f5): 89.0 s without these indexes plus 2.1 s to
 * build them, against 113 to 120 s with them, on the same machine.
 *
 * Their definitions are those the migrations made (006, and 001 for
 * related artists); a test compares the two. Every open of the database
 * (`migrateToLatest`) builds any that are missing, so a load cut off before
 * its end leaves them missing only until the next server or CLI start, and
 * the next import starts by building them (when the catalog is not empty).
 */
const READ_ONLY_INDEXES = [
  { name: 'songs_by_album', table: 'songs', columns: ['album_id', 'disc_number', 'track_number', 'id'] },
  { name: 'song_artists_top', table: 'song_artists', columns: ['artist_id', 'popularity desc', 'song_id'] },
  { name: 'related_artists_page', table: 'related_artists', columns: ['artist_id', 'score desc', 'related_id'] },
  { name: 'album_artists_by_date', table: 'album_artists', columns: ['artist_id', 'release_date desc', 'album_id'] },
  { name: 'album_artists_by_type', table: 'album_artists', columns: ['artist_id', 'album_type', 'release_date desc', 'album_id'] },
] as const;

/** True when the catalog holds no artist, album or song (the other catalog tables reference them). */
export async function catalogIsEmpty(db: Kysely<Database>): Promise<boolean> {
  for (const table of ['artists', 'albums', 'songs'] as const) {
    if ((await db.selectFrom(table).select('id').limit(1).executeTakeFirst()) !== undefined) return false;
  }
  return true;
}

/** Drops the read-only indexes, in one transaction, holding the catalog's write lock (catalog-write-lock.ts). */
export async function dropReadOnlyCatalogIndexes(storage: { readonly db: Kysely<Database>; readonly dialect: DialectName }): Promise<void> {
  await storage.db.transaction().execute(async (trx) => {
    await catalogWriteLock(storage.dialect)(trx);
    for (const { name } of READ_ONLY_INDEXES) await trx.schema.dropIndex(name).ifExists().execute();
  });
}

/**
 * Builds the read-only indexes that are missing, in one transaction. Which
 * are missing is read first: PostgreSQL locks the table against writes for
 * a CREATE INDEX even when IF NOT EXISTS finds the index, and waits for the
 * writers before it (an import's batch, say), so a server starting during
 * an import would wait for its batch.
 *
 * The build holds the catalog's write lock, as every catalog writer does:
 * it locks songs, song_artists, related_artists and album_artists in turn,
 * and an import's batch takes albums and album_artists before songs, so the
 * two locked each other out (a deadlock, 40P01: a process starting during
 * a first load failed to start, or failed the load; reproduced 4 times in
 * 4). `ifCatalogBusy`: an import, which builds them at its end, waits for
 * the lock; a process opening the database ('skip') does not wait for a
 * load that is under way, which builds them when it ends.
 */
export async function buildReadOnlyCatalogIndexes(storage: { readonly db: Kysely<Database>; readonly dialect: DialectName }, ifCatalogBusy: 'wait' | 'skip'): Promise<void> {
  const { db } = storage;
  const names = READ_ONLY_INDEXES.map((index) => index.name);
  const existing = storage.dialect === 'postgres'
    ? await sql<{ name: string }>`select indexname as name from pg_indexes where schemaname = current_schema() and indexname in (${sql.join(names)})`.execute(db)
    : await sql<{ name: string }>`select name from sqlite_master where type = 'index' and name in (${sql.join(names)})`.execute(db);
  const present = new Set(existing.rows.map((row) => row.name));
  const missing = READ_ONLY_INDEXES.filter((index) => !present.has(index.name));
  if (missing.length === 0) return;
  await db.transaction().execute(async (trx) => {
    const locked = await (ifCatalogBusy === 'wait' ? catalogWriteLock : tryCatalogWriteLock)(storage.dialect)(trx);
    if (locked === undefined) return;
    for (const { name, table, columns } of missing) await trx.schema.createIndex(name).ifNotExists().on(table).columns([...columns]).execute();
  });
}

/**
 * Runs `work`, a first load's final merge of its search segments, in `trx`
 * with search_items' two secondary indexes dropped, and builds them again
 * before the transaction commits. The merge rewrites every item (1.14M for
 * the 1M demo) and deletes their earlier copies: maintaining both indexes
 * row by row took the merge 14.6 s, against 9.9 s without them plus 1.2 s to
 * build them (bench/README.md at 9b0c7f5). SQLite only: its readers keep their snapshot
 * until the commit, so none ever sees the indexes missing, where PostgreSQL
 * would lock searches out of the table for the whole merge.
 */
export async function withSearchItemIndexesRebuilt(storage: { readonly dialect: DialectName }, trx: Kysely<Database>, work: () => Promise<void>): Promise<void> {
  if (storage.dialect === 'postgres') return work();
  await sql`drop index search_items_item`.execute(trx);
  await sql`drop index search_items_walk`.execute(trx);
  await work();
  // As migration 012 made them.
  await trx.schema.createIndex('search_items_item').unique().on('search_items').columns(['kind', 'item_id']).execute();
  await sql`create index search_items_walk on search_items (segment, popularity, item_id, kind)`.execute(trx);
}
