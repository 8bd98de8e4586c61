import { randomUUID } from 'node:crypto';
import { AGE_RATINGS } from '@maqam/contract';
import { ApiError, DomainError } from '../errors.ts';
import type { TokenPrincipal } from '../principal.ts';
import { admits, capOf } from '../video/age-rating.ts';
import { masterPlaylist, VIDEO_QUALITIES, videoQualityRank, type VideoPackage, type VideoQuality } from './video-package.ts';
import type { VideoStreamClaims, VideoUrlSigner } from './video-urls.ts';
import type { VideoStreamingRepo } from './video-streaming.repo.ts';

export interface VideoStreamingOptions {
  publicUrl: string;
  /** MAQAM_STREAM_URL_TTL: how long the manifest URL may first be fetched, and the billing window. */
  urlTtlSeconds: number;
  /** MAQAM_STREAM_GRACE: the pauses a viewing window allows beyond the title's duration. */
  graceSeconds: number;
  signer: VideoUrlSigner;
  clock?: () => number;
}

export type TitleRef = { readonly kind: 'movie' | 'episode'; readonly id: string };

const notFound = (title: TitleRef) => new DomainError(title.kind === 'movie' ? 'movieNotFound' : 'episodeNotFound', { params: { id: title.id } });

/**
 * AcquireVideoStream (contract section 15) and what its URLs open: billing
 * and URLs as AcquireMusicStream's (section 7), for a film or an episode,
 * with the parental rule (video/age-rating.ts) checked at acquisition and
 * again by every key request, so lowering a cap stops a stream in progress
 * at its next key.
 */
export function createVideoStreamingService(repo: VideoStreamingRepo, options: VideoStreamingOptions) {
  const clock = options.clock ?? Date.now;
  const base = `${options.publicUrl}/v1/streaming/video`;

  /** The title, live and admitted for the user now; else the 404 of an unknown title or the 403 that says why. */
  async function admittedTitle(userId: string, title: TitleRef) {
    const found = await repo.title(title.kind, title.id);
    if (found === undefined) throw notFound(title);
    const stored = await repo.userCap(userId);
    if (stored === undefined) throw new ApiError('accessTokenInvalid');
    const cap = capOf(stored);
    if (!admits(cap, ...found.ratingRanks)) {
      throw new DomainError('ageRatingAboveCap', { params: { id: title.id, rating: found.rating ?? 'AGE_RATING_18 (unrated)', cap: AGE_RATINGS[cap]! } });
    }
    return found;
  }

  return {
    async acquire(principal: TokenPrincipal, title: TitleRef, maxQuality: VideoQuality | undefined) {
      const found = await admittedTitle(principal.userId, title);
      const pkg = await repo.packageOf(title.kind, title.id);
      if (pkg === undefined || pkg.renditions.length === 0) throw new DomainError('videoMediaNotFound', { params: { id: title.id } });
      const ceiling = maxQuality ?? VIDEO_QUALITIES[VIDEO_QUALITIES.length - 1]!;
      const playable = pkg.renditions.filter((rendition) => videoQualityRank(rendition.quality) <= videoQualityRank(ceiling));
      const best = playable[playable.length - 1];
      if (best === undefined) throw new DomainError('videoMediaNotFoundAtQuality', { params: { id: title.id, quality: ceiling } });

      const now = clock();
      const expiresAt = now + options.urlTtlSeconds * 1000;
      const listenUntil = Math.max(expiresAt, now + found.durationMs + options.graceSeconds * 1000);
      await repo.billUnlessWindowOpen({
        ledgerId: randomUUID(), userId: principal.userId, clientId: principal.clientId, titleKind: title.kind, titleId: title.id, quality: best.quality,
        acquiredAt: now, windowEndsAt: expiresAt,
      });
      const token = options.signer.sign({ kind: 'manifest', userId: principal.userId, titleKind: title.kind, titleId: title.id, maxQuality: best.quality, expiresAt, listenUntil });
      return {
        stream: {
          manifestUrl: `${base}/${token}/master.m3u8`,
          expiresInSeconds: options.urlTtlSeconds,
          drmScheme: 'DRM_SCHEME_UNSPECIFIED' as const,
          licenseUrl: '',
          drmParams: {},
          availableQualities: pkg.renditions.map((r) => ({ label: r.quality, bitrateKbps: Math.round(r.bandwidth / 1000), codec: r.codecs })),
        },
      };
    },

    /** The claims of a valid token that opens `kind`, and its title's package; or the 403 of a stream URL that opens nothing. */
    async opened(token: string, kind: 'manifest' | 'media'): Promise<{ claims: VideoStreamClaims; pkg: VideoPackage }> {
      const claims = options.signer.verify(token, kind);
      if (!claims) throw new ApiError('streamUrlInvalid');
      const pkg = await repo.packageOf(claims.titleKind, claims.titleId);
      if (pkg === undefined) throw new ApiError('streamUrlInvalid');
      return { claims, pkg };
    },

    /** The master playlist a manifest token opens, its URLs signed with a media token for the viewing window. */
    master(claims: VideoStreamClaims, pkg: VideoPackage): string {
      const media = options.signer.sign({ ...claims, kind: 'media', expiresAt: claims.listenUntil });
      return masterPlaylist(pkg, claims.maxQuality, (path) => `${base}/${media}/${path}`);
    },

    /** The AES-128 key of a stream's segments, once the user is checked again: still there, and the title still within their cap. */
    async key(claims: VideoStreamClaims, pkg: VideoPackage): Promise<Buffer> {
      await admittedTitle(claims.userId, { kind: claims.titleKind, id: claims.titleId });
      return Buffer.from(pkg.keyHex, 'hex');
    },

    /** The URL prefix under which a media token's files are fetched. */
    mediaBase: (token: string) => `${base}/${token}`,
  };
}

export type VideoStreamingService = ReturnType<typeof createVideoStreamingService>;
