import type { Storage } from '../storage/storage.ts';
import type { ViewerCap } from '../video/age-rating.ts';
import type { PlayRow } from '../library/history.repo.ts';

/** A catalog text as stored: its texts by language and the language it was written in; null where the catalog has no such item. */
export interface StoredTitle {
  readonly texts: string | null;
  readonly language: string | null;
}

export interface ExportedUserRow {
  readonly id: string;
  readonly username: string;
  readonly createdAt: number;
  readonly maxAgeRating: string | null;
}

export type SavedKind = 'song' | 'album' | 'artist';
export interface SavedRow extends StoredTitle {
  readonly id: string;
  readonly savedAt: number;
}

/** A play as the history keeps it, with its song's title. */
export interface PlayExportRow extends PlayRow, StoredTitle {}

export interface PlaylistExportRow {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly visibility: 'PLAYLIST_VISIBILITY_PRIVATE' | 'PLAYLIST_VISIBILITY_PUBLIC';
  readonly createdAt: number;
  readonly updatedAt: number;
  readonly version: string;
}

export interface PlaylistItemExportRow extends StoredTitle {
  readonly itemId: string;
  readonly orderKey: string;
  readonly songId: string;
  readonly addedAt: number;
}

export type WatchedKind = 'movie' | 'episode';
export interface WatchPositionRow extends StoredTitle {
  readonly kind: WatchedKind;
  readonly id: string;
  readonly positionMs: number;
  readonly updatedAt: number;
  readonly finished: boolean;
  readonly hidden: boolean;
}

/** Where each kind's titles are, and the column that holds them. */
const TITLE_OF = {
  song: { table: 'songs', column: 'title_i18n' },
  album: { table: 'albums', column: 'title_i18n' },
  artist: { table: 'artists', column: 'name_i18n' },
  movie: { table: 'movies', column: 'title_i18n' },
  episode: { table: 'episodes', column: 'title_i18n' },
} as const;

const title = (row: { texts: string | null; language: string | null }): StoredTitle => ({ texts: row.texts, language: row.language });

/**
 * One user's rows, read for their export in keyset pages: each page seeks to
 * where the last one ended, so a user with years of plays is read a page at
 * a time, in bounded memory, whatever their count. Every query is bounded
 * to the user's own rows (a playlist's entries: one of their playlists).
 */
