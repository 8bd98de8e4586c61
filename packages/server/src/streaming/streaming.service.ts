import { randomUUID } from 'node:crypto';
import type { Db } from '../storage/database.ts';
import type { TokenPrincipal } from '../http/credentials.ts';
import { rank } from './qualities.ts';
import type { StreamUrlSigner } from './stream-urls.ts';

export class NoSuchSongError extends Error {
  override name = 'NoSuchSongError';
}
export class NoMediaError extends Error {
  override name = 'NoMediaError';
  readonly maxQuality: string | undefined;
  constructor(maxQuality: string | undefined) {
    super('no media');
    this.maxQuality = maxQuality;
  }
}

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

export function createStreamingService(db: Db, options: { publicUrl: string; urlTtlSeconds: number; signer: StreamUrlSigner; clock?: () => number }) {
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
      const song = await db.selectFrom('songs').select('id').where('id', '=', songId).where('withdrawn', '=', 0).executeTakeFirst();
      if (!song) throw new NoSuchSongError(songId);
      const media = (await db.selectFrom('song_media').selectAll().where('song_id', '=', songId).execute()).sort((a, b) => rank(a.quality) - rank(b.quality));
      if (media.length === 0) throw new NoMediaError(undefined);
      const allowed = maxQuality === undefined ? media : media.filter((m) => rank(m.quality) <= rank(maxQuality));
      const chosen = allowed[allowed.length - 1];
      if (!chosen) throw new NoMediaError(maxQuality);

      const now = clock();
      const expiresAt = now + options.urlTtlSeconds * 1000;
      const ledgerId = randomUUID();
      const billed = await db.transaction().execute(async (trx) => {
        // Claims the billing window only if there is none or it has ended: atomic on either database.
        const claimed = await trx
          .insertInto('stream_entitlements')
          .values({ user_id: principal.userId, song_id: songId, quality: chosen.quality, ledger_id: ledgerId, expires_at: expiresAt })
          .onConflict((oc) =>
            oc
              .columns(['user_id', 'song_id', 'quality'])
              .doUpdateSet({ ledger_id: ledgerId, expires_at: expiresAt })
              .where('stream_entitlements.expires_at', '<=', now),
          )
          .returning('ledger_id')
          .executeTakeFirst();
        if (claimed?.ledger_id !== ledgerId) return false;
        await trx
          .insertInto('stream_ledger')
          .values({ id: ledgerId, user_id: principal.userId, client_id: principal.clientId, song_id: songId, quality: chosen.quality, acquired_at: now })
          .execute();
        return true;
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
  };
}

export type StreamingService = ReturnType<typeof createStreamingService>;
