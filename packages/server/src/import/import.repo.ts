import type { Kysely } from 'kysely';
import type { Database } from '../storage/database.ts';
import { inChunks } from '../storage/id-chunks.ts';
import type { Storage } from '../storage/storage.ts';

/**
 * What an import's batch reads and deletes besides its upserts (which go
 * through storage/bulk-upsert.ts), in the batch's transaction. Each method
 * takes any number of ids, a statement per chunk (storage/id-chunks.ts).
 */
export function createImportRepo(trx: Kysely<Database>, storage: Pick<Storage, 'idList'>) {
  const ids = (chunk: readonly string[]) => storage.idList(chunk);
  return {
    /** Which of these ids the table holds. */
    async storedIds(table: 'artists' | 'albums' | 'songs' | 'shows' | 'seasons', wanted: readonly string[]): Promise<Set<string>> {
      const rows = await inChunks(wanted, (chunk) => trx.selectFrom(table).select('id').where('id', 'in', ids(chunk)).execute());
      return new Set(rows.map((row) => row.id));
    },

    /** The show of each of these stored seasons. */
    showsOfSeasons(seasonIds: readonly string[]): Promise<{ id: string; show_id: string }[]> {
      return inChunks(seasonIds, (chunk) => trx.selectFrom('seasons').select(['id', 'show_id']).where('id', 'in', ids(chunk)).execute());
    },

    /** These songs as stored before the batch writes them: the album each is on. */
    storedAlbumsOfSongs(songIds: readonly string[]): Promise<{ id: string; album_id: string }[]> {
      return inChunks(songIds, (chunk) => trx.selectFrom('songs').select(['id', 'album_id']).where('id', 'in', ids(chunk)).execute());
    },

    /** Which of these songs have lyrics stored. */
    async songsWithLyrics(songIds: readonly string[]): Promise<string[]> {
      const rows = await inChunks(songIds, (chunk) => trx.selectFrom('lyrics').select('song_id').where('song_id', 'in', ids(chunk)).execute());
      return rows.map((row) => row.song_id);
    },

    /** Marks these stored songs as having lyrics (the flag only ever turns on: lyrics are never deleted). */
    async markHavingLyrics(songIds: readonly string[]): Promise<void> {
      await inChunks(songIds, async (chunk) => {
        await trx.updateTable('songs').set({ has_lyrics: 1 }).where('id', 'in', ids(chunk)).execute();
      });
    },

    /** Removes the credit rows of these songs (the batch writes them again). */
    async removeSongCredits(songIds: readonly string[]): Promise<void> {
      await inChunks(songIds, async (chunk) => {
        await trx.deleteFrom('song_artists').where('song_id', 'in', ids(chunk)).execute();
      });
    },

    /** Removes the credit rows of these albums (the batch writes them again). */
    async removeAlbumCredits(albumIds: readonly string[]): Promise<void> {
      await inChunks(albumIds, async (chunk) => {
        await trx.deleteFrom('album_artists').where('album_id', 'in', ids(chunk)).execute();
      });
    },
  };
}

export type ImportRepo = ReturnType<typeof createImportRepo>;
