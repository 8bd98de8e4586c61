import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ApiKeysRepo, UsageRow } from './api-keys.repo.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** This node's count of answers to API keys (tests flush it). */
    keyUsage: KeyUsage;
  }
}

/** reportLeaked takes no credential: this many reports a minute per address. */
export const LEAK_REPORTS_PER_MINUTE = 10;

/** How often each node writes what it counted: a key's use never writes a row per request (contract section 16). */
export const USAGE_FLUSH_MS = 60_000;

/** How often each node hands its counts to the shared tally, when there is one: what a killed node can lose. */
export const USAGE_SHARE_MS = 1_000;

/**
 * Counts kept between the nodes and the database (Redis: keys/redis-usage-tally.ts):
 * every node adds to it often, any node takes what it holds to write.
 */
export interface SharedUsageTally {
  /** Adds counts; throws if they were not added. */
  add(rows: readonly UsageRow[]): Promise<void>;
  /** Takes everything held, atomically: two nodes never take the same counts. */
  take(): Promise<UsageRow[]>;
  /** One key's counts held, not yet taken. */
  pendingOf(keyId: string): Promise<UsageRow[]>;
  close(): Promise<void>;
}

/** The UTC day of a time, YYYY-MM-DD. */
export const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

const slotOf = (row: Pick<UsageRow, 'key_id' | 'day' | 'operation'>) => `${row.key_id}\n${row.day}\n${row.operation}`;

/** Counts per (key, day, operation), added to as requests are answered and as counts come back from a failed write. */
class UsageCounts {
  readonly #slots = new Map<string, UsageRow>();

  get size(): number {
    return this.#slots.size;
  }

  add(row: UsageRow): void {
    const slot = slotOf(row);
    const kept = this.#slots.get(slot);
    if (kept === undefined) this.#slots.set(slot, { ...row });
    else {
      kept.calls += row.calls;
      kept.client_errors += row.client_errors;
      kept.rate_limited += row.rate_limited;
    }
  }

  count(keyId: string, day: string, operation: string, status: number): void {
    const slot = `${keyId}\n${day}\n${operation}`;
    let row = this.#slots.get(slot);
    if (row === undefined) this.#slots.set(slot, (row = { key_id: keyId, day, operation, calls: 0, client_errors: 0, rate_limited: 0 }));
    row.calls++;
    if (status >= 400 && status < 500) row.client_errors++;
    if (status === 429) row.rate_limited++;
  }

  rows(keyId?: string): UsageRow[] {
    const rows = [...this.#slots.values()];
    return keyId === undefined ? rows : rows.filter((row) => row.key_id === keyId);
  }

  calls(): number {
    let n = 0;
    for (const row of this.#slots.values()) n += row.calls;
    return n;
  }
}

/**
 * Counts each answer to an API key per key, day, operation and status class
 * in this process's memory; a request never writes. Once a minute (`start`)
 * and when the node stops cleanly (`stop`) the counts are added to the
 * database. With a shared tally (Redis), the node hands its counts to it
 * every second instead, and each minute's flush writes what the tally holds
 * from every node: a killed node then loses a second's counts, not a minute's,
 * and every node's usage answers show every node's calls. A write that fails
 * keeps its counts for the next one.
 *
 * Handing over, flushing and reading what is pending run one at a time
 * (`serially`), so a read never sees counts twice or not at all while they
 * move between memory, the tally and the database on this node.
 */
export function createKeyUsage(
  repo: Pick<ApiKeysRepo, 'addUsage'>,
  clock: () => number,
  options: { shared?: SharedUsageTally | undefined; onError?: (error: unknown) => void } = {},
) {
  const { shared, onError = () => {} } = options;
  let counts = new UsageCounts();
  let flushTimer: NodeJS.Timeout | undefined;
  let shareTimer: NodeJS.Timeout | undefined;
  let queue: Promise<unknown> = Promise.resolve();

  function serially<T>(work: () => Promise<T>): Promise<T> {
    const run = queue.then(work);
    queue = run.catch(() => {});
    return run;
  }

  /** The counts so far, leaving an empty tally to count on; `restore` puts them back after a failed write. */
  function takeCounts(): { rows: UsageRow[]; restore(): void } {
    const taken = counts;
    counts = new UsageCounts();
    return { rows: taken.rows(), restore: () => { for (const row of taken.rows()) counts.add(row); } };
  }

  async function share(): Promise<void> {
    if (shared === undefined || counts.size === 0) return;
    const taken = takeCounts();
    try {
      await shared.add(taken.rows);
    } catch (error) {
      // Written to the database directly at the next flush if Redis is still away.
      taken.restore();
      onError(error);
    }
  }

  async function write(): Promise<void> {
    const taken = takeCounts();
    let fromShared: UsageRow[] = [];
    try {
      if (shared !== undefined) fromShared = await shared.take();
    } catch (error) {
      onError(error);
    }
    const rows = new UsageCounts();
    for (const row of [...taken.rows, ...fromShared]) rows.add(row);
    if (rows.size === 0) return;
    try {
      await repo.addUsage(rows.rows());
    } catch (error) {
      // Kept here for the next flush, added to whatever was counted meanwhile (the tally's share too: it was taken).
      for (const row of rows.rows()) counts.add(row);
      onError(error);
    }
  }

  return {
    /** The onResponse hook of every operation that admits API keys (http/edge.ts). */
    countAnswer(request: FastifyRequest, reply: FastifyReply, done: () => void): void {
      const principal = request.principal;
      if (principal?.kind === 'apiKey') {
        const schema = request.routeOptions.schema as { operationId?: string } | undefined;
        counts.count(principal.keyId, dayOf(clock()), schema?.operationId ?? request.routeOptions.url ?? 'unknown', reply.statusCode);
      }
      done();
    },
    /** Hands this node's counts to the shared tally now (the timer does it every second). */
    share: (): Promise<void> => serially(share),
    /** Writes what is counted here (and what the shared tally holds) to the database. */
    flush: (): Promise<void> => serially(write),
    /** One key's counts not yet in the database: this node's, and the shared tally's (every node's) when there is one. */
    pendingOf: (keyId: string): Promise<UsageRow[]> => serially(async () => {
      const rows = new UsageCounts();
      for (const row of counts.rows(keyId)) rows.add(row);
      if (shared !== undefined) {
        try {
          for (const row of await shared.pendingOf(keyId)) rows.add(row);
        } catch (error) {
          onError(error);
        }
      }
      return rows.rows();
    }),
    start(): void {
      flushTimer ??= setInterval(() => void serially(write), USAGE_FLUSH_MS).unref();
      if (shared !== undefined) shareTimer ??= setInterval(() => void serially(share), USAGE_SHARE_MS).unref();
    },
    /** Stops the timers and writes what is left (a clean shutdown loses nothing). */
    async stop(): Promise<void> {
      clearInterval(flushTimer);
      clearInterval(shareTimer);
      flushTimer = shareTimer = undefined;
      await serially(write);
      await shared?.close();
    },
    /** Calls counted on this node and not yet handed on, for tests and metrics. */
    pending(): number {
      return counts.calls();
    },
  };
}

export type KeyUsage = ReturnType<typeof createKeyUsage>;
