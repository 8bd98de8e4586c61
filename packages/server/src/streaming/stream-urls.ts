import type { TokenSealer } from '../crypto/sealed-token.ts';

export interface StreamClaims {
  readonly userId: string;
  readonly songId: string;
  readonly quality: string;
  /** Unix milliseconds. */
  readonly expiresAt: number;
}

/**
 * Stream URL tokens: the claims (user, song, quality, expiry), sealed. The
 * playlist and every segment carry the same token, so a URL works for
 * exactly that user, song and quality until it expires, and says none of
 * them to whoever sees it.
 */
export function createStreamUrlSigner(sealer: TokenSealer, clock: () => number = Date.now) {
  return {
    sign(claims: StreamClaims): string {
      return sealer.seal([claims.userId, claims.songId, claims.quality, claims.expiresAt]);
    },
    verify(token: string): StreamClaims | null {
      const claims = sealer.open(token);
      if (!Array.isArray(claims) || claims.length !== 4) return null;
      const [userId, songId, quality, expiresAt] = claims as unknown[];
      if (typeof userId !== 'string' || typeof songId !== 'string' || typeof quality !== 'string' || typeof expiresAt !== 'number') return null;
      if (expiresAt <= clock()) return null;
      return { userId, songId, quality, expiresAt };
    },
  };
}

export type StreamUrlSigner = ReturnType<typeof createStreamUrlSigner>;
