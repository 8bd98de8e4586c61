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

export function createStreamingService(repo: StreamingRepo, options: { publicUrl: string; urlTtlSeconds: number; signer: StreamUrlSigner; clock?: () => number }) {
  const clock = options.clock ?? Date.now;
  return {
    /**
     * AcquireMusicStream: picks the best packaged quality at or below
     * maxQuality, bills it unless the same (user, song, quality) was billed
     * within the URL lifetime, and answers a fresh signed playlist URL. The
     * ledger row is written, in one transaction with the entitlement, before
     * the answer exists.
     */
    async acquire(principal: TokenPrincipal, songId: string, maxQuality: string | undefined): Promise<AcquiredStream> {
      if (!(await repo.songPlayable(songId))) throw new DomainError('songNotFound', { params: { id: songId } });
      const media = (await repo.mediaOf(songId)).sort((a, b) => rank(a.quality) - rank(b.quality));
      if (media.length === 0) throw new DomainError('mediaNotFound', { params: { id: songId } });
      const allowed = maxQuality === undefined ? media : media.filter((m) => rank(m.quality) <= rank(maxQuality));
      const chosen = allowed[allowed.length - 1];
      if (!chosen) throw new DomainError('mediaNotFoundAtQuality', { params: { id: songId, quality: maxQuality! } });

      const now = clock();
      const expiresAt = now + options.urlTtlSeconds * 1000;
      const billed = await repo.billUnlessWindowOpen({
        ledgerId: randomUUID(), userId: principal.userId, clientId: principal.clientId, songId, quality: chosen.quality, acquiredAt: now, windowEndsAt: expiresAt,
      });

      const token = options.signer.sign({ userId: principal.userId, songId, quality: chosen.quality, expiresAt });
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
