import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database, PlaylistsTable } from '../storage/database.ts';
import { marker, precompiledLookup, precompiledQuery, type Storage } from '../storage/storage.ts';
import type { UserWriteSession } from '../library/user-write.ts';

export type Visibility = PlaylistsTable['visibility'];

/** A playlist's row, with its owner's name. */
export interface PlaylistRow {
  readonly id: string;
  readonly ownerId: string;
  readonly ownerName: string;
  readonly name: string;
  readonly description: string;
  readonly visibility: Visibility;
  readonly createdAt: number;
  readonly updatedAt: number;
  readonly version: number;
  readonly itemCount: number;
  readonly totalDurationMs: number;
  readonly coverAlbumIds: readonly string[];
}

/** An entry of a playlist, where it stands. */
export interface EntryRow {
  readonly itemId: string;
  /** Where it stands (order-keys.ts): a key never changes while its entry stays where it is. */
  readonly orderKey: string;
  readonly songId: string;
  readonly addedAt: number;
  readonly placedVersion: number;
}

/** An entry to write: its song, and its duration when added. */
export interface NewEntry extends EntryRow {
  readonly durationMs: number;
}

/** A song an entry may name: shown by the catalog, with what the playlist keeps of it. */
export interface PlayableSong {
  readonly durationMs: number;
}

/**
 * What a write sets on a playlist's row (its version and time always), by
 * the row's own names: the row after the write is `{ ...row, ...changes }`.
 */
export type PlaylistChanges = Pick<PlaylistRow, 'version' | 'updatedAt'>
  & Partial<Pick<PlaylistRow, 'name' | 'description' | 'visibility' | 'itemCount' | 'totalDurationMs' | 'coverAlbumIds'>>;

/** How many distinct albums a cover is drawn from, and how many entries are read at a time to find them. */
const COVER_ALBUMS = 4;
const COVER_SCAN = 64;

type Executor = Kysely<Database> | Transaction<Database>;

const playlistColumns = [
  'p.id', 'p.owner_id', 'u.username', 'p.name', 'p.description', 'p.visibility', 'p.created_at', 'p.updated_at',
  'p.version', 'p.item_count', 'p.total_duration_ms', 'p.cover_album_ids',
] as const;

function playlistOf(row: {
  id: string; owner_id: string; username: string; name: string; description: string; visibility: Visibility; created_at: number | string;
  updated_at: number | string; version: number | string; item_count: number; total_duration_ms: number | string; cover_album_ids: string;
}): PlaylistRow {
  return {
    id: row.id,
    ownerId: row.owner_id,
    ownerName: row.username,
    name: row.name,
    description: row.description,
    visibility: row.visibility,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
    version: Number(row.version),
    itemCount: Number(row.item_count),
    totalDurationMs: Number(row.total_duration_ms),
    coverAlbumIds: JSON.parse(row.cover_album_ids) as string[],
  };
}

const entryOf = (row: { item_id: string; order_key: string; song_id: string; added_at: number | string; placed_version: number | string }): EntryRow => ({
  itemId: row.item_id, orderKey: row.order_key, songId: row.song_id, addedAt: Number(row.added_at), placedVersion: Number(row.placed_version),
});

type RepoStorage = Pick<Storage, 'db' | 'dialect' | 'idList' | 'idRows' | 'idListParameter'>;

const entryColumns = ['item_id', 'order_key', 'song_id', 'added_at', 'placed_version'] as const;

/**
 * The reads a playlist's pages and its writes share, each compiled once
 * (storage.ts, precompiledQuery) and run in the caller's transaction.
 */
