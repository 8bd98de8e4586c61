import { createBulkUpsert } from '../storage/bulk-upsert.ts';
import type { StoredFormat } from '../storage/stored-formats.ts';
import { buildSongTemplate, SONG_TEMPLATE_FORMAT } from './song-template.ts';
import { createSongTemplatesRepo } from './song-templates.repo.ts';

/** Songs a transaction: each commits its page, so a rebuild cut off keeps what it wrote. */
const PAGE = 5000;

/**
 * The song templates (song-template.ts) as a stored format: a database whose
 * templates are of another layout, or that never recorded one, has them all
 * written again from the songs, a page at a time, each page in a transaction
 * that holds the catalog's write lock (so an import running meanwhile never
 * has a song's template replaced by one of its older row).
 */
export const songTemplatesFormat: StoredFormat = {
  name: 'song-templates',
  version: SONG_TEMPLATE_FORMAT,
  async rebuild(storage, progress) {
    const { db } = storage;
    const upsert = createBulkUpsert(storage);
    const total = await createSongTemplatesRepo(db, storage, upsert).countRenderableSongs();
    let done = 0;
    progress(done, total);
    for (let after = ''; ; ) {
      const rows = await db.transaction().execute(async (trx) => {
        await storage.lockCatalogWrites(trx);
        const templates = createSongTemplatesRepo(trx, storage, upsert);
        const page = await templates.renderableSongsAfter(after, PAGE);
        await templates.write(page.map((row) => ({ id: row.id, template: buildSongTemplate(row) })));
        return page;
      });
      if (rows.length === 0) break;
      after = rows[rows.length - 1]!.id;
      done += rows.length;
      progress(done, Math.max(done, total));
    }
    // A template whose song is withdrawn or gone would answer for it: none is left.
    await db.transaction().execute(async (trx) => {
      await storage.lockCatalogWrites(trx);
      await createSongTemplatesRepo(trx, storage, upsert).removeOrphans();
    });
    return done;
  },
};
