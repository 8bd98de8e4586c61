import { createBulkUpsert } from '../storage/bulk-upsert.ts';
import { RebuildCount, rebuildInPages, type StoredFormat } from '../storage/stored-formats.ts';
import { buildSongTemplate, SONG_TEMPLATE_FORMAT } from './song-template.ts';
import { createSongTemplatesRepo } from './song-templates.repo.ts';

/** Songs a transaction: each commits its page, so a rebuild cut off keeps what it wrote. */
const PAGE = 5000;

/**
 * The song templates (song-template.ts) as a stored format: a database whose
 * templates are of another layout, or that never recorded one, has them all
 * written again from the songs, a page at a time (rebuildInPages).
 */
export const songTemplatesFormat: StoredFormat = {
  name: 'song-templates',
  version: SONG_TEMPLATE_FORMAT,
  async rebuild(storage, progress) {
    const { db } = storage;
    const upsert = createBulkUpsert(storage);
    const total = await createSongTemplatesRepo(db, storage, upsert).countRenderableSongs();
    const count = new RebuildCount(total, progress);
    await rebuildInPages(storage, async (trx, _lock, after) => {
      const templates = createSongTemplatesRepo(trx, storage, upsert);
      const page = await templates.renderableSongsAfter(after, PAGE);
      await templates.write(page.map((row) => ({ id: row.id, template: buildSongTemplate(row) })));
      return page.map((row) => row.id);
    }, count.written);
    // A template whose song is withdrawn or gone would answer for it: none is left.
    await db.transaction().execute(async (trx) => {
      await storage.lockCatalogWrites(trx);
      await createSongTemplatesRepo(trx, storage, upsert).removeOrphans();
    });
    return count.done;
  },
};
