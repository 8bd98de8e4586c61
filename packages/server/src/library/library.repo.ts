import type { Kysely, Selectable } from 'kysely';
import type { Database, LibraryChangesTable, LibraryItemsTable } from '../storage/database.ts';
import { marker, precompiledLookup, precompiledQuery, type Storage } from '../storage/storage.ts';
import type { UserWriteSession } from './user-write.ts';
import { read } from '../storage/phases.ts';

export type LibraryKind = LibraryItemsTable['kind'];
export type ChangeKind = LibraryChangesTable['kind'];
export type ChangeType = LibraryChangesTable['change'];

/** An item of a user's library and when it was first saved (or followed). */
export interface SavedRow {
  readonly kind: LibraryKind;
  readonly id: string;
  readonly savedAt: number;
}

/** A change to a user's library, as the feed lists it. */
export interface ChangeRow {
  readonly number: number;
  readonly kind: ChangeKind;
  readonly id: string;
  readonly change: ChangeType;
  readonly at: number;
}

/** A page of a list newest first, then id: the position after which it starts. */
export type SavedPosition = readonly [savedAt: number, id: string, kind: string];

const CATALOG_TABLE = { song: 'songs', album: 'albums', artist: 'artists' } as const;

/**
 * A user's library: the items they saved or follow, and the numbered feed of
 * its changes. Every write is made within one of the user's writes (`within`).
 */
