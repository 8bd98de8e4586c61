import type { TokenSealer } from '../crypto/sealed-token.ts';
import { invalidRequest } from '../errors.ts';

/** A keyset position: the sort values of the last item of a page, in sort order. */
export type KeysetPosition = readonly (string | number)[];

/** The types of a position's values, in order: what a token of the list must hold. */
export type KeysetShape = readonly ('string' | 'number')[];

/** A page request as the route read it: the size, and the token with the name the client spelled it by. */
export interface PageRequest {
  readonly size: number;
  readonly token?: { readonly field: string; readonly value: string };
}

/**
 * Page tokens of the catalog's lists: a keyset position bound to its scope
 * (the operation, its parent id and any filter) and an expiry, sealed so
 * clients can neither forge nor move them to another list. Keyset, not
 * offset, so a page boundary does not shift when the catalog changes
 * between two pages.
 */
export function createPageCursorCodec(sealer: TokenSealer, ttlSeconds: number, clock: () => number = Date.now) {
  return {
    encode(scope: string, position: KeysetPosition): string {
      return sealer.seal({ o: scope, p: position, x: Math.floor(clock() / 1000) + ttlSeconds });
    },

    /**
     * The position, or null when the token is malformed, forged, expired, of
     * another scope or of another shape than `shape` (the types of the sort values).
     */
    decode<P extends KeysetPosition>(token: string, scope: string, shape: readonly ('string' | 'number')[]): P | null {
      const fields = sealer.open(token);
      if (fields === null || typeof fields !== 'object') return null;
      const { o, p, x } = fields as Record<string, unknown>;
      if (o !== scope || typeof x !== 'number' || x * 1000 <= clock()) return null;
      if (!Array.isArray(p) || p.length !== shape.length || p.some((value, i) => typeof value !== shape[i])) return null;
      return p as unknown as P;
    },
  };
}

export type PageCursorCodec = ReturnType<typeof createPageCursorCodec>;

/** A page of a keyset list, once its token is known good (keysetPage). */
export interface KeysetPage<P extends KeysetPosition> {
  /** Where the page starts: after this position, or at the top (null). */
  readonly after: P | null;
  /**
   * The page: `read` is asked for one row more than the page (which tells
   * whether another follows) after `after`; the next page's token holds the
   * last row's position, '' on the last page.
   */
  read<Row>(read: (after: P | null, limit: number) => Promise<Row[]>, positionOf: (row: Row) => P): Promise<{ rows: Row[]; nextPageToken: string }>;
}

/**
 * Every keyset list's paging, one way: the request's token is opened first
 * (a 400 naming the token as the client spelled it when it is not one of
 * this list's `scope` and `shape`, before anything else is looked at), then
 * the page is read.
 */
export function keysetPage<P extends KeysetPosition>(cursors: PageCursorCodec, request: PageRequest, scope: string, shape: KeysetShape): KeysetPage<P> {
  let after: P | null = null;
  if (request.token !== undefined && request.token.value !== '') {
    after = cursors.decode<P>(request.token.value, scope, shape);
    if (after === null) throw invalidRequest({ field: request.token.field, reason: 'pageToken' });
  }
  return {
    after,
    async read(read, positionOf) {
      const rows = await read(after, request.size + 1);
      const more = rows.length > request.size;
      if (more) rows.length = request.size;
      const last = rows[rows.length - 1];
      return { rows, nextPageToken: more && last !== undefined ? cursors.encode(scope, positionOf(last)) : '' };
    },
  };
}
