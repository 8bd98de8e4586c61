import { MAX_CHANGES_PER_PAGE, type AgeRating } from '@maqam/contract';
import type { TokenSealer } from '../crypto/sealed-token.ts';
import { DomainError, invalidRequest, type ErrorReason } from '../errors.ts';
import type { Negotiation } from '../locale/negotiation.ts';
import type { CatalogLists } from '../catalog/catalog.service.ts';
import { keysetPage, type PageCursorCodec, type PageRequest } from '../catalog/page-cursor.ts';
import type { ChangeRow, LibraryKind, LibraryRepo, LibraryWrite, SavedPosition, SavedRow } from './library.repo.ts';
import { CHANGES_KEPT_DAYS, CHANGES_KEPT_MS, type BeforeCommit, type UserStore } from './user-write.ts';
import { itemFragments, rfc3339, withMembers } from './rendered-items.ts';


/** What a save or follow answers for one id: when it was first saved, or why it was not. */
export type SaveOutcome = { readonly savedAt: number } | { readonly error: ErrorReason; readonly id: string };

/** What a save answers: each kind's outcomes by id. */
export type SaveOutcomes = Map<LibraryKind, Map<string, SaveOutcome>>;

const NOT_FOUND: Record<LibraryKind, ErrorReason> = { song: 'songNotFound', album: 'albumNotFound', artist: 'artistNotFound' };

export interface LibraryServiceDeps {
  /** The library's reads. */
  repo: Pick<LibraryRepo, 'saved' | 'page' | 'changeCount' | 'changesAfter' | 'user'>;
  /** The user's writes, with the library bound to each (user-write.ts). */
  writes: UserStore<{ library: LibraryWrite }>;
  catalog: CatalogLists;
  /** Page tokens of the lists (bound to the user and the list). */
  cursors: PageCursorCodec;
  /** Seals the change feed's cursors. */
  changeCursors: TokenSealer;
  clock: () => number;
}

/**
 * A user's library (contract section 13): saved songs and albums, followed
 * artists (the same set, of kind artist), and the feed of their changes.
 * Items are answered as the catalog renders them for the request's locale.
 */
