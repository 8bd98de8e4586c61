import { sql } from 'kysely';
import type { Database, PlaylistsTable } from '../storage/database.ts';
import { marker, precompiledLookup, precompiledQuery, type Storage } from '../storage/storage.ts';
import type { UserWriteSession } from '../library/user-write.ts';
import { answered, answersOf, read, statementsOf, type Answers, type InPhases, type Read } from '../storage/phases.ts';

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
  readonly albumId: string;
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

type RepoStorage = Pick<Storage, 'db' | 'dialect' | 'idList' | 'idRows' | 'idListParameter' | 'inPhases'>;

const entryColumns = ['item_id', 'order_key', 'song_id', 'added_at', 'placed_version'] as const;

/**
 * The reads of a playlist's pages, each compiled once (storage.ts,
 * precompiledQuery), for a snapshot to ask together (PlaylistsRepo.read).
 */
function playlistReads(storage: RepoStorage) {
  const { db } = storage;
  const findQuery = precompiledLookup(db, (id) => db.selectFrom('playlists as p').innerJoin('users as u', 'u.id', 'p.owner_id').select(playlistColumns).where('p.id', '=', id));
  const inOrder = (playlistId: string) => db.selectFrom('playlist_items').select(entryColumns).where('playlist_id', '=', playlistId);
  const firstEntries = precompiledQuery(db, (playlistId: string, limit: number) => inOrder(playlistId).orderBy('order_key').orderBy('item_id').limit(limit),
    [marker.text(0), marker.number(1)]);
  const entriesAfterKey = precompiledQuery(db, (playlistId: string, afterKey: string, limit: number) =>
    inOrder(playlistId).where('order_key', '>', afterKey).orderBy('order_key').orderBy('item_id').limit(limit), [marker.text(0), marker.text(1), marker.number(2)]);
  const countUpToQuery = precompiledQuery(db, (playlistId: string, key: string) => db.selectFrom('playlist_items')
    .select((eb) => eb.fn.countAll<number | string>().as('n')).where('playlist_id', '=', playlistId).where('order_key', '<=', key), [marker.text(0), marker.text(1)]);
  // Each entry by its key (Storage.idRows says why not IN).
  const byIdQuery = precompiledQuery(db, (playlistId: string, itemIds: readonly string[]) => db.selectFrom(storage.idRows(itemIds)).crossJoin('playlist_items as pi')
    .select(['pi.item_id', 'pi.order_key', 'pi.song_id', 'pi.added_at', 'pi.placed_version'])
    .where('pi.playlist_id', '=', playlistId).whereRef('pi.item_id', '=', 'wanted.value'),
  [marker.text(0), [marker.text(1)]], ([playlistId, itemIds]) => [playlistId, storage.idListParameter(itemIds)]);

  return {
    find: (id: string) => read(findQuery.compiled(id), ([row]) => row && playlistOf(row)),
    entriesAfter: (playlistId: string, afterKey: string | null, limit: number) =>
      read(afterKey === null ? firstEntries.compiled(playlistId, limit) : entriesAfterKey.compiled(playlistId, afterKey, limit), (rows) => rows.map(entryOf)),
    countUpTo: (playlistId: string, key: string) => read(countUpToQuery.compiled(playlistId, key), ([row]) => Number(row!.n)),
    entriesById: (playlistId: string, itemIds: readonly string[]) =>
      (itemIds.length === 0 ? answered([] as EntryRow[]) : read(byIdQuery.compiled(playlistId, itemIds), (rows) => rows.map(entryOf))),
  };
}

/** An entry as a playlist's cover sees it: where it stands and its song's album (coverAlbums). */
export interface CoverEntry {
  readonly orderKey: string;
  readonly itemId: string;
  readonly albumId: string;
}

/** An entry a write names, with what a write needs of it: its song's length and album, and whether the catalog shows it. */
export interface NamedEntry extends EntryRow, CoverEntry {
  readonly durationMs: number;
  readonly shown: boolean;
}

/** Where entries go before an entry (`spot`): its key, the key before it (null: none), and how many entries stand before it. */
export interface Spot {
  readonly key: string;
  readonly keyBefore: string | null;
  readonly countBefore: number;
}

/**
 * One playlist write's reads and statements, within the owner's write
 * (user-write.ts): each read is a Read, for the service to ask together
 * with the others it needs (one round trip on PostgreSQL), and each change
 * is written, to run at the write's end. The reads are compiled once
 * (storage.ts, precompiledQuery), a shape each.
 */
