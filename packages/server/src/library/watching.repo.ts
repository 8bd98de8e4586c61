import type { Storage } from '../storage/storage.ts';
import type { UserWriteSession } from './user-write.ts';
import { answered, read } from '../storage/phases.ts';

export type TitleKind = 'movie' | 'episode';

/** A title as continue watching judges it: its length, where its credits start, its ratings' ranks, and an episode's place in its show. */
export interface WatchedTitle {
  readonly kind: TitleKind;
  readonly id: string;
  readonly durationMs: number;
  readonly creditsStartMs: number | null;
  readonly ratingRanks: readonly number[];
  readonly showId: string | null;
}

/** Where a user is in a title (watch_progress). */
export interface Progress {
  readonly kind: TitleKind;
  readonly id: string;
  readonly showId: string | null;
  readonly positionMs: number;
  readonly reportedAt: number;
  readonly updatedAt: number;
  readonly finished: boolean;
  readonly hidden: boolean;
}

/** A show's episode in viewing order. */
export interface EpisodeInOrder {
  readonly id: string;
  readonly showId: string;
  readonly ratingRanks: readonly number[];
}

const progressOf = (row: {
  title_kind: TitleKind; title_id: string; show_id: string | null; position_ms: number; reported_at: number | string; updated_at: number | string; finished: number; hidden: number;
}): Progress => ({
  kind: row.title_kind, id: row.title_id, showId: row.show_id, positionMs: row.position_ms, reportedAt: Number(row.reported_at), updatedAt: Number(row.updated_at),
  finished: row.finished === 1, hidden: row.hidden === 1,
});

/**
 * A user's viewing progress (contract section 15): the reports as sent,
 * the resume point of each title, and the catalog facts the rules need.
 * Writes go through the user's write (user-write.ts).
 */
