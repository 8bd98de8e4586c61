import type { TokenSealer } from '../crypto/sealed-token.ts';

/** A keyset position: the sort values of the last item of a page, in sort order. */
export type KeysetPosition = readonly (string | number)[];

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