export function createLibraryRepo(storage: Pick<Storage, 'db' | 'dialect' | 'idList' | 'idRows' | 'idListParameter'>) {
  const { db } = storage;

  /** Which of these items the user has: each id by the primary key (Storage.idRows says why not IN). */
  const savedQuery = precompiledQuery(db, (ids: readonly string[], userId: string, kind: LibraryKind) =>
    db.selectFrom(storage.idRows(ids)).crossJoin('library_items as li').select(['li.item_id', 'li.saved_at'])
      .where('li.user_id', '=', userId).where('li.kind', '=', kind).whereRef('li.item_id', '=', 'wanted.value'),
  [[marker.text(0)], marker.text(1), marker.text(2) as LibraryKind], ([ids, userId, kind]) => [storage.idListParameter(ids), userId, kind]);

  /** Which of these ids the catalog shows, each with when the user saved it, if they have: a query a kind (songs, albums and artists alike). */
  const visibleSavedQuery = (kind: LibraryKind) => precompiledQuery(db, (ids: readonly string[], userId: string) =>
    db.selectFrom(`${CATALOG_TABLE[kind]} as c` as 'songs as c')
      .leftJoin('library_items as li', (join) => join.onRef('li.item_id', '=', 'c.id').on('li.user_id', '=', userId).on('li.kind', '=', kind))
      .select(['c.id', 'li.saved_at']).where('c.id', 'in', storage.idList(ids)).where('c.withdrawn', '=', 0),
  [[marker.text(0)], marker.text(1)], ([ids, userId]) => [storage.idListParameter(ids), userId]);
  const visibleSavedQueries = { song: visibleSavedQuery('song'), album: visibleSavedQuery('album'), artist: visibleSavedQuery('artist') };

  // The change feed's queries, compiled once (storage.ts, precompiledQuery).
  const changeCountQuery = precompiledLookup(db, (userId) => db.selectFrom('users').leftJoin('library_counters', 'library_counters.user_id', 'users.id')
    .select('library_counters.changes').where('users.id', '=', userId));
  const changesAfterQuery = precompiledQuery(db, (userId: string, after: number, limit: number) => db.selectFrom('library_changes')
    .select(['number', 'kind', 'item_id', 'change', 'changed_at']).where('user_id', '=', userId).where('number', '>', after).orderBy('number').limit(limit),
  [marker.text(0), marker.number(1), marker.number(2)]);

  type PageRow = Pick<Selectable<LibraryItemsTable>, 'kind' | 'item_id' | 'saved_at'>;
  type PageQuery = (userId: string, after: SavedPosition | null, limit: number) => Promise<PageRow[]>;
  /** page()'s query for one set of kinds, compiled once a shape (storage.ts, precompiledQuery): from the top, and after a position. */
  const pageQueries = new Map<string, PageQuery>();
  function pageQuery(asked: readonly LibraryKind[]): PageQuery {
    const kinds = [...asked].sort();
    const known = pageQueries.get(kinds.join(','));
    if (known !== undefined) return known;
    const theirs = (userId: string) => {
      const query = db.selectFrom('library_items as li').select(['li.kind', 'li.item_id', 'li.saved_at']).where('li.user_id', '=', userId);
      // One kind walks the (user, kind, time, id) index; several walk the (user, time, id, kind) one.
      return kinds.length === 1 ? query.where('li.kind', '=', kinds[0]!) : query.where('li.kind', 'in', [...kinds]);
    };
    type Query = ReturnType<typeof theirs>;
    const newestFirst = (query: Query, limit: number) => query.orderBy('li.saved_at', 'desc').orderBy('li.item_id', 'asc').orderBy('li.kind', 'asc').limit(limit);
    const top = precompiledQuery(db, (userId: string, limit: number) => newestFirst(theirs(userId), limit), [marker.text(0), marker.number(1)]);
    const after = precompiledQuery(db, (userId: string, savedAt: number, id: string, kind: string, limit: number) =>
      // The bound on the time alone lets the index walk start at the page (an OR alone scans from the top:
      // 1.2 ms a page at the end of 10,000 likes, bench/README.md at 9b0c7f5).
      newestFirst(theirs(userId).where('li.saved_at', '<=', savedAt).where((eb) => eb.or([
        eb('li.saved_at', '<', savedAt),
        eb.and([eb('li.saved_at', '=', savedAt), eb('li.item_id', '>', id)]),
        eb.and([eb('li.saved_at', '=', savedAt), eb('li.item_id', '=', id), eb('li.kind', '>', kind as LibraryKind)]),
      ])), limit), [marker.text(0), marker.number(1), marker.text(2), marker.text(3), marker.number(4)]);
    const query: PageQuery = (userId, position, limit) => (position === null ? top(userId, limit) : after(userId, ...position, limit));
    pageQueries.set(kinds.join(','), query);
    return query;
  }

  return {
    /** The user's library within one of their writes (user-write.ts). */
    within({ userId, read: reads, write, record }: UserWriteSession): LibraryWrite {
      return {
        record,
        async visibleSaved(byKind) {
          // One statement a kind for what were two (which the catalog shows, which the user has), all in one round trip (issue 56).
          // Songs, albums and artists alike: an id and `withdrawn` are all it reads of them.
          const kinds = [...byKind].filter(([, ids]) => ids.length > 0);
          const found = await reads(...kinds.map(([kind, ids]) => read(visibleSavedQueries[kind].compiled(ids, userId),
            (rows) => new Map(rows.map((row) => [row.id, row.saved_at === null ? undefined : Number(row.saved_at)])))));
          return new Map([...byKind.keys()].map((kind) => [kind, found[kinds.findIndex(([known]) => known === kind)] ?? new Map()]));
        },
        async saved(byKind) {
          const kinds = [...byKind].filter(([, ids]) => ids.length > 0);
          const found = await reads(...kinds.map(([kind, ids]) => read(savedQuery.compiled(ids, userId, kind), (rows) => new Map(rows.map((row) => [row.item_id, Number(row.saved_at)])))));
          return new Map([...byKind.keys()].map((kind) => [kind, found[kinds.findIndex(([known]) => known === kind)] ?? new Map()]));
        },
        add(kind, ids, now) {
          if (ids.length === 0) return;
          write(db.insertInto('library_items').values(ids.map((id) => ({ user_id: userId, kind, item_id: id, saved_at: now })))
            .onConflict((oc) => oc.columns(['user_id', 'kind', 'item_id']).doNothing()));
        },
        remove(kind, ids) {
          if (ids.length === 0) return;
          write(db.deleteFrom('library_items').where('user_id', '=', userId).where('kind', '=', kind).where('item_id', 'in', storage.idList(ids)));
        },
      };
    },

    /** Which of these items the user has, with when they were first saved. */
    saved: (userId: string, kind: LibraryKind, ids: readonly string[]) => savedIn(db, userId, kind, ids),

    /**
     * A page of the user's items of these kinds, newest first, then id, then
     * kind; `limit` rows at most. Withdrawn ones are among them: the catalog
     * renders none (library.service.ts leaves them out), and checking each
     * here cost a key lookup an item: 62 against 39 us for a page of 51 in the
     * middle of 10,000 likes (bench/README.md at 9b0c7f5, "the user's library under load").
     */
    async page(userId: string, kinds: readonly LibraryKind[], after: SavedPosition | null, limit: number): Promise<SavedRow[]> {
      const rows = await pageQuery(kinds)(userId, after, limit);
      return rows.map((row) => ({ kind: row.kind, id: row.item_id, savedAt: Number(row.saved_at) }));
    },

    /** How many changes the user's library has had (undefined: no such user). */
    async changeCount(userId: string): Promise<number | undefined> {
      const [row] = await changeCountQuery(userId);
      return row === undefined ? undefined : Number(row.changes ?? 0);
    },

    /** The user's changes after the `after`-th, in order, `limit` at most. */
    async changesAfter(userId: string, after: number, limit: number): Promise<ChangeRow[]> {
      const rows = await changesAfterQuery(userId, after, limit);
      return rows.map((row) => ({ number: Number(row.number), kind: row.kind, id: row.item_id, change: row.change, at: Number(row.changed_at) }));
    },

    /** The user as GetCurrentUser answers it. */
    async user(userId: string): Promise<{ id: string; username: string; createdAt: number; maxAgeRating: string | null } | undefined> {
      const row = await db.selectFrom('users').select(['id', 'username', 'created_at', 'max_age_rating']).where('id', '=', userId).executeTakeFirst();
      return row && { id: row.id, username: row.username, createdAt: Number(row.created_at), maxAgeRating: row.max_age_rating };
    },
  };

  async function savedIn(executor: Kysely<Database>, userId: string, kind: LibraryKind, ids: readonly string[]): Promise<Map<string, number>> {
    if (ids.length === 0) return new Map();
    const rows = await savedQuery.on(executor)(ids, userId, kind);
    return new Map(rows.map((row) => [row.item_id, Number(row.saved_at)]));
  }
}

/** What one library write may do, inside its transaction (LibraryRepo.within). */
export interface LibraryWrite extends Pick<UserWriteSession, 'record'> {
  /** Of each kind, the ids of these the catalog shows (not withdrawn), each with when the user first saved it, if they have. */
  visibleSaved(byKind: ReadonlyMap<LibraryKind, readonly string[]>): Promise<Map<LibraryKind, Map<string, number | undefined>>>;
  /** Of each kind, which of these items the user has, with when they were first saved. */
  saved(byKind: ReadonlyMap<LibraryKind, readonly string[]>): Promise<Map<LibraryKind, Map<string, number>>>;
  /** Adds items the user does not have, saved at `now`. */
  add(kind: LibraryKind, ids: readonly string[], now: number): void;
  /** Removes these items. */
  remove(kind: LibraryKind, ids: readonly string[]): void;
}

export type LibraryRepo = ReturnType<typeof createLibraryRepo>;
