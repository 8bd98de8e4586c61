import type { TokenSealer } from '../crypto/sealed-token.ts';

/**
 * What a stream URL opens: `manifest`, the playlist AcquireMusicStream
 * answers (index.m3u8); `media`, what that playlist leads to (segments and
 * the fMP4 initialization segment).
 */
export type StreamUrlKind = 'manifest' | 'media';

export interface StreamClaims {
  readonly kind: StreamUrlKind;
  readonly userId: string;
  readonly songId: string;
  readonly quality: string;
  /** Unix milliseconds: the URL is refused from then on. */
  readonly expiresAt: number;
  /**
   * Unix milliseconds: the end of the listening window, fixed at acquisition
   * (acquisition + the song's duration + MAQAM_STREAM_GRACE). A manifest
   * token carries it so the media URLs its playlist signs expire then, however
   * often or late within its TTL the playlist is fetched; a media token
   * expires at it.
   */
  readonly listenUntil: number;
}

const KINDS: readonly unknown[] = ['manifest', 'media'] satisfies StreamUrlKind[];

/**
 * Stream URL tokens: the claims (what the URL opens, user, song, quality,
 * expiry, listening window), sealed. A manifest token lives the short
 * MAQAM_STREAM_URL_TTL; the playlist it opens signs its media URLs with a
 * media token of the same user, song and quality that lives to the listening
 * window's end. So a URL works for exactly that user, song and quality and
 * for what it opens until it expires, and says none of them to whoever sees it.
 */
export function createStreamUrlSigner(sealer: TokenSealer, clock: () => number = Date.now) {
  return {
    sign(claims: StreamClaims): string {
      return sealer.seal([claims.kind, claims.userId, claims.songId, claims.quality, claims.expiresAt, claims.listenUntil]);
    },
    /** The claims of a valid, unexpired token that opens `kind`, or null. */
    verify(token: string, kind: StreamUrlKind): StreamClaims | null {
      const claims = sealer.open(token);
      if (!Array.isArray(claims) || claims.length !== 6) return null;
      const [sealedKind, userId, songId, quality, expiresAt, listenUntil] = claims as unknown[];
      if (!KINDS.includes(sealedKind) || typeof userId !== 'string' || typeof songId !== 'string' || typeof quality !== 'string') return null;
      if (typeof expiresAt !== 'number' || typeof listenUntil !== 'number') return null;
      if (sealedKind !== kind || expiresAt <= clock()) return null;
      return { kind, userId, songId, quality, expiresAt, listenUntil };
    },
  };
}

export type StreamUrlSigner = ReturnType<typeof createStreamUrlSigner>;
