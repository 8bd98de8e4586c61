import { randomUUID } from 'node:crypto';
import { DomainError } from '../errors.ts';
import type { TokenPrincipal } from '../principal.ts';
import { rank } from './qualities.ts';
import type { StreamUrlSigner } from './stream-urls.ts';
import type { StreamingRepo } from './streaming.repo.ts';


export interface AcquiredStream {
  stream: {
    manifestUrl: string;
    expiresInSeconds: number;
    drmScheme: 'DRM_SCHEME_UNSPECIFIED';
    licenseUrl: string;
    drmParams: Record<string, string>;
    availableQualities: { label: string; bitrateKbps: number; codec: string }[];
  };
  /** Whether this acquisition was billed (a new ledger row). */
  billed: boolean;
}

export interface StreamingOptions {
  publicUrl: string;
  /** MAQAM_STREAM_URL_TTL: how long the manifest URL may first be fetched, and the billing window. */
  urlTtlSeconds: number;
  /** MAQAM_STREAM_GRACE: the pauses a listening window allows beyond the song's duration. */
  graceSeconds: number;
  signer: StreamUrlSigner;
  clock?: () => number;
}

export function createStreamingService(repo: StreamingRepo, options: StreamingOptions) {
  const clock = options.clock ?? Date.now;
  return {
    /**
     * AcquireMusicStream: picks the best packaged quality at or below
     * maxQuality, bills it unless the same (user, song, quality) was billed
     * within the manifest URL's lifetime, and answers a fresh signed manifest
     * URL. The ledger row is written, in one transaction with the
     * entitlement, before the answer exists.
     *
     * The manifest URL expires after the TTL; the listening window (what its
     * playlist leads to) is fixed here, at acquisition, and sealed into it.
     * "While an earlier URL is still valid" (contract section 7) is read as
     * the manifest URL's TTL: the window keeps a stream already started
     * playing, it does not make a later acquisition free.
     */
    async acquire(principal: TokenPrincipal, songId: string, maxQuality: string | undefined): Promise<AcquiredStream> {
      const durationMs = await repo.playableDurationMs(songId);
      if (durationMs === undefined) throw new DomainError('songNotFound', { params: { id: songId } });
      const media = (await repo.mediaOf(songId)).sort((a, b) => rank(a.quality) - rank(b.quality));
      if (media.length === 0) throw new DomainError('mediaNotFound', { params: { id: songId } });
      const allowed = maxQuality === undefined ? media : media.filter((m) => rank(m.quality) <= rank(maxQuality));
      const chosen = allowed[allowed.length - 1];
      if (!chosen) throw new DomainError('mediaNotFoundAtQuality', { params: { id: songId, quality: maxQuality! } });

      const now = clock();
      const expiresAt = now + options.urlTtlSeconds * 1000;
      // Never before the manifest itself expires: a playlist fetched late in its TTL leads to URLs that still work.
      const listenUntil = Math.max(expiresAt, now + durationMs + options.graceSeconds * 1000);
      const billed = await repo.billUnlessWindowOpen({
        ledgerId: randomUUID(), userId: principal.userId, clientId: principal.clientId, songId, quality: chosen.quality, acquiredAt: now, windowEndsAt: expiresAt,
      });

      const token = options.signer.sign({ kind: 'manifest', userId: principal.userId, songId, quality: chosen.quality, expiresAt, listenUntil });
      return {
        billed,
        stream: {
          manifestUrl: `${options.publicUrl}/v1/streaming/hls/${token}/index.m3u8`,
          expiresInSeconds: options.urlTtlSeconds,
          drmScheme: 'DRM_SCHEME_UNSPECIFIED',
          licenseUrl: '',
          drmParams: {},
          availableQualities: media.map((m) => ({ label: m.quality, bitrateKbps: m.bitrate_kbps, codec: m.codec })),
        },
      };
    },

    /** The media directory (relative to the media root) a stream URL's song and quality open, if packaged. */
    mediaDirectory: (songId: string, quality: string) => repo.mediaDirectory(songId, quality),
  };
}

export type StreamingService = ReturnType<typeof createStreamingService>;