function playlistReads(storage: RepoStorage): (executor: Executor) => PlaylistRead {
  const { db } = storage;
  const findQuery = precompiledLookup(db, (id) => db.selectFrom('playlists as p').innerJoin('users as u', 'u.id', 'p.owner_id').select(playlistColumns).where('p.id', '=', id));
  const inOrder = (playlistId: string) => db.selectFrom('playlist_items').select(entryColumns).where('playlist_id', '=', playlistId);
  const firstEntries = precompiledQuery(db, (playlistId: string, limit: number) => inOrder(playlistId).orderBy('order_key').orderBy('item_id').limit(limit),
    [marker.text(0), marker.number(1)]);
  const entriesAfterKey = precompiledQuery(db, (playlistId: string, afterKey: string, limit: number) =>
    inOrder(playlistId).where('order_key', '>', afterKey).orderBy('order_key').orderBy('item_id').limit(limit), [marker.text(0), marker.text(1), marker.number(2)]);
  const counted = (playlistId: string) => db.selectFrom('playlist_items').select((eb) => eb.fn.countAll<number | string>().as('n')).where('playlist_id', '=', playlistId);
  const countBeforeQuery = precompiledQuery(db, (playlistId: string, key: string) => counted(playlistId).where('order_key', '<', key), [marker.text(0), marker.text(1)]);
  const countUpToQuery = precompiledQuery(db, (playlistId: string, key: string) => counted(playlistId).where('order_key', '<=', key), [marker.text(0), marker.text(1)]);
  // Each entry by its key (Storage.idRows says why not IN).
  const byIdQuery = precompiledQuery(db, (playlistId: string, itemIds: readonly string[]) => db.selectFrom(storage.idRows(itemIds)).crossJoin('playlist_items as pi')
    .select(['pi.item_id', 'pi.order_key', 'pi.song_id', 'pi.added_at', 'pi.placed_version'])
    .where('pi.playlist_id', '=', playlistId).whereRef('pi.item_id', '=', 'wanted.value'),
  [marker.text(0), [marker.text(1)]], ([playlistId, itemIds]) => [playlistId, storage.idListParameter(itemIds)]);

  return (executor) => ({
    async find(id) {
      const [row] = await findQuery.on(executor)(id);
      return row && playlistOf(row);
    },
    async entriesAfter(playlistId, afterKey, limit) {
      const rows = afterKey === null ? await firstEntries.on(executor)(playlistId, limit) : await entriesAfterKey.on(executor)(playlistId, afterKey, limit);
      return rows.map(entryOf);
    },
    async countBefore(playlistId, key) {
      const [row] = await countBeforeQuery.on(executor)(playlistId, key);
      return Number(row!.n);
    },
    async countUpTo(playlistId, key) {
      const [row] = await countUpToQuery.on(executor)(playlistId, key);
      return Number(row!.n);
    },
    async entriesById(playlistId, itemIds) {
      if (itemIds.length === 0) return [];
      return (await byIdQuery.on(executor)(playlistId, itemIds)).map(entryOf);
    },
  });
}

