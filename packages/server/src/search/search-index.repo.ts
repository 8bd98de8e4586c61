import type { Insertable, Kysely } from 'kysely';
import type { BulkUpsert } from '../storage/bulk-upsert.ts';
import type { Database } from '../storage/database.ts';
import { inChunks } from '../storage/id-chunks.ts';
import { popularityOf, type IndexedSongRow, type SearchKind } from './search-item.ts';

/** The settings key of the last segment id handed out (ids are never reused). */
const LAST_SEGMENT_ID = 'search_segment_id';

/** The catalog tables an index is built from. */
export type IndexedTable = 'artists' | 'albums' | 'songs' | 'shows' | 'movies';

/**
 * What keeps the search index in step with the catalog reads and writes, in
 * the caller's transaction (search-index.ts, segments.ts and the stored
 * format's rebuild). Searches read it through search.repo.ts. Methods that
 * take ids take any number of them, a statement per chunk.
 */
export function createSearchIndexRepo(trx: Kysely<Database>, upsert: BulkUpsert) {
  return {
    // The catalog, as the index reads it.

    /** Songs that credit these artists. */
    async songsCrediting(artistIds: readonly string[]): Promise<string[]> {
      return (await inChunks(artistIds, (chunk) => trx.selectFrom('song_artists').select('song_id').where('artist_id', 'in', chunk).execute())).map((row) => row.song_id);
    },

    /** Albums that credit these artists. */
    async albumsCrediting(artistIds: readonly string[]): Promise<string[]> {
      return (await inChunks(artistIds, (chunk) => trx.selectFrom('album_artists').select('album_id').where('artist_id', 'in', chunk).execute())).map((row) => row.album_id);
    },

    /** Songs on these albums. */
    async songsOnAlbums(albumIds: readonly string[]): Promise<string[]> {
      return (await inChunks(albumIds, (chunk) => trx.selectFrom('songs').select('id').where('album_id', 'in', chunk).execute())).map((row) => row.id);
    },

    /** These songs as stored, but the withdrawn. */
    liveSongs(ids: readonly string[]): Promise<IndexedSongRow[]> {
      return inChunks(ids, (chunk) => trx.selectFrom('songs').select(['id', 'title_i18n', 'artist_ids', 'album_id', 'popularity']).where('id', 'in', chunk).where('withdrawn', '=', 0).execute());
    },

    liveArtists(ids: readonly string[]) {
      return inChunks(ids, (chunk) => trx.selectFrom('artists').select(['id', 'name_i18n', 'monthly_listeners']).where('id', 'in', chunk).where('withdrawn', '=', 0).execute());
    },

    liveAlbums(ids: readonly string[]) {
      return inChunks(ids, (chunk) => trx.selectFrom('albums').select(['id', 'title_i18n', 'artist_ids']).where('id', 'in', chunk).where('withdrawn', '=', 0).execute());
    },

    /** These shows or films as stored, but the withdrawn: what they are found by, and their rank. */
    liveTitles(table: 'shows' | 'movies', ids: readonly string[]): Promise<{ id: string; title_i18n: string; cast_members: string; rating_rank: number }[]> {
      return inChunks(ids, (chunk) => trx.selectFrom(table).select(['id', 'title_i18n', 'cast_members', 'rating_rank']).where('id', 'in', chunk).where('withdrawn', '=', 0).execute());
    },

    /** Artists' names (their i18n JSON as `texts`), withdrawn or not. */
    artistNames(ids: readonly string[]): Promise<{ id: string; texts: string }[]> {
      return trx.selectFrom('artists').select(['id', 'name_i18n as texts']).where('id', 'in', [...ids]).execute();
    },

    /** Albums' titles (their i18n JSON as `texts`), withdrawn or not. */
    albumTitles(ids: readonly string[]): Promise<{ id: string; texts: string }[]> {
      return trx.selectFrom('albums').select(['id', 'title_i18n as texts']).where('id', 'in', [...ids]).execute();
    },

    /** Each album's popularity: its most popular song that is not withdrawn (albums without one are absent). */
    async albumPopularity(albumIds: readonly string[]): Promise<Map<string, number>> {
      const rows = await inChunks(albumIds, (chunk) =>
        trx.selectFrom('songs').select((eb) => ['album_id', eb.fn.max<number>('popularity').as('popularity')])
          .where('album_id', 'in', chunk).where('withdrawn', '=', 0).groupBy('album_id').execute());
      return new Map(rows.map((row) => [row.album_id, popularityOf(row.popularity)]));
    },

    /** How many items of a table are not withdrawn. */
    async countLive(table: IndexedTable): Promise<number> {
      const { count } = await trx.selectFrom(table).select((eb) => eb.fn.countAll<number | string>().as('count')).where('withdrawn', '=', 0).executeTakeFirstOrThrow();
      return Number(count);
    },

    /** The next `limit` ids of a table's live items, in id order after `after`. */
    async liveIdsAfter(table: IndexedTable, after: string, limit: number): Promise<string[]> {
      return (await trx.selectFrom(table).select('id').where('withdrawn', '=', 0).where('id', '>', after).orderBy('id').limit(limit).execute()).map((row) => row.id);
    },

    // The index.

    /** The popularity the index holds for these albums (albums it does not hold are absent). */
    indexedAlbumPopularity(albumIds: readonly string[]): Promise<{ item_id: string; popularity: number | string }[]> {
      return trx.selectFrom('search_items').select(['item_id', 'popularity']).where('kind', '=', 'album').where('item_id', 'in', [...albumIds]).execute();
    },

    /** Whether the index has any segment. */
    async hasSegments(): Promise<boolean> {
      return (await trx.selectFrom('search_segments').select('id').limit(1).executeTakeFirst()) !== undefined;
    },

    /** Empties the index. */
    async clear(): Promise<void> {
      for (const table of ['search_doclists', 'search_items', 'search_segments', 'search_vocabulary'] as const) await trx.deleteFrom(table).execute();
    },

    /** Removes these items' rows, answering where each was: its segment and number. */
    async removeItems(kind: SearchKind, ids: readonly string[]): Promise<{ segment: number; number: number }[]> {
      return inChunks(ids, async (chunk) => {
        const rows = await trx.selectFrom('search_items').select(['segment', 'number']).where('kind', '=', kind).where('item_id', 'in', chunk).execute();
        if (rows.length > 0) await trx.deleteFrom('search_items').where('kind', '=', kind).where('item_id', 'in', chunk).execute();
        return rows.map((row) => ({ segment: Number(row.segment), number: Number(row.number) }));
      });
    },

    /** Every segment's size and deletions, in id order (`ids`: only those). */
    async segments(ids?: readonly number[]): Promise<{ id: number; size: number; deleted: Uint8Array | null; deletedCount: number }[]> {
      let query = trx.selectFrom('search_segments').select(['id', 'size', 'deleted', 'deleted_count']).orderBy('id');
      if (ids !== undefined) query = query.where('id', 'in', [...ids]);
      return (await query.execute()).map((row) => ({ id: Number(row.id), size: Number(row.size), deleted: row.deleted, deletedCount: Number(row.deleted_count) }));
    },

    /** The segments after segment `after` (an import's), in id order. */
    async segmentsAfter(after: number): Promise<{ id: number; size: number }[]> {
      return (await trx.selectFrom('search_segments').select(['id', 'size']).where('id', '>', after).orderBy('id').execute())
        .map((row) => ({ id: Number(row.id), size: Number(row.size) }));
    },

    async saveSegments(rows: Insertable<Database['search_segments']>[]): Promise<void> {
      await upsert(trx, 'search_segments', ['id'], rows);
    },

    async saveItems(rows: Insertable<Database['search_items']>[]): Promise<void> {
      await upsert(trx, 'search_items', ['segment', 'number'], rows);
    },

    async saveDoclists(rows: Insertable<Database['search_doclists']>[]): Promise<void> {
      await upsert(trx, 'search_doclists', ['segment', 'chunk', 'word'], rows);
    },

    async saveVocabulary(rows: Insertable<Database['search_vocabulary']>[]): Promise<void> {
      await upsert(trx, 'search_vocabulary', ['word'], rows);
    },

    /** Removes these segments, their items and their postings. */
    async dropSegments(ids: readonly number[]): Promise<void> {
      if (ids.length === 0) return;
      await trx.deleteFrom('search_doclists').where('segment', 'in', [...ids]).execute();
      await trx.deleteFrom('search_items').where('segment', 'in', [...ids]).execute();
      await trx.deleteFrom('search_segments').where('id', 'in', [...ids]).execute();
    },

    /** A segment's items, by number. */
    async segmentItems(segment: number): Promise<{ number: number; kind: SearchKind; id: string; popularity: number }[]> {
      return (await trx.selectFrom('search_items').select(['number', 'kind', 'item_id', 'popularity']).where('segment', '=', segment).orderBy('number').execute())
        .map((row) => ({ number: Number(row.number), kind: row.kind as SearchKind, id: row.item_id, popularity: popularityOf(row.popularity) }));
    },

    /** A segment's stored chunks of postings. */
    async segmentDoclists(segment: number): Promise<{ chunk: number; word: string; offsets: Uint8Array }[]> {
      return (await trx.selectFrom('search_doclists').select(['chunk', 'word', 'offsets']).where('segment', '=', segment).execute())
        .map((row) => ({ chunk: Number(row.chunk), word: row.word, offsets: row.offsets }));
    },

    /** The id of the last segment handed out (0 for none). */
    async lastSegmentId(): Promise<number> {
      const row = await trx.selectFrom('settings').select('value').where('key', '=', LAST_SEGMENT_ID).executeTakeFirst();
      return Number(row?.value ?? 0);
    },

    async setLastSegmentId(id: number): Promise<void> {
      await upsert(trx, 'settings', ['key'], [{ key: LAST_SEGMENT_ID, value: String(id) }]);
    },
  };
}

export type SearchIndexRepo = ReturnType<typeof createSearchIndexRepo>;
