import type { Insertable, Kysely } from 'kysely';
import type { BulkUpsert } from '../storage/bulk-upsert.ts';
import type { Database } from '../storage/database.ts';
import { inChunks } from '../storage/id-chunks.ts';
import type { Storage } from '../storage/storage.ts';
import type { SongRow } from './catalog.repo.ts';

/** The columns a song's template is built from (song-template.ts). */
const TEMPLATE_COLUMNS = [
  'id', 'title_i18n', 'original_language', 'album_id', 'artist_ids', 'duration_ms', 'track_number', 'disc_number',
  'release_date', 'genres', 'is_explicit', 'isrc', 'has_lyrics', 'popularity', 'artwork', 'preview_url',
] as const;

/**
 * What writes the song templates (song-template.ts), in the caller's
 * transaction: the import, as it writes songs, and the stored format's
 * rebuild. (The read path reads them through catalog.repo.ts.)
 */
export function createSongTemplatesRepo(trx: Kysely<Database>, storage: Pick<Storage, 'idList'>, upsert: BulkUpsert) {
  return {
    /** How many songs have a template (those not withdrawn). */
    async countRenderableSongs(): Promise<number> {
      const { total } = await trx.selectFrom('songs').select((eb) => eb.fn.countAll<number | string>().as('total')).where('withdrawn', '=', 0).executeTakeFirstOrThrow();
      return Number(total);
    },

    /** The next `limit` songs that have a template, in id order after `after`. */
    renderableSongsAfter(after: string, limit: number): Promise<SongRow[]> {
      return trx.selectFrom('songs').select(TEMPLATE_COLUMNS).where('withdrawn', '=', 0).where('id', '>', after).orderBy('id').limit(limit).execute();
    },

    /** These songs as stored now (a template is built again from them). */
    storedSongs(ids: readonly string[]): Promise<Insertable<Database['songs']>[]> {
      return inChunks(ids, (chunk) => trx.selectFrom('songs').selectAll().where('id', 'in', storage.idList(chunk)).execute());
    },

    async write(templates: Insertable<Database['song_templates']>[]): Promise<void> {
      await upsert(trx, 'song_templates', ['id'], templates);
    },

    /** Removes these songs' templates (withdrawn songs: a song without one is not found). */
    async remove(ids: readonly string[]): Promise<void> {
      await inChunks(ids, async (chunk) => {
        await trx.deleteFrom('song_templates').where('id', 'in', storage.idList(chunk)).execute();
      });
    },

    /** Removes every template whose song is withdrawn or gone. */
    async removeOrphans(): Promise<void> {
      await trx.deleteFrom('song_templates').where('id', 'not in', trx.selectFrom('songs').select('id').where('withdrawn', '=', 0)).execute();
    },
  };
}

export type SongTemplatesRepo = ReturnType<typeof createSongTemplatesRepo>;
