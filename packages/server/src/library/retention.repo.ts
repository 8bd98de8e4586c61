import type { Db } from '../storage/database.ts';

/** Before when each kind of a user's rows is forgotten (Unix ms). */
export interface RetentionCutoffs {
  /** The change feed's entries (90 days). */
  readonly changesBefore: number;
  /** Plays (MAQAM_HISTORY_DAYS). */
  readonly playsBefore: number;
  /** Answers kept for Idempotency-Key replays (24 hours). */
  readonly answersBefore: number;
}

/**
 * Forgets users' rows past their retention. Each delete is a range of the
 * (user, time) index of its table for each user named, whatever the user's
 * count of rows or the table's size.
 */
export function createRetentionRepo(db: Db) {
  return {
    async forget(userIds: readonly string[], cutoffs: RetentionCutoffs): Promise<void> {
      if (userIds.length === 0) return;
      await db.deleteFrom('library_changes').where('user_id', 'in', userIds).where('changed_at', '<', cutoffs.changesBefore).execute();
      await db.deleteFrom('play_history').where('user_id', 'in', userIds).where('started_at', '<', cutoffs.playsBefore).execute();
      // An answer still being made (status null) is its request's until its lease; past 24 hours a claim is long abandoned.
      await db.deleteFrom('idempotency_records').where('user_id', 'in', userIds).where('created_at', '<', cutoffs.answersBefore).execute();
    },
  };
}

export type RetentionRepo = ReturnType<typeof createRetentionRepo>;