function writeSessions(storage: RepoStorage, reads: ReturnType<typeof playlistReads>) {
  const { db } = storage;
  const idList = (n: number) => [marker.text(n)];
  const ownerQuery = precompiledLookup(db, (userId) => db.selectFrom('users as u').select(['u.username', (eb) => eb.selectFrom('playlists')
    .select((inner) => inner.fn.countAll<number | string>().as('n')).where('owner_id', '=', userId).as('owned')]).where('u.id', '=', userId));
  const playableQuery = precompiledQuery(db, (songIds: readonly string[]) =>
    db.selectFrom('songs').select(['id', 'duration_ms', 'album_id']).where('id', 'in', storage.idList(songIds)).where('withdrawn', '=', 0),
  [idList(0)], ([songIds]) => [storage.idListParameter(songIds)]);
  // Each entry by its key (Storage.idRows says why not IN).
  const entriesQuery = precompiledQuery(db, (playlistId: string, itemIds: readonly string[]) =>
    db.selectFrom(storage.idRows(itemIds)).crossJoin('playlist_items as pi').innerJoin('songs as s', 's.id', 'pi.song_id')
      .select(['pi.item_id', 'pi.order_key', 'pi.song_id', 'pi.added_at', 'pi.placed_version', 'pi.duration_ms', 's.album_id', 's.withdrawn'])
      .where('pi.playlist_id', '=', playlistId).whereRef('pi.item_id', '=', 'wanted.value'),
  [marker.text(0), idList(1)], ([playlistId, itemIds]) => [playlistId, storage.idListParameter(itemIds)]);

  // Where entries go (spot): at the end, the last key; before an entry, its key, the key before it and, for an add
  // (whose answer says where its entries stand), how many stand before it. Each leaving out the entries moved, or not.
  const lastKey = (excluding: boolean) => precompiledQuery(db, (playlistId: string, moved: readonly string[]) => {
    const keys = db.selectFrom('playlist_items as k').select('k.order_key').where('k.playlist_id', '=', playlistId);
    return (excluding ? keys.where('k.item_id', 'not in', storage.idList(moved)) : keys).orderBy('k.order_key', 'desc').limit(1);
  }, [marker.text(0), idList(1)], ([playlistId, moved]) => (excluding ? [playlistId, storage.idListParameter(moved)] : [playlistId]));
  const keyThere = (excluding: boolean, counting: boolean) => precompiledQuery(db, (playlistId: string, itemId: string, moved: readonly string[]) =>
    db.selectFrom('playlist_items as t').select((eb) => {
      const before = eb.selectFrom('playlist_items as k').select('k.order_key').where('k.playlist_id', '=', playlistId).whereRef('k.order_key', '<', 't.order_key');
      return [
        't.order_key',
        (excluding ? before.where('k.item_id', 'not in', storage.idList(moved)) : before).orderBy('k.order_key', 'desc').limit(1).as('key_before'),
        counting
          ? eb.selectFrom('playlist_items as b').select((inner) => inner.fn.countAll<number | string>().as('n')).where('b.playlist_id', '=', playlistId)
            .whereRef('b.order_key', '<', 't.order_key').as('count_before')
          : eb.lit(0).as('count_before'),
      ];
    }).where('t.playlist_id', '=', playlistId).where('t.item_id', '=', itemId),
  [marker.text(0), marker.text(1), idList(2)], ([playlistId, itemId, moved]) => (excluding ? [playlistId, itemId, storage.idListParameter(moved)] : [playlistId, itemId]));
  const spotQueries = {
    end: [lastKey(false), lastKey(true)],
    before: [[keyThere(false, false), keyThere(false, true)], [keyThere(true, false), keyThere(true, true)]],
  };

  // The first shown entries for the cover (coverScan): leaving out some or not, a page of them or all.
  const shownEntries = (excluding: boolean, limited: boolean) => precompiledQuery(db, (playlistId: string, moved: readonly string[], limit: number) => {
    let shown = db.selectFrom('playlist_items as pi').innerJoin('songs as s', 's.id', 'pi.song_id')
      .select(['pi.order_key', 'pi.item_id', 's.album_id']).where('pi.playlist_id', '=', playlistId).where('s.withdrawn', '=', 0);
    if (excluding) shown = shown.where('pi.item_id', 'not in', storage.idList(moved));
    shown = shown.orderBy('pi.order_key').orderBy('pi.item_id');
    return limited ? shown.limit(limit) : shown;
  }, [marker.text(0), idList(1), marker.number(2)], ([playlistId, moved, limit]) => [playlistId, ...(excluding ? [storage.idListParameter(moved)] : []), ...(limited ? [limit] : [])]);
  const coverQueries = [[shownEntries(false, false), shownEntries(false, true)], [shownEntries(true, false), shownEntries(true, true)]];

  return (session: UserWriteSession) => writeSession(storage, session, {
    find: reads.find,

    /** How many playlists the user has, and their name. */
    owner: (userId: string) => read(ownerQuery.compiled(userId), ([row]) => ({ name: row?.username ?? '', owned: Number(row?.owned ?? 0) })),

    /** The songs of these ids the catalog shows, with their lengths and albums. */
    playableSongs: (songIds: readonly string[]) => (songIds.length === 0 ? answered(new Map<string, PlayableSong>()) : read(playableQuery.compiled(songIds),
      (rows) => new Map(rows.map((row): [string, PlayableSong] => [row.id, { durationMs: Number(row.duration_ms), albumId: row.album_id }])))),

    /** These entries of the playlist, by id, with their songs' lengths and albums. */
    entriesById: (playlistId: string, itemIds: readonly string[]) => (itemIds.length === 0 ? answered([] as NamedEntry[]) : read(entriesQuery.compiled(playlistId, itemIds),
      (rows) => rows.map((row): NamedEntry => ({ ...entryOf(row), durationMs: Number(row.duration_ms), albumId: row.album_id, shown: Number(row.withdrawn) === 0 })))),

    /**
     * Where entries go just before the entry `beforeItemId`, leaving out `excluding` (entries being moved), with how
     * many stand before it when `counting`: undefined when there is no such entry. At the end (no entry named), the
     * last key (null: no entry).
     */
    spot(playlistId: string, beforeItemId: string | undefined, excluding: readonly string[], counting = false) {
      const leaving = excluding.length > 0 ? 1 : 0;
      if (beforeItemId === undefined) {
        return read(spotQueries.end[leaving]!.compiled(playlistId, excluding),
          ([row]): Spot | null => (row === undefined ? null : { key: '', keyBefore: row.order_key, countBefore: 0 }));
      }
      return read(spotQueries.before[leaving]![counting ? 1 : 0]!.compiled(playlistId, beforeItemId, excluding),
        ([row]): Spot | undefined => row && { key: row.order_key, keyBefore: row.key_before ?? null, countBefore: Number(row.count_before ?? 0) });
    },

    /**
     * The first shown entries (their songs not withdrawn), leaving out `excluding`, in order: `limit` of them
     * (COVER_SCAN unless given; null: all), what a write's new cover is worked out from (coverAfter).
     */
    coverScan(playlistId: string, excluding: readonly string[], limit: number | null = COVER_SCAN) {
      return read(coverQueries[excluding.length > 0 ? 1 : 0]![limit === null ? 0 : 1]!.compiled(playlistId, excluding, limit ?? 0),
        (rows) => ({ entries: rows.map((row): CoverEntry => ({ orderKey: row.order_key, itemId: row.item_id, albumId: row.album_id })), all: limit === null || rows.length < limit }));
    },
  });
}