function writeSession(storage: RepoStorage, reads: PlaylistRead, trx: Transaction<Database>, user: UserWriteSession) {
  return {
    record: user.record,
    find: reads.find,
    countBefore: reads.countBefore,
    countUpTo: reads.countUpTo,
    entriesById: reads.entriesById,

    async countOwned(userId: string): Promise<number> {
      const row = await trx.selectFrom('playlists').select((eb) => eb.fn.countAll<number | string>().as('n')).where('owner_id', '=', userId).executeTakeFirstOrThrow();
      return Number(row.n);
    },

    async insert(playlist: { id: string; ownerId: string; name: string; description: string; visibility: Visibility; now: number; version: number }): Promise<void> {
      await trx.insertInto('playlists').values({
        id: playlist.id, owner_id: playlist.ownerId, name: playlist.name, description: playlist.description, visibility: playlist.visibility,
        created_at: playlist.now, updated_at: playlist.now, version: playlist.version, item_count: 0, total_duration_ms: 0, cover_album_ids: '[]',
      }).execute();
    },

    async update(id: string, changes: PlaylistChanges): Promise<void> {
      await trx.updateTable('playlists').set({
        version: changes.version,
        updated_at: changes.updatedAt,
        ...(changes.name !== undefined && { name: changes.name }),
        ...(changes.description !== undefined && { description: changes.description }),
        ...(changes.visibility !== undefined && { visibility: changes.visibility }),
        ...(changes.itemCount !== undefined && { item_count: changes.itemCount }),
        ...(changes.totalDurationMs !== undefined && { total_duration_ms: changes.totalDurationMs }),
        ...(changes.coverAlbumIds !== undefined && { cover_album_ids: JSON.stringify(changes.coverAlbumIds) }),
      }).where('id', '=', id).execute();
    },

    async delete(id: string): Promise<void> {
      await trx.deleteFrom('playlists').where('id', '=', id).execute();
    },

    /** The songs of these ids the catalog shows, with their durations. */
    async playableSongs(songIds: readonly string[]): Promise<Map<string, PlayableSong>> {
      if (songIds.length === 0) return new Map();
      const rows = await trx.selectFrom('songs').select(['id', 'duration_ms']).where('id', 'in', storage.idList(songIds)).where('withdrawn', '=', 0).execute();
      return new Map(rows.map((row) => [row.id, { durationMs: Number(row.duration_ms) }]));
    },

    /** The key of the last entry before `key` (before the end when null), leaving out `excluding`; null when there is none. */
    async keyBefore(playlistId: string, key: string | null, excluding: readonly string[] = []): Promise<string | null> {
      let query = trx.selectFrom('playlist_items').select('order_key').where('playlist_id', '=', playlistId);
      if (key !== null) query = query.where('order_key', '<', key);
      if (excluding.length > 0) query = query.where('item_id', 'not in', storage.idList(excluding));
      const row = await query.orderBy('order_key', 'desc').limit(1).executeTakeFirst();
      return row === undefined ? null : row.order_key;
    },

    async insertEntries(playlistId: string, entries: readonly NewEntry[]): Promise<void> {
      if (entries.length === 0) return;
      await trx.insertInto('playlist_items').values(entries.map((entry) => ({
        playlist_id: playlistId, item_id: entry.itemId, order_key: entry.orderKey, song_id: entry.songId,
        duration_ms: entry.durationMs, added_at: entry.addedAt, placed_version: entry.placedVersion,
      }))).execute();
    },

    /**
     * Gives these entries new keys, and the version that placed them, in one
     * statement: a move changes only where they stand (their order index
     * entries and their rows), not the primary key's.
     */
    async place(playlistId: string, keys: ReadonlyMap<string, string>, placedVersion: number): Promise<void> {
      if (keys.size === 0) return;
      const rows = sql.join([...keys].map(([itemId, key]) => sql`(${itemId}, cast(${key} as text))`));
      await sql`with placed (item_id, order_key) as (values ${rows})
        update playlist_items set order_key = placed.order_key, placed_version = ${placedVersion}
        from placed where playlist_items.playlist_id = ${playlistId} and playlist_items.item_id = placed.item_id`.execute(trx);
    },

    /** Deletes these entries; answers those there were, with their songs' durations. */
    async deleteEntries(playlistId: string, itemIds: readonly string[]): Promise<NewEntry[]> {
      if (itemIds.length === 0) return [];
      const rows = await trx.deleteFrom('playlist_items').where('playlist_id', '=', playlistId).where('item_id', 'in', storage.idList(itemIds))
        .returning(['item_id', 'order_key', 'song_id', 'added_at', 'placed_version', 'duration_ms']).execute();
      return rows.map((row) => ({ ...entryOf(row), durationMs: Number(row.duration_ms) }));
    },

    async deleteAllEntries(playlistId: string): Promise<void> {
      await trx.deleteFrom('playlist_items').where('playlist_id', '=', playlistId).execute();
    },

    /** The first four distinct albums of the playlist's shown songs, in order: what its cover is drawn from. */
    async coverAlbums(playlistId: string): Promise<readonly string[]> {
      const albums: string[] = [];
      let after: { key: string; itemId: string } | null = null;
      for (;;) {
        let query = trx.selectFrom('playlist_items as pi').innerJoin('songs as s', 's.id', 'pi.song_id')
          .select(['pi.order_key', 'pi.item_id', 's.album_id']).where('pi.playlist_id', '=', playlistId).where('s.withdrawn', '=', 0);
        if (after !== null) {
          const { key, itemId } = after;
          query = query.where((eb) => eb.or([eb('pi.order_key', '>', key), eb.and([eb('pi.order_key', '=', key), eb('pi.item_id', '>', itemId)])]));
        }
        const rows = await query.orderBy('pi.order_key').orderBy('pi.item_id').limit(COVER_SCAN).execute();
        for (const row of rows) {
          if (!albums.includes(row.album_id)) albums.push(row.album_id);
          if (albums.length === COVER_ALBUMS) break;
        }
        const last = rows[rows.length - 1];
        if (albums.length === COVER_ALBUMS || rows.length < COVER_SCAN || last === undefined) break;
        after = { key: last.order_key, itemId: last.item_id };
      }
      return albums;
    },
  };
}

