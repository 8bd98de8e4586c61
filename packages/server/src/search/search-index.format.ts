import { createBulkUpsert } from '../storage/bulk-upsert.ts';
import type { StoredFormat } from '../storage/stored-formats.ts';
import { IndexMemo } from './index-memo.ts';
import { updateSearchIndex } from './search-index.ts';
import { mergeSegmentsAfter } from './segments.ts';

/** Items a transaction (one segment each, merged into one at the end). */
const PAGE = 10_000;

/**
 * The search index's segments (search-index.ts, doclist.ts) as a stored
 * format. Rebuilt by indexing every item that is not withdrawn again, a page
 * of one kind at a time, then merging the pages' segments into one, as an
 * import does; searches meanwhile see the items indexed so far.
 */
export const searchIndexFormat: StoredFormat = {
  name: 'search-index',
  version: 1,
  // Migration 012 indexed the catalog it found until it was frozen; since, a catalog is indexed as it is
  // imported. So segments in a database that recorded no version are of the one layout there was then.
  async unrecordedVersion(db) {
    return (await db.selectFrom('search_segments').select('id').limit(1).executeTakeFirst()) === undefined ? undefined : 1;
  },
  async rebuild(storage, progress) {
    const { db } = storage;
    const upsert = createBulkUpsert(storage);
    const tables = ['artists', 'albums', 'songs'] as const;
    let total = 0;
    for (const table of tables) {
      const { count } = await db.selectFrom(table).select((eb) => eb.fn.countAll<number | string>().as('count')).where('withdrawn', '=', 0).executeTakeFirstOrThrow();
      total += Number(count);
    }
    let done = 0;
    progress(done, total);
    await db.transaction().execute(async (trx) => {
      await storage.lockCatalogWrites(trx);
      for (const table of ['search_doclists', 'search_items', 'search_segments', 'search_vocabulary'] as const) await trx.deleteFrom(table).execute();
    });
    const none = new Set<string>();
    // One memo for the whole rebuild, as for an import: each text is normalized once.
    const memo = new IndexMemo();
    for (const table of tables) {
      for (let after = ''; ; ) {
        const rows = await db.transaction().execute(async (trx) => {
          const lock = await storage.lockCatalogWrites(trx);
          const page = await trx.selectFrom(table).select('id').where('withdrawn', '=', 0).where('id', '>', after).orderBy('id').limit(PAGE).execute();
          if (page.length === 0) return page;
          const ids = new Set(page.map((row) => row.id));
          await updateSearchIndex(trx, lock, upsert, {
            artistIds: table === 'artists' ? ids : none,
            albumIds: table === 'albums' ? ids : none,
            songIds: table === 'songs' ? ids : none,
            albumsToRecount: none,
          }, { dependents: false, memo });
          return page;
        });
        if (rows.length === 0) break;
        after = rows[rows.length - 1]!.id;
        done += rows.length;
        progress(done, Math.max(done, total));
      }
    }
    await db.transaction().execute(async (trx) => mergeSegmentsAfter(trx, await storage.lockCatalogWrites(trx), upsert, 0));
    return done;
  },
};