/** A playlist write (writeSessions): the reads compiled once, and the statements it writes. */
function writeSession<Reads extends object>(storage: RepoStorage, session: UserWriteSession, reads: Reads) {
  const { db } = storage;
  const { write } = session;
  return {
    record: session.record,
    read: session.read,
    ...reads,

    insert(playlist: Omit<PlaylistRow, 'ownerName'>): void {
      write(db.insertInto('playlists').values({
        id: playlist.id, owner_id: playlist.ownerId, name: playlist.name, description: playlist.description, visibility: playlist.visibility,
        created_at: playlist.createdAt, updated_at: playlist.updatedAt, version: playlist.version, item_count: playlist.itemCount,
        total_duration_ms: playlist.totalDurationMs, cover_album_ids: JSON.stringify(playlist.coverAlbumIds),
      }));
    },

    update(id: string, changes: PlaylistChanges): void {
      write(db.updateTable('playlists').set({
        version: changes.version,
        updated_at: changes.updatedAt,
        ...(changes.name !== undefined && { name: changes.name }),
        ...(changes.description !== undefined && { description: changes.description }),
        ...(changes.visibility !== undefined && { visibility: changes.visibility }),
        ...(changes.itemCount !== undefined && { item_count: changes.itemCount }),
        ...(changes.totalDurationMs !== undefined && { total_duration_ms: changes.totalDurationMs }),
        ...(changes.coverAlbumIds !== undefined && { cover_album_ids: JSON.stringify(changes.coverAlbumIds) }),
      }).where('id', '=', id));
    },

    delete(id: string): void {
      write(db.deleteFrom('playlists').where('id', '=', id));
    },

    insertEntries(playlistId: string, entries: readonly NewEntry[]): void {
      if (entries.length === 0) return;
      write(db.insertInto('playlist_items').values(entries.map((entry) => ({
        playlist_id: playlistId, item_id: entry.itemId, order_key: entry.orderKey, song_id: entry.songId,
        duration_ms: entry.durationMs, added_at: entry.addedAt, placed_version: entry.placedVersion,
      }))));
    },

    /**
     * Gives these entries new keys, and the version that placed them, in one
     * statement: a move changes only where they stand (their order index
     * entries and their rows), not the primary key's. Built by Kysely as an
     * UPDATE of playlist_items, so it is known for a library write: it leaves
     * the shared write version, and the credentials nodes keep, alone.
     */
    place(playlistId: string, keys: ReadonlyMap<string, string>, placedVersion: number): void {
      if (keys.size === 0) return;
      const key = sql<string>`case ${sql.ref('item_id')} ${sql.join([...keys].map(([itemId, orderKey]) => sql`when ${itemId} then cast(${orderKey} as text)`), sql` `)} end`;
      write(db.updateTable('playlist_items').set({ order_key: key, placed_version: placedVersion })
        .where('playlist_id', '=', playlistId).where('item_id', 'in', storage.idList([...keys.keys()])));
    },

    deleteEntries(playlistId: string, itemIds: readonly string[]): void {
      if (itemIds.length === 0) return;
      write(db.deleteFrom('playlist_items').where('playlist_id', '=', playlistId).where('item_id', 'in', storage.idList(itemIds)));
    },

    deleteAllEntries(playlistId: string): void {
      write(db.deleteFrom('playlist_items').where('playlist_id', '=', playlistId));
    },
  };
}