/**
 * Playlists and their entries (contract section 14). Writes go through the
 * owner's library write (writeAsUser): a user's writes take turns on any node,
 * so a write reads the playlist it changes as no other write can change it,
 * and its change is numbered in the user's feed. Reads run in one
 * repeatable-read transaction: a playlist and its entries as of one commit.
 */
export function createPlaylistsRepo(storage: RepoStorage) {
  const { db } = storage;
  const reads = playlistReads(storage);
  // owned()'s queries, compiled once.
  const owner = (userId: string) => db.selectFrom('playlists as p').innerJoin('users as u', 'u.id', 'p.owner_id').select(playlistColumns).where('p.owner_id', '=', userId);
  const newestFirst = (query: ReturnType<typeof owner>, limit: number) => query.orderBy('p.created_at', 'desc').orderBy('p.id').limit(limit);
  const ownedFirst = precompiledQuery(db, (userId: string, limit: number) => newestFirst(owner(userId), limit), [marker.text(0), marker.number(1)]);
  const ownedAfter = precompiledQuery(db, (userId: string, createdAt: number, id: string, limit: number) => newestFirst(owner(userId)
    .where('p.created_at', '<=', createdAt)
    .where((eb) => eb.or([eb('p.created_at', '<', createdAt), eb.and([eb('p.created_at', '=', createdAt), eb('p.id', '>', id)])])), limit),
  [marker.text(0), marker.number(1), marker.text(2), marker.number(3)]);

  return {
    /** The user's playlists within one of their writes (user-write.ts), on its transaction. */
    within: (session: UserWriteSession): PlaylistWrite => writeSession(storage, reads(session.trx), session.trx, session),

    /**
     * Runs `work` on one snapshot: every read in it sees the database as of
     * one commit (SQLite's read transaction; PostgreSQL's repeatable read).
     */
    read<T>(work: (read: PlaylistRead) => Promise<T>): Promise<T> {
      return db.transaction().setIsolationLevel('repeatable read').execute((trx) => work(reads(trx)));
    },

    /** A page of the user's playlists, newest first, then id; `limit` at most. */
    async owned(userId: string, after: readonly [createdAt: number, id: string] | null, limit: number): Promise<PlaylistRow[]> {
      const rows = after === null ? await ownedFirst(userId, limit) : await ownedAfter(userId, after[0], after[1], limit);
      return rows.map(playlistOf);
    },
  };
}

/** What a read of playlists may do, on one snapshot (PlaylistsRepo.read). */
export interface PlaylistRead {
  find(id: string): Promise<PlaylistRow | undefined>;
  /** `limit` entries after the one at `afterKey` (from the start when null), in order. */
  entriesAfter(playlistId: string, afterKey: string | null, limit: number): Promise<EntryRow[]>;
  /** How many entries stand before the key: the position of the entry at it. */
  countBefore(playlistId: string, key: string): Promise<number>;
  /** How many entries stand at `key` or before it. */
  countUpTo(playlistId: string, key: string): Promise<number>;
  /** These entries of the playlist, by id. */
  entriesById(playlistId: string, itemIds: readonly string[]): Promise<EntryRow[]>;
}

/** What one playlist write may do, inside the owner's write transaction (PlaylistsRepo.within). */
export type PlaylistWrite = ReturnType<typeof writeSession>;

export type PlaylistsRepo = ReturnType<typeof createPlaylistsRepo>;
