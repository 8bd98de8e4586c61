import type { QueryCreator } from 'kysely';
import type { Database, Db } from './database.ts';

/** What a request's answer replays: its status, the headers that describe it, and its body. */
export interface StoredAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** What claiming a user's Idempotency-Key found. */
export type IdempotencyClaim =
  /** The key is this request's, claimed at `claimedAt`: what names the claim when its answer is kept or it is given back. */
  | { readonly kind: 'new'; readonly claimedAt: number }
  | { readonly kind: 'replay'; readonly answer: StoredAnswer }
  /** The key was used for another request (another method, path or body). */
  | { readonly kind: 'mismatch' }
  /** The same request is being answered now, by this node or another. */
  | { readonly kind: 'inFlight' };

export interface IdempotencyWindows {
  /** How long an answer is kept for replay (24 hours). */
  readonly keptMs: number;
  /** How long a request may hold its key unanswered before a retry may take it over (its node may have died). */
  readonly leaseMs: number;
}

/**
 * The answers of requests that carried an Idempotency-Key, per user (the
 * mechanism is http/idempotency.ts). One statement decides between two
 * requests with the same key on any nodes: the insert that wins claims it.
 */
export function createIdempotencyRecordsRepo(db: Db, windows: IdempotencyWindows) {
  /**
   * The statement that keeps the answer of the claim made at `claimedAt`,
   * built on `executor` (the database, or a WITH of a write's last
   * statement: library/user-write.ts) and run in the write's transaction,
   * so the effect and the answer that reports it commit together or
   * neither does. It returns the key, or no row when the claim is no longer
   * this request's (its lease ran out and a retry took the key over, or the
   * key was given back): then the write must not commit.
   */
  function completion(executor: QueryCreator<Database>, userId: string, key: string, claimedAt: number, answer: StoredAnswer) {
    return executor.updateTable('idempotency_records').set({ status: answer.status, headers: JSON.stringify(answer.headers), body: answer.body })
      .where('user_id', '=', userId).where('key', '=', key).where('created_at', '=', claimedAt).where('status', 'is', null)
      .returning('key');
  }

  return {
    async claim(userId: string, key: string, fingerprint: string, now: number): Promise<IdempotencyClaim> {
      // Answers past their 24 hours are deleted off the request's path (library/retention.ts); until then one counts as none.
      const inserted = await db.insertInto('idempotency_records')
        .values({ user_id: userId, key, fingerprint, created_at: now, status: null, headers: null, body: null })
        .onConflict((oc) => oc.columns(['user_id', 'key']).doNothing())
        .returning('key')
        .executeTakeFirst();
      if (inserted !== undefined) return { kind: 'new', claimedAt: now };
      const row = await db.selectFrom('idempotency_records').select(['fingerprint', 'created_at', 'status', 'headers', 'body'])
        .where('user_id', '=', userId).where('key', '=', key).executeTakeFirst();
      // Gone between the two statements (its request failed and gave it back): the retry's own retry claims it.
      if (row === undefined) return { kind: 'inFlight' };
      if (Number(row.created_at) < now - windows.keptMs) {
        // Kept past its 24 hours, not yet swept: the key is free. One request takes it over, by the time it saw.
        const taken = await db.updateTable('idempotency_records').set({ fingerprint, created_at: now, status: null, headers: null, body: null })
          .where('user_id', '=', userId).where('key', '=', key).where('created_at', '=', row.created_at)
          .returning('key').executeTakeFirst();
        return taken === undefined ? { kind: 'inFlight' } : { kind: 'new', claimedAt: now };
      }
      if (row.fingerprint !== fingerprint) return { kind: 'mismatch' };
      if (row.status === null) {
        if (Number(row.created_at) >= now - windows.leaseMs) return { kind: 'inFlight' };
        // Unanswered past its lease: whoever held it is gone. One retry takes it over, by the time it saw.
        const taken = await db.updateTable('idempotency_records').set({ created_at: now })
          .where('user_id', '=', userId).where('key', '=', key).where('status', 'is', null).where('created_at', '=', row.created_at)
          .returning('key').executeTakeFirst();
        return taken === undefined ? { kind: 'inFlight' } : { kind: 'new', claimedAt: now };
      }
      return { kind: 'replay', answer: { status: row.status, headers: JSON.parse(row.headers ?? '{}') as Record<string, string>, body: row.body ?? '' } };
    },

    completion,

    /** Keeps the answer of a request that wrote nothing (completion, on its own); false when the claim is no longer its. */
    async complete(userId: string, key: string, claimedAt: number, answer: StoredAnswer): Promise<boolean> {
      return (await completion(db, userId, key, claimedAt, answer).executeTakeFirst()) !== undefined;
    },

    /** Gives the claim made at `claimedAt` back unanswered (nothing was done: a retry runs the request again). */
    async release(userId: string, key: string, claimedAt: number): Promise<void> {
      await db.deleteFrom('idempotency_records')
        .where('user_id', '=', userId).where('key', '=', key).where('created_at', '=', claimedAt).where('status', 'is', null).execute();
    },
  };
}

export type IdempotencyRecordsRepo = ReturnType<typeof createIdempotencyRecordsRepo>;
