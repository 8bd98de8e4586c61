import type { TokenSealer } from '../crypto/sealed-token.ts';
import { VIDEO_QUALITIES, type VideoQuality } from './video-package.ts';

/**
 * What a video stream URL opens: `manifest`, the master playlist
 * AcquireVideoStream answers; `media`, what it leads to (media and I-frame
 * playlists, segments, the key).
 */
export type VideoUrlKind = 'manifest' | 'media';

export interface VideoStreamClaims {
  readonly kind: VideoUrlKind;
  readonly userId: string;
  readonly titleKind: 'movie' | 'episode';
  readonly titleId: string;
  /** The best rendition the stream may play. */
  readonly maxQuality: VideoQuality;
  /** Unix milliseconds: the URL is refused from then on. */
  readonly expiresAt: number;
  /** The end of the viewing window fixed at acquisition (acquisition + duration + MAQAM_STREAM_GRACE). */
  readonly listenUntil: number;
}

const KINDS: readonly unknown[] = ['manifest', 'media'] satisfies VideoUrlKind[];
const TITLE_KINDS: readonly unknown[] = ['movie', 'episode'];

/**
 * Video stream URL tokens, sealed like music's (stream-urls.ts) under a key
 * of their own, so neither kind of token opens the other's URLs. A manifest
 * token lives MAQAM_STREAM_URL_TTL; the playlists it opens sign what they
 * lead to with a media token of the same user, title and quality that lives
 * to the viewing window's end.
 */
export function createVideoUrlSigner(sealer: TokenSealer, clock: () => number = Date.now) {
  return {
    sign(claims: VideoStreamClaims): string {
      return sealer.seal([claims.kind, claims.userId, claims.titleKind, claims.titleId, claims.maxQuality, claims.expiresAt, claims.listenUntil]);
    },
    /** The claims of a valid, unexpired token that opens `kind`, or null. */
    verify(token: string, kind: VideoUrlKind): VideoStreamClaims | null {
      const claims = sealer.open(token);
      if (!Array.isArray(claims) || claims.length !== 7) return null;
      const [sealedKind, userId, titleKind, titleId, maxQuality, expiresAt, listenUntil] = claims as unknown[];
      if (!KINDS.includes(sealedKind) || !TITLE_KINDS.includes(titleKind) || typeof userId !== 'string' || typeof titleId !== 'string') return null;
      if (!(VIDEO_QUALITIES as readonly unknown[]).includes(maxQuality) || typeof expiresAt !== 'number' || typeof listenUntil !== 'number') return null;
      if (sealedKind !== kind || expiresAt <= clock()) return null;
      return { kind, userId, titleKind: titleKind as 'movie' | 'episode', titleId, maxQuality: maxQuality as VideoQuality, expiresAt, listenUntil };
    },
  };
}

export type VideoUrlSigner = ReturnType<typeof createVideoUrlSigner>;
