import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import type { ImportRecord } from '@maqam/contract';
import { generateDemoCatalog, prepareDatabase, openStorage, runImport, type Storage } from '@maqam/server';
import { dialects } from '../dialects.ts';

/**
 * A load into an empty catalog builds the catalog's read-only indexes once,
 * at its end, instead of row by row (storage/catalog-indexes.ts). What must
 * hold: they are missing only while such a load runs; afterwards they are
 * exactly what the migrations made; an import into a catalog that has songs
 * never drops them; and a load cut off before its end leaves them to the
 * next open of the database, which builds them.
 */
const READ_ONLY_INDEXES = ['songs_by_album', 'song_artists_top', 'related_artists_page', 'album_artists_by_date', 'album_artists_by_type'];
/** Rebuilt inside a first load's final merge on SQLite: never missing, and the same afterwards. */
const SEARCH_ITEM_INDEXES = ['search_items_item', 'search_items_walk'];

describe.each(dialects.map((d) => [d.name, d] as const))('the read-only catalog indexes around an import on %s', (name, dialect) => {
  const databases: { url: string; drop(): Promise<void> }[] = [];
  const storages: Storage[] = [];
  const records: ImportRecord[] = [...generateDemoCatalog({ songs: 300, seed: 5 })];
  const half = Math.floor(records.length / 2);
  /** What the migrations made, read from a database nothing was imported into. */
  let migrated: Record<string, string>;

  async function freshStorage(): Promise<Storage> {
    const database = await dialect.create();
    databases.push(database);
    const storage = openStorage(database.url);
    storages.push(storage);
    await prepareDatabase(storage);
    return storage;
  }

  /** Each read-only index's definition as the database describes it; an index that is missing is absent. */
  async function definitions(storage: Storage, indexes: readonly string[] = READ_ONLY_INDEXES): Promise<Record<string, string>> {
    const found: Record<string, string> = {};
    if (name === 'postgres') {
      const { rows } = await sql<{ name: string; definition: string }>`
        select indexname as name, indexdef as definition from pg_indexes where schemaname = current_schema()`.execute(storage.db);
      for (const row of rows) if (indexes.includes(row.name)) found[row.name] = row.definition;
    } else {
      const { rows } = await sql<{ name: string; table: string }>`select name, tbl_name as "table" from sqlite_master where type = 'index'`.execute(storage.db);
      for (const row of rows) {
        if (!indexes.includes(row.name)) continue;
        // The columns, their order and direction, uniqueness and the table: what a query plan can use.
        const columns = await sql`select seqno, name, "desc", coll, key from pragma_index_xinfo(${row.name})`.execute(storage.db);
        const unique = await sql`select "unique" from pragma_index_list(${row.table}) where name = ${row.name}`.execute(storage.db);
        found[row.name] = JSON.stringify({ table: row.table, columns: columns.rows, unique: unique.rows });
      }
    }
    return found;
  }

  const lines = (batch: readonly ImportRecord[]) => batch.map((record, i) => ({ line: i + 1, record }));

  /** search_items' indexes as the migrations made them. */
  let migratedSearchItems: Record<string, string>;

  beforeAll(async () => {
    const storage = await freshStorage();
    migrated = await definitions(storage);
    migratedSearchItems = await definitions(storage, SEARCH_ITEM_INDEXES);
  }, 120_000);

  afterAll(async () => {
    for (const storage of storages) await storage.close();
    for (const database of databases) await database.drop();
  });

  it('the migrations make all of them', () => {
    expect(Object.keys(migrated).sort()).toEqual([...READ_ONLY_INDEXES].sort());
  });

  it('a load into an empty catalog goes without them and ends with them exactly as the migrations made them', async () => {
    const storage = await freshStorage();
    const during: Record<string, string>[] = [];
    await runImport(storage, async (writeBatch) => {
      await writeBatch(lines(records.slice(0, half)));
      during.push(await definitions(storage));
      await writeBatch(lines(records.slice(half)));
      during.push(await definitions(storage));
    });
    expect(during).toEqual([{}, {}]);
    expect(await definitions(storage)).toEqual(migrated);
    expect(Object.keys(migratedSearchItems).sort()).toEqual([...SEARCH_ITEM_INDEXES].sort());
    expect(await definitions(storage, SEARCH_ITEM_INDEXES)).toEqual(migratedSearchItems);
  });

  it('an import into a catalog that has songs keeps them throughout', async () => {
    const storage = await freshStorage();
    await runImport(storage, (writeBatch) => writeBatch(lines(records.slice(0, half))));
    let during: Record<string, string> | undefined;
    await runImport(storage, async (writeBatch) => {
      await writeBatch(lines(records.slice(half)));
      during = await definitions(storage);
    });
    expect(during).toEqual(migrated);
    expect(await definitions(storage)).toEqual(migrated);
  });

  it('a load that fails builds them as it ends, and one cut off leaves them to the next open', async () => {
    const storage = await freshStorage();
    await expect(runImport(storage, async (writeBatch) => {
      await writeBatch(lines(records.slice(0, half)));
      throw new Error('the file could not be read further');
    })).rejects.toThrow('the file could not be read further');
    expect(await definitions(storage)).toEqual(migrated);

    // A process killed mid-load never reaches its end: as if it had dropped them and stopped there.
    for (const index of READ_ONLY_INDEXES) await storage.db.schema.dropIndex(index).execute();
    expect(await definitions(storage)).toEqual({});
    await prepareDatabase(storage);
    expect(await definitions(storage)).toEqual(migrated);
  });

  it.runIf(name === 'postgres')('a process opening the database while a catalog writer holds its lock leaves them to that writer, without waiting for it', async () => {
    // Built under a load's batch, they locked its tables in another order than it did: a deadlock (storage/catalog-indexes.ts).
    const storage = await freshStorage();
    for (const index of READ_ONLY_INDEXES) await storage.db.schema.dropIndex(index).execute();
    const batch = await storage.db.startTransaction().execute();
    try {
      await storage.lockCatalogWrites(batch);
      const starting = openStorage(databases.at(-1)!.url);
      storages.push(starting);
      // Answers while the lock is held (waiting for it would hang here), and builds nothing.
      await prepareDatabase(starting);
      expect(await definitions(starting)).toEqual({});
    } finally {
      await batch.rollback().execute();
    }
    await prepareDatabase(storage);
    expect(await definitions(storage)).toEqual(migrated);
  });
});
