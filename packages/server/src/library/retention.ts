import type { FastifyBaseLogger } from 'fastify';
import type { RetentionCutoffs, RetentionRepo } from './retention.repo.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** Forgets users' old changes, plays and kept answers (tests sweep at once). */
    retention: Retention;
  }
}

/** How often a node forgets what has aged out for the users it wrote for. */
export const RETENTION_SWEEP_MS = 60_000;
/** Users swept in one statement a table. */
const USERS_A_SWEEP = 500;

/**
 * What ages out of a user's rows (the change feed's 90 days, the history's
 * days, the 24 hours of kept answers) is forgotten here, once a minute, for
 * the users this node wrote for or claimed an Idempotency-Key for since the
 * last sweep, not by each write: a write of a library or a playlist once
 * spent two of its round trips to PostgreSQL on these deletes (issue 56).
 * What has aged out is never shown meanwhile: every read and check asks for
 * rows within their window. A user's rows are swept by whichever node
 * served their writes, a range of a (user, time) index each.
 */
export function createRetention(repo: RetentionRepo, cutoffs: (now: number) => RetentionCutoffs, clock: () => number, log: FastifyBaseLogger) {
  let written = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  let sweeping: Promise<void> = Promise.resolve();

  async function sweepNow(): Promise<void> {
    const users = [...written];
    written = new Set();
    for (let i = 0; i < users.length; i += USERS_A_SWEEP) {
      const batch = users.slice(i, i + USERS_A_SWEEP);
      try {
        await repo.forget(batch, cutoffs(clock()));
      } catch (error) {
        // Swept with the next minute's users.
        for (const user of batch) written.add(user);
        log.warn({ err: error }, 'could not forget aged-out library rows; tried again in a minute');
      }
    }
  }

  return {
    /** Notes a user whose rows changed: swept at the next sweep. */
    noteUser(userId: string): void {
      written.add(userId);
    },
    /** Sweeps the users noted so far (sweeps never overlap). */
    sweep(): Promise<void> {
      sweeping = sweeping.then(sweepNow);
      return sweeping;
    },
    start(): void {
      timer ??= setInterval(() => void this.sweep(), RETENTION_SWEEP_MS).unref();
    },
    async stop(): Promise<void> {
      clearInterval(timer);
      timer = undefined;
      await sweeping;
    },
  };
}

export type Retention = ReturnType<typeof createRetention>;
