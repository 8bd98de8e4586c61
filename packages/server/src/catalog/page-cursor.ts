import { createHmac, timingSafeEqual } from 'node:crypto';
import type { PageCursor } from './catalog.repo.ts';

/**
 * Page tokens of GetRelatedArtists: a keyset position (score, related id)
 * bound to the artist and an expiry, signed with HMAC-SHA256 so clients can
 * neither forge nor move them to another artist. Keyset, not offset, so a page
 * boundary does not shift when the catalog changes between two pages.
 */
export function createPageCursorCodec(signingKey: Buffer, ttlSeconds: number, clock: () => number = Date.now) {
  const sign = (payload: string) => createHmac('sha256', signingKey).update(payload).digest();

  return {
    encode(artistId: string, cursor: PageCursor): string {
      const payload = Buffer.from(
        JSON.stringify({ a: artistId, s: cursor.score, r: cursor.relatedId, x: Math.floor(clock() / 1000) + ttlSeconds }),
      ).toString('base64url');
      return `${payload}.${sign(payload).toString('base64url')}`;
    },

    /** The cursor, or null when the token is malformed, forged, foreign or expired. */
    decode(token: string, artistId: string): PageCursor | null {
      const dot = token.indexOf('.');
      if (dot < 1) return null;
      const payload = token.slice(0, dot);
      const signature = Buffer.from(token.slice(dot + 1), 'base64url');
      const expected = sign(payload);
      if (signature.length !== expected.length || !timingSafeEqual(signature, expected)) return null;
      let fields: unknown;
      try {
        fields = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
      } catch {
        return null;
      }
      const { a, s, r, x } = fields as Record<string, unknown>;
      if (a !== artistId || typeof s !== 'number' || typeof r !== 'string' || typeof x !== 'number') return null;
      if (x * 1000 <= clock()) return null;
      return { score: s, relatedId: r };
    },
  };
}

export type PageCursorCodec = ReturnType<typeof createPageCursorCodec>;
