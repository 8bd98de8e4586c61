import { createBulkUpsert } from '../storage/bulk-upsert.ts';
import type { StoredFormat } from '../storage/stored-formats.ts';
import type { SongRow } from './catalog.repo.ts';
import { buildSongTemplate, SONG_TEMPLATE_FORMAT } from './song-template.ts';

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
    const { total } = await db.selectFrom('songs').select((eb) => eb.fn.countAll<number | string>().as('total')).where('withdrawn', '=', 0).executeTakeFirstOrThrow();
    let done = 0;
    progress(done, Number(total));
    for (let after = ''; ; ) {
      const rows: SongRow[] = await db.transaction().execute(async (trx) => {
        await storage.lockCatalogWrites(trx);
        const page: SongRow[] = await trx
          .selectFrom('songs')
          .select([
            'id', 'title_i18n', 'original_language', 'album_id', 'artist_ids', 'duration_ms', 'track_number', 'disc_number',
            'release_date', 'genres', 'is_explicit', 'isrc', 'has_lyrics', 'popularity', 'artwork', 'preview_url',
          ])
          .where('withdrawn', '=', 0)
          .where('id', '>', after)
          .orderBy('id')
          .limit(PAGE)
          .execute();
        await upsert(trx, 'song_templates', ['id'], page.map((row) => ({ id: row.id, template: buildSongTemplate(row) })));
        return page;
      });
      if (rows.length === 0) break;
      after = rows[rows.length - 1]!.id;
      done += rows.length;
      progress(done, Math.max(done, Number(total)));
    }
    // A template whose song is withdrawn or gone would answer for it: none is left.
    await db.transaction().execute(async (trx) => {
      await storage.lockCatalogWrites(trx);
      await trx
        .deleteFrom('song_templates')
        .where('id', 'not in', trx.selectFrom('songs').select('id').where('withdrawn', '=', 0))
        .execute();
    });
    return done;
  },
};
