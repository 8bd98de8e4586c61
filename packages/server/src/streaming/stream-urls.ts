import { createHmac, timingSafeEqual } from 'node:crypto';

export interface StreamClaims {
  readonly userId: string;
  readonly songId: string;
  readonly quality: string;
  /** Unix milliseconds. */
  readonly expiresAt: number;
}

/**
 * Stream URL tokens: the claims (user, song, quality, expiry) and an
 * HMAC-SHA256 over them. The playlist and every segment carry the same token,
 * so a URL works for exactly that user, song and quality until it expires.
 */
export function createStreamUrlSigner(key: Buffer, clock: () => number = Date.now) {
  const mac = (payload: string) => createHmac('sha256', key).update(payload).digest();
  return {
    sign(claims: StreamClaims): string {
      const payload = Buffer.from(JSON.stringify([claims.userId, claims.songId, claims.quality, claims.expiresAt])).toString('base64url');
      return `${payload}.${mac(payload).toString('base64url')}`;
    },
    verify(token: string): StreamClaims | null {
      const [payload, signature] = token.split('.');
      if (!payload || !signature) return null;
      const given = Buffer.from(signature, 'base64url');
      const expected = mac(payload);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
      try {
        const [userId, songId, quality, expiresAt] = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as [string, string, string, number];
        if (typeof expiresAt !== 'number' || expiresAt <= clock()) return null;
        return { userId, songId, quality, expiresAt };
      } catch {
        return null;
      }
    },
  };
}

export type StreamUrlSigner = ReturnType<typeof createStreamUrlSigner>;
