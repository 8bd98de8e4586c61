import type { TokenSealer } from '../crypto/sealed-token.ts';
import type { PageCursor } from './catalog.repo.ts';

/**
 * Page tokens of GetRelatedArtists: a keyset position (score, related id)
 * bound to the artist and an expiry, sealed so clients can neither forge nor
 * move them to another artist. Keyset, not offset, so a page boundary does
 * not shift when the catalog changes between two pages.
 */
export function createPageCursorCodec(sealer: TokenSealer, ttlSeconds: number, clock: () => number = Date.now) {
  return {
    encode(artistId: string, cursor: PageCursor): string {
      return sealer.seal({ a: artistId, s: cursor.score, r: cursor.relatedId, x: Math.floor(clock() / 1000) + ttlSeconds });
    },

    /** The cursor, or null when the token is malformed, forged, foreign or expired. */
    decode(token: string, artistId: string): PageCursor | null {
      const fields = sealer.open(token);
      if (fields === null || typeof fields !== 'object') return null;
      const { a, s, r, x } = fields as Record<string, unknown>;
      if (a !== artistId || typeof s !== 'number' || typeof r !== 'string' || typeof x !== 'number') return null;
      if (x * 1000 <= clock()) return null;
      return { score: s, relatedId: r };
    },
  };
}

export type PageCursorCodec = ReturnType<typeof createPageCursorCodec>;
