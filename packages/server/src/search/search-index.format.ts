import { createBulkUpsert } from '../storage/bulk-upsert.ts';
import { RebuildCount, rebuildInPages, type StoredFormat } from '../storage/stored-formats.ts';
import { IndexMemo } from './index-memo.ts';
import { updateSearchIndex } from './search-index.ts';
import { mergeSegmentsAfter } from './segments.ts';
import { createSearchIndexRepo } from './search-index.repo.ts';

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
  async unrecordedVersion(storage) {
    return (await createSearchIndexRepo(storage.db, createBulkUpsert(storage)).hasSegments()) ? 1 : undefined;
  },
  async rebuild(storage, progress) {
    const { db } = storage;
    const upsert = createBulkUpsert(storage);
    const tables = ['artists', 'albums', 'songs', 'shows', 'movies'] as const;
    let total = 0;
    for (const table of tables) total += await createSearchIndexRepo(db, upsert).countLive(table);
    const count = new RebuildCount(total, progress);
    await db.transaction().execute(async (trx) => {
      await storage.lockCatalogWrites(trx);
      await createSearchIndexRepo(trx, upsert).clear();
    });
    const none = new Set<string>();
    // One memo for the whole rebuild, as for an import: each text is normalized once.
    const memo = new IndexMemo();
    for (const table of tables) {
      await rebuildInPages(storage, async (trx, lock, after) => {
        const ids = await createSearchIndexRepo(trx, upsert).liveIdsAfter(table, after, PAGE);
        if (ids.length === 0) return ids;
        const written = new Set(ids);
        await updateSearchIndex(trx, lock, upsert, {
          artistIds: table === 'artists' ? written : none,
          albumIds: table === 'albums' ? written : none,
          songIds: table === 'songs' ? written : none,
          showIds: table === 'shows' ? written : none,
          movieIds: table === 'movies' ? written : none,
          albumsToRecount: none,
        }, { dependents: false, memo });
        return ids;
      }, count.written);
    }
    await db.transaction().execute(async (trx) => mergeSegmentsAfter(trx, await storage.lockCatalogWrites(trx), upsert, 0));
    return count.done;
  },
};