export function createLibraryService({ repo, writes, catalog, cursors, changeCursors, clock }: LibraryServiceDeps) {
  /** A write for a user whose token is live but whose account is gone answers as the token does: 401. */
  const userGone = () => new DomainError('accessTokenInvalid');

  async function add(userId: string, byKind: ReadonlyMap<LibraryKind, readonly string[]>, beforeCommit?: BeforeCommit<SaveOutcomes>): Promise<SaveOutcomes> {
    const outcome = await writes.write(userId, async ({ library: write }) => {
      const now = clock();
      const results = new Map<LibraryKind, Map<string, SaveOutcome>>();
      const visibleByKind = await write.visibleSaved(byKind);
      for (const [kind, ids] of byKind) {
        const visible = visibleByKind.get(kind)!;
        const fresh = ids.filter((id) => visible.has(id) && visible.get(id) === undefined);
        write.add(kind, fresh, now);
        for (const id of fresh) write.record({ kind, id, change: 'CHANGE_SAVED' }, now);
        results.set(kind, new Map(ids.map((id): [string, SaveOutcome] => [id, visible.has(id) ? { savedAt: visible.get(id) ?? now } : { error: NOT_FOUND[kind], id }])));
      }
      return results;
    }, beforeCommit);
    if (outcome === undefined) throw userGone();
    return outcome;
  }

  async function remove(userId: string, byKind: ReadonlyMap<LibraryKind, readonly string[]>, beforeCommit?: BeforeCommit<true>): Promise<void> {
    const done = await writes.write(userId, async ({ library: write }) => {
      const now = clock();
      const savedByKind = await write.saved(byKind);
      for (const [kind, ids] of byKind) {
        const saved = savedByKind.get(kind)!;
        write.remove(kind, ids);
        // Recorded in the order the request named them.
        for (const id of ids) if (saved.has(id)) write.record({ kind, id, change: 'CHANGE_REMOVED' }, now);
      }
      return true as const;
    }, beforeCommit);
    if (done === undefined) throw userGone();
  }

  async function check(userId: string, kind: LibraryKind, ids: readonly string[]): Promise<Map<string, number | undefined>> {
    const saved = await repo.saved(userId, kind, ids);
    return new Map(ids.map((id) => [id, saved.get(id)]));
  }

  /** A page of the user's items of these kinds, each `{"<kind>":{...},"<timeMember>":"..."}`. */
  async function list(userId: string, kinds: readonly LibraryKind[], timeMember: string, request: PageRequest, negotiation: Negotiation): Promise<Buffer> {
    // Bound to the user and the kinds: a token of one list does not page another, nor another user's.
    const { rows: page, nextPageToken } = await keysetPage<SavedPosition>(cursors, request, `library\u0000${userId}\u0000${[...kinds].sort().join(',')}`, ['number', 'string', 'string'])
      .read((after, limit) => repo.page(userId, kinds, after, limit), (row) => [row.savedAt, row.id, row.kind]);
    const fragments = await itemFragments(catalog, page, negotiation);
    const items: (readonly Buffer[])[] = [];
    page.forEach((row: SavedRow, i) => {
      const fragment = fragments[i];
      // Withdrawn between the page's query and its rendering: left out, as the list leaves withdrawn items out.
      if (fragment !== undefined) items.push(withMembers(fragment, `,${JSON.stringify(timeMember)}:"${rfc3339(row.savedAt)}"`));
    });
    return catalog.listAnswer('items', items, nextPageToken);
  }

  function encodeCursor(userId: string, count: number): string {
    return changeCursors.seal({ u: userId, n: count, t: clock() });
  }

  const cursorExpired = () => new DomainError('changesCursorExpired', {
    params: { days: CHANGES_KEPT_DAYS },
    violations: [{ field: 'cursor', reason: 'changesCursorExpired', params: { days: CHANGES_KEPT_DAYS } }],
  });

  return {
    save: add,
    remove,
    check,
    list,

    /** The user's changes after the cursor (at most 500) and the cursor to go on from; without one, a cursor at now. */
    async changes(userId: string, cursor: string | undefined): Promise<{ changes: ChangeRow[]; nextCursor: string }> {
      if (cursor === undefined || cursor === '') {
        const count = await repo.changeCount(userId);
        if (count === undefined) throw userGone();
        return { changes: [], nextCursor: encodeCursor(userId, count) };
      }
      const fields = changeCursors.open(cursor) as { u?: unknown; n?: unknown; t?: unknown } | null;
      if (fields === null || typeof fields !== 'object' || fields.u !== userId || !Number.isSafeInteger(fields.n) || typeof fields.t !== 'number') {
        throw invalidRequest({ field: 'cursor', reason: 'changesCursor' });
      }
      const after = fields.n as number;
      if (fields.t < clock() - CHANGES_KEPT_MS) throw cursorExpired();
      const changes = await repo.changesAfter(userId, after, MAX_CHANGES_PER_PAGE);
      // Changes are numbered 1, 2, ... without gaps: a first one past the next number was forgotten (kept 90 days).
      const first = changes[0];
      const forgotten = first === undefined ? ((await repo.changeCount(userId)) ?? 0) > after : first.number !== after + 1;
      if (forgotten) throw cursorExpired();
      return { changes, nextCursor: encodeCursor(userId, changes.length > 0 ? changes[changes.length - 1]!.number : after) };
    },

    async user(userId: string) {
      const user = await repo.user(userId);
      if (user === undefined) throw userGone();
      return {
        id: user.id, username: user.username, displayName: user.username, createdAt: rfc3339(user.createdAt),
        ...(user.maxAgeRating !== null && { maxAgeRating: user.maxAgeRating as AgeRating }),
      };
    },
  };
}

export type LibraryService = ReturnType<typeof createLibraryService>;