/**
 * A playlist's cover after a write (contract section 14: the first four
 * distinct albums of its shown songs, in order), from the first shown
 * entries before it that it leaves in place (`scanned`; every one when
 * `all`) and the shown entries it places (added or moved); undefined when
 * those do not tell, as the scan ended before four albums and entries after
 * it may come first: then the rest is read (a playlist whose first
 * COVER_SCAN entries hold fewer than four albums).
 */
export function coverAfter(scanned: { entries: readonly CoverEntry[]; all: boolean }, placed: readonly CoverEntry[]): string[] | undefined {
  const before = (a: CoverEntry, b: CoverEntry) => (a.orderKey < b.orderKey ? -1 : a.orderKey > b.orderKey ? 1 : a.itemId < b.itemId ? -1 : a.itemId > b.itemId ? 1 : 0);
  const last = scanned.entries[scanned.entries.length - 1];
  // Past the last entry scanned, an entry placed may have unscanned ones before it.
  const known = scanned.all || last === undefined ? placed : placed.filter((entry) => before(entry, last) <= 0);
  const albums: string[] = [];
  for (const entry of [...scanned.entries, ...known].sort(before)) {
    if (!albums.includes(entry.albumId)) albums.push(entry.albumId);
    if (albums.length === COVER_ALBUMS) return albums;
  }
  return scanned.all ? albums : undefined;
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
    within: writeSessions(storage, reads),

    /**
     * Runs `work` on one snapshot: every read in it sees the database as of
     * one commit (SQLite's read transaction; PostgreSQL's repeatable read),
     * the reads of one `read` call together (on PostgreSQL one round trip,
     * the first with BEGIN).
     */
    read<T>(work: (read: PlaylistRead) => Promise<T>): Promise<T> {
      return storage.inPhases(async (phases) => {
        const result = await work({ ...reads, read: async (...asked) => answersOf(asked, await phases.run(statementsOf(asked))) });
        await phases.commit([]);
        return result;
      }, { snapshot: true });
    },

    /** A page of the user's playlists, newest first, then id; `limit` at most. */
    async owned(userId: string, after: readonly [createdAt: number, id: string] | null, limit: number): Promise<PlaylistRow[]> {
      const rows = after === null ? await ownedFirst(userId, limit) : await ownedAfter(userId, after[0], after[1], limit);
      return rows.map(playlistOf);
    },
  };
}

/** What a read of playlists may do, on one snapshot (PlaylistsRepo.read). */
export type PlaylistRead = ReturnType<typeof playlistReads> & {
  /** Runs these reads together, on the snapshot; answers each one's answer. */
  read<R extends readonly Read<unknown>[]>(...reads: R): Promise<Answers<R>>;
};

/** What one playlist write may do, inside the owner's write transaction (PlaylistsRepo.within). */
export type PlaylistWrite = ReturnType<ReturnType<typeof writeSessions>>;

export type PlaylistsRepo = ReturnType<typeof createPlaylistsRepo>;