export function createExportRepo(storage: Pick<Storage, 'db' | 'inByteOrder'>) {
  const { db } = storage;
  return {
    async user(userId: string): Promise<ExportedUserRow | undefined> {
      const row = await db.selectFrom('users').select(['id', 'username', 'created_at', 'max_age_rating']).where('id', '=', userId).executeTakeFirst();
      return row && { id: row.id, username: row.username, createdAt: Number(row.created_at), maxAgeRating: row.max_age_rating };
    },

    /** Every language some catalog text is written in (what locale negotiation matches against). */
    async catalogLanguages(): Promise<string[]> {
      return (await db.selectFrom('catalog_languages').select('tag').execute()).map((row) => row.tag);
    },

    /** A page of the user's saved items of one kind, newest first then id, after `after`. */
    async saved(userId: string, kind: SavedKind, after: readonly [number, string] | null, limit: number): Promise<SavedRow[]> {
      const { table, column } = TITLE_OF[kind];
      // The titles' table depends on the kind: typed as one of them (they share the columns read).
      let query = db.selectFrom('library_items as l')
        .leftJoin(`${table as 'songs'} as t`, 't.id', 'l.item_id')
        .select(['l.item_id', 'l.saved_at', `t.${column as 'title_i18n'} as texts`, 't.original_language as language'])
        .where('l.user_id', '=', userId).where('l.kind', '=', kind);
      if (after !== null) {
        const [savedAt, id] = after;
        query = query.where((eb) => eb.or([eb('l.saved_at', '<', savedAt), eb.and([eb('l.saved_at', '=', savedAt), eb('l.item_id', '>', id)])]));
      }
      const rows = await query.orderBy('l.saved_at', 'desc').orderBy('l.item_id').limit(limit).execute();
      return rows.map((row) => ({ id: row.item_id, savedAt: Number(row.saved_at), ...title(row) }));
    },

    /**
     * A page of the user's counted plays (or of their skips), newest first then playId, after `after`: the rest of
     * the plays of the position's time, then the older ones, each a range of play_history_by_time found by seeking
     * (one condition with an OR could not be sought; history.repo.ts says what that cost). Counted plays and skips
     * are two walks of that index: across both, a condition on the time alone let SQLite walk the primary key.
     */
    async plays(userId: string, counted: boolean, after: readonly [number, string] | null, limit: number): Promise<PlayExportRow[]> {
      const plays = () => db.selectFrom('play_history as p').leftJoin('songs as s', 's.id', 'p.song_id')
        .select(['p.play_id', 'p.song_id', 'p.started_at', 'p.ms_played', 'p.counted', 'p.context', 's.title_i18n as texts', 's.original_language as language'])
        .where('p.user_id', '=', userId).where('p.counted', '=', counted ? 1 : 0);
      let rows;
      if (after === null) {
        rows = await plays().orderBy('p.started_at', 'desc').orderBy('p.play_id').limit(limit).execute();
      } else {
        const [startedAt, playId] = after;
        const sameTime = await plays().where('p.started_at', '=', startedAt).where('p.play_id', '>', playId).orderBy('p.play_id').limit(limit).execute();
        const older = sameTime.length === limit ? [] : await plays().where('p.started_at', '<', startedAt).orderBy('p.started_at', 'desc').orderBy('p.play_id').limit(limit - sameTime.length).execute();
        rows = [...sameTime, ...older];
      }
      return rows.map((row) => ({
        playId: row.play_id, songId: row.song_id, startedAt: Number(row.started_at), msPlayed: row.ms_played, counted: row.counted === 1, context: row.context, ...title(row),
      }));
    },

    /** A page of the user's own playlists, newest first then id, after `after`. */
    async playlists(userId: string, after: readonly [number, string] | null, limit: number): Promise<PlaylistExportRow[]> {
      let query = db.selectFrom('playlists').select(['id', 'name', 'description', 'visibility', 'created_at', 'updated_at', 'version']).where('owner_id', '=', userId);
      if (after !== null) {
        const [createdAt, id] = after;
        query = query.where((eb) => eb.or([eb('created_at', '<', createdAt), eb.and([eb('created_at', '=', createdAt), eb('id', '>', id)])]));
      }
      const rows = await query.orderBy('created_at', 'desc').orderBy('id').limit(limit).execute();
      return rows.map((row) => ({
        id: row.id, name: row.name, description: row.description, visibility: row.visibility, createdAt: Number(row.created_at), updatedAt: Number(row.updated_at), version: String(row.version),
      }));
    },

    /** A page of one of the user's playlists' entries in its order (order keys compared by their bytes), after the entry with `afterKey`. */
    async playlistItems(userId: string, playlistId: string, afterKey: readonly [string, string] | null, limit: number): Promise<PlaylistItemExportRow[]> {
      let query = db.selectFrom('playlist_items as i')
        .innerJoin('playlists as p', 'p.id', 'i.playlist_id')
        .leftJoin('songs as s', 's.id', 'i.song_id')
        .select(['i.item_id', 'i.order_key', 'i.song_id', 'i.added_at', 's.title_i18n as texts', 's.original_language as language'])
        .where('i.playlist_id', '=', playlistId).where('p.owner_id', '=', userId);
      const orderKey = storage.inByteOrder('i.order_key');
      if (afterKey !== null) {
        const [key, itemId] = afterKey;
        query = query.where((eb) => eb.or([eb(orderKey, '>', key), eb.and([eb(orderKey, '=', key), eb('i.item_id', '>', itemId)])]));
      }
      const rows = await query.orderBy(orderKey).orderBy('i.item_id').limit(limit).execute();
      return rows.map((row) => ({ itemId: row.item_id, orderKey: row.order_key, songId: row.song_id, addedAt: Number(row.added_at), ...title(row) }));
    },

    /**
     * A page of the user's viewing positions, latest first (then kind and id), after `after`: of the titles
     * their parental cap admits, as continue watching lists them (video/age-rating.ts: an episode by the higher
     * of its rank and its show's), so a cap lowered later hides a title here as on every other surface.
     */
    async watchPositions(userId: string, cap: ViewerCap, after: readonly [number, WatchedKind, string] | null, limit: number): Promise<WatchPositionRow[]> {
      let query = db.selectFrom('watch_progress as w')
        .leftJoin('movies as m', (join) => join.onRef('m.id', '=', 'w.title_id').on('w.title_kind', '=', 'movie'))
        .leftJoin('episodes as e', (join) => join.onRef('e.id', '=', 'w.title_id').on('w.title_kind', '=', 'episode'))
        .leftJoin('seasons as se', 'se.id', 'e.season_id')
        .leftJoin('shows as sh', 'sh.id', 'se.show_id')
        .select(['w.title_kind', 'w.title_id', 'w.position_ms', 'w.updated_at', 'w.finished', 'w.hidden',
          'm.title_i18n as movie_texts', 'm.original_language as movie_language', 'e.title_i18n as episode_texts', 'e.original_language as episode_language'])
        .where('w.user_id', '=', userId)
        .where((eb) => eb.or([
          eb.and([eb('w.title_kind', '=', 'movie'), eb('m.rating_rank', '<=', cap)]),
          eb.and([eb('w.title_kind', '=', 'episode'), eb('e.rating_rank', '<=', cap), eb('sh.rating_rank', '<=', cap)]),
        ]));
      if (after !== null) {
        const [updatedAt, kind, id] = after;
        query = query.where((eb) => eb.or([
          eb('w.updated_at', '<', updatedAt),
          eb.and([eb('w.updated_at', '=', updatedAt), eb.or([eb('w.title_kind', '>', kind), eb.and([eb('w.title_kind', '=', kind), eb('w.title_id', '>', id)])])]),
        ]));
      }
      const rows = await query.orderBy('w.updated_at', 'desc').orderBy('w.title_kind').orderBy('w.title_id').limit(limit).execute();
      return rows.map((row) => ({
        kind: row.title_kind, id: row.title_id, positionMs: row.position_ms, updatedAt: Number(row.updated_at), finished: row.finished === 1, hidden: row.hidden === 1,
        texts: row.title_kind === 'movie' ? row.movie_texts : row.episode_texts,
        language: row.title_kind === 'movie' ? row.movie_language : row.episode_language,
      }));
    },
  };
}

export type ExportRepo = ReturnType<typeof createExportRepo>;
