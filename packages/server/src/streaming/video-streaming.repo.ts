import type { Db } from '../storage/database.ts';
import type { AudioRendition, SubtitleRendition, VideoPackage, VideoRendition } from './video-package.ts';

/** A video acquisition billed: as a song's (streaming.repo.ts BilledStream), of a film or an episode. */
export interface BilledVideoStream {
  readonly ledgerId: string;
  readonly userId: string;
  readonly clientId: string;
  readonly titleKind: 'movie' | 'episode';
  readonly titleId: string;
  readonly quality: string;
  readonly acquiredAt: number;
  readonly windowEndsAt: number;
}

/** A playable title: its duration and the ranks the parental rule judges it by (video/age-rating.ts). */
export interface StreamableTitle {
  readonly durationMs: number;
  readonly ratingRanks: readonly number[];
  /** Its rating for a refusal's message: the higher of an episode's own and its show's. */
  readonly rating: string | null;
}

/** What video streaming reads and writes: titles' packages and ratings, users' caps, billing windows and the ledger. */
export function createVideoStreamingRepo(db: Db) {
  return {
    /** A live (not withdrawn) title's duration and rating ranks; undefined when there is no such title. */
    async title(kind: 'movie' | 'episode', id: string): Promise<StreamableTitle | undefined> {
      if (kind === 'movie') {
        const row = await db.selectFrom('movies').select(['duration_ms', 'rating_rank', 'age_rating']).where('id', '=', id).where('withdrawn', '=', 0).executeTakeFirst();
        return row && { durationMs: Number(row.duration_ms), ratingRanks: [row.rating_rank], rating: row.age_rating };
      }
      const row = await db
        .selectFrom('episodes as e')
        .innerJoin('seasons as se', 'se.id', 'e.season_id')
        .innerJoin('shows as sh', 'sh.id', 'se.show_id')
        .select(['e.duration_ms', 'e.rating_rank', 'e.age_rating', 'sh.rating_rank as show_rank', 'sh.age_rating as show_rating'])
        .where('e.id', '=', id)
        .where('e.withdrawn', '=', 0)
        .where('se.withdrawn', '=', 0)
        .where('sh.withdrawn', '=', 0)
        .executeTakeFirst();
      return row && {
        durationMs: Number(row.duration_ms),
        ratingRanks: [row.rating_rank, row.show_rank],
        rating: row.rating_rank > row.show_rank ? row.age_rating : row.show_rating,
      };
    },

    /** The user's parental cap as stored now (null: none); undefined when the user is gone. */
    async userCap(userId: string): Promise<string | null | undefined> {
      const row = await db.selectFrom('users').select('max_age_rating').where('id', '=', userId).executeTakeFirst();
      return row === undefined ? undefined : row.max_age_rating;
    },

    /** The title's package, if it has one. */
    async packageOf(kind: 'movie' | 'episode', id: string): Promise<VideoPackage | undefined> {
      const row = await db.selectFrom('video_packages').selectAll().where('title_kind', '=', kind).where('title_id', '=', id).executeTakeFirst();
      return row && {
        directory: row.directory,
        renditions: JSON.parse(row.renditions) as VideoRendition[],
        audio: JSON.parse(row.audio) as AudioRendition[],
        subtitles: JSON.parse(row.subtitles) as SubtitleRendition[],
        keyHex: row.key_hex,
        ivHex: row.iv_hex,
        durationMs: Number(row.duration_ms),
      };
    },

    /**
     * Bills a video stream unless the same user, title and quality has a
     * billing window open (claimed atomically, as a song's), writing the
     * ledger row with its content kind in the same transaction.
     */
    async billUnlessWindowOpen(stream: BilledVideoStream): Promise<boolean> {
      return db.transaction().execute(async (trx) => {
        const claimed = await trx
          .insertInto('video_entitlements')
          .values({ user_id: stream.userId, title_kind: stream.titleKind, title_id: stream.titleId, quality: stream.quality, ledger_id: stream.ledgerId, expires_at: stream.windowEndsAt })
          .onConflict((oc) =>
            oc
              .columns(['user_id', 'title_kind', 'title_id', 'quality'])
              .doUpdateSet({ ledger_id: stream.ledgerId, expires_at: stream.windowEndsAt })
              .where('video_entitlements.expires_at', '<=', stream.acquiredAt),
          )
          .returning('ledger_id')
          .executeTakeFirst();
        if (claimed?.ledger_id !== stream.ledgerId) return false;
        await trx
          .insertInto('stream_ledger')
          .values({
            id: stream.ledgerId, user_id: stream.userId, client_id: stream.clientId, song_id: stream.titleId, quality: stream.quality, acquired_at: stream.acquiredAt,
            content_kind: stream.titleKind,
          })
          .execute();
        return true;
      });
    },
  };
}

export type VideoStreamingRepo = ReturnType<typeof createVideoStreamingRepo>;