export function createWatchingRepo(storage: Pick<Storage, 'db' | 'idList'>) {
  const { db } = storage;
  return {
    /** Every title the user has progress in, latest first. */
    async progress(userId: string): Promise<Progress[]> {
      const rows = await db.selectFrom('watch_progress')
        .select(['title_kind', 'title_id', 'show_id', 'position_ms', 'reported_at', 'updated_at', 'finished', 'hidden'])
        .where('user_id', '=', userId).orderBy('updated_at', 'desc').execute();
      return rows.map(progressOf);
    },

    /** The live episodes of these shows in viewing order (season number, episode number, id). */
    async episodesInOrder(showIds: readonly string[]): Promise<EpisodeInOrder[]> {
      if (showIds.length === 0) return [];
      const rows = await db
        .selectFrom('episodes as e')
        .innerJoin('seasons as se', 'se.id', 'e.season_id')
        .innerJoin('shows as sh', 'sh.id', 'se.show_id')
        .select(['e.id', 'se.show_id', 'e.rating_rank', 'sh.rating_rank as show_rank'])
        .where('se.show_id', 'in', storage.idList(showIds))
        .where('e.withdrawn', '=', 0).where('se.withdrawn', '=', 0).where('sh.withdrawn', '=', 0)
        .orderBy('se.show_id').orderBy('se.season_number').orderBy('e.episode_number').orderBy('e.id')
        .execute();
      return rows.map((row) => ({ id: row.id, showId: row.show_id, ratingRanks: [row.rating_rank, row.show_rank] }));
    },

    /** The user's progress within one of their writes (user-write.ts). */
    within(session: UserWriteSession) {
      const { userId, write } = session;
      return {
        /**
         * In one read: these titles where live (films, and episodes of live seasons and shows), with what continue
         * watching judges them by, keyed kind NUL id; the user's progress in them, keyed the same; and which of
         * `reports` (kind NUL id NUL reportedAt) the user sent before.
         */
        async before(items: readonly { kind: TitleKind; id: string }[], reports: readonly { kind: TitleKind; id: string; reportedAt: number }[]) {
          const ids = (kind: TitleKind) => [...new Set(items.filter((item) => item.kind === kind).map((item) => item.id))];
          const [movies, episodes] = [ids('movie'), ids('episode')];
          const allIds = [...new Set(items.map((item) => item.id))];
          const key = (kind: TitleKind, id: string) => `${kind}\u0000${id}`;
          const [movieTitles, episodeTitles, progress, reported] = await session.read(
            movies.length === 0 ? answered([]) : read(db.selectFrom('movies').select(['id', 'duration_ms', 'credits_start_ms', 'rating_rank'])
              .where('id', 'in', storage.idList(movies)).where('withdrawn', '=', 0),
            (rows) => rows.map((row): WatchedTitle => ({
              kind: 'movie', id: row.id, durationMs: row.duration_ms, creditsStartMs: row.credits_start_ms, ratingRanks: [row.rating_rank], showId: null,
            }))),
            episodes.length === 0 ? answered([]) : read(db.selectFrom('episodes as e')
              .innerJoin('seasons as se', 'se.id', 'e.season_id')
              .innerJoin('shows as sh', 'sh.id', 'se.show_id')
              .select(['e.id', 'e.duration_ms', 'e.credits_start_ms', 'e.rating_rank', 'sh.rating_rank as show_rank', 'se.show_id'])
              .where('e.id', 'in', storage.idList(episodes))
              .where('e.withdrawn', '=', 0).where('se.withdrawn', '=', 0).where('sh.withdrawn', '=', 0),
            (rows) => rows.map((row): WatchedTitle => ({
              kind: 'episode', id: row.id, durationMs: row.duration_ms, creditsStartMs: row.credits_start_ms, ratingRanks: [row.rating_rank, row.show_rank], showId: row.show_id,
            }))),
            read(db.selectFrom('watch_progress')
              .select(['title_kind', 'title_id', 'show_id', 'position_ms', 'reported_at', 'updated_at', 'finished', 'hidden'])
              .where('user_id', '=', userId).where('title_id', 'in', storage.idList(allIds)), (rows) => rows.map(progressOf)),
            reports.length === 0 ? answered([]) : read(db.selectFrom('watch_reports').select(['title_kind', 'title_id', 'reported_at'])
              .where('user_id', '=', userId).where('title_id', 'in', storage.idList(allIds))
              .where('reported_at', 'in', [...new Set(reports.map((report) => report.reportedAt))]),
            (rows) => rows.map((row) => `${key(row.title_kind, row.title_id)}\u0000${Number(row.reported_at)}`)),
          );
          const asked = new Set(items.map((item) => key(item.kind, item.id)));
          return {
            titles: new Map([...movieTitles, ...episodeTitles].map((title) => [key(title.kind, title.id), title])),
            progress: new Map(progress.filter((row) => asked.has(key(row.kind, row.id))).map((row) => [key(row.kind, row.id), row])),
            reported: new Set(reported),
          };
        },

        /** A change of the user's feed: a finish (CHANGE_UPDATED) or a hide (CHANGE_REMOVED). */
        recordChange(kind: TitleKind, id: string, change: 'CHANGE_UPDATED' | 'CHANGE_REMOVED', now: number): void {
          session.record({ kind, id, change }, now);
        },

        /** Keeps a report the user did not send before (`before`). */
        keepReport(kind: TitleKind, id: string, reportedAt: number, positionMs: number, restart: boolean): void {
          write(db.insertInto('watch_reports')
            .values({ user_id: userId, title_kind: kind, title_id: id, reported_at: reportedAt, position_ms: positionMs, restart: restart ? 1 : 0 }));
        },

        saveProgress(progress: Progress): void {
          const values = {
            show_id: progress.showId, position_ms: progress.positionMs, reported_at: progress.reportedAt, updated_at: progress.updatedAt,
            finished: progress.finished ? 1 : 0, hidden: progress.hidden ? 1 : 0,
          };
          write(db.insertInto('watch_progress')
            .values({ user_id: userId, title_kind: progress.kind, title_id: progress.id, ...values })
            .onConflict((oc) => oc.columns(['user_id', 'title_kind', 'title_id']).doUpdateSet(values)));
        },
      };
    },
  };
}

export type WatchingRepo = ReturnType<typeof createWatchingRepo>;
export type WatchingWrite = ReturnType<WatchingRepo['within']>;
