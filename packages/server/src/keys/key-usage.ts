import { randomUUID } from 'node:crypto';
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

/** Counts handed to the shared tally in one piece, named so that sending it again adds nothing twice. */
export interface UsageBatch {
  readonly id: string;
  readonly rows: readonly UsageRow[];
}

/** Counts taken from the shared tally: kept there, aside, until `finish` says the database has them. */
export interface UsageTake {
  readonly rows: readonly UsageRow[];
  finish(): Promise<void>;
}

/**
 * Counts kept between the nodes and the database (Redis: keys/redis-usage-tally.ts):
 * every node adds to it often, any node takes what it holds to write.
 */
export interface SharedUsageTally {
  /** Adds a batch once, however often it is sent; throws if it may not be in. */
  add(batch: UsageBatch): Promise<void>;
  /** Takes everything held, and what an earlier take left unwritten: two nodes never take the same counts. */
  take(): Promise<UsageTake[]>;
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
 * keeps its counts for the next one; a batch Redis may or may not have taken
 * (its answer came late) is only ever sent to Redis again, under its id.
 *
 * Handing over, flushing and reading run one at a time (`serially`), so a
 * read on this node sees each count once, whether it is in memory, in the
 * tally or in the database.
 */
export function createKeyUsage(
  repo: Pick<ApiKeysRepo, 'addUsage'>,
  clock: () => number,
  options: { shared?: SharedUsageTally | undefined; onError?: (error: unknown) => void } = {},
) {
  const { shared, onError = () => {} } = options;
  let counts = new UsageCounts();
  /** A batch handed to the tally whose answer did not come: sent again, as it is, before anything else. */
  let unsent: UsageBatch | undefined;
  let flushTimer: NodeJS.Timeout | undefined;
  let shareTimer: NodeJS.Timeout | undefined;
  let queue: Promise<unknown> = Promise.resolve();
  /** Work queued, so a timer does not pile hand-overs behind a stalled Redis. */
  let queued = 0;

  function serially<T>(work: () => Promise<T>): Promise<T> {
    queued++;
    const run = queue.then(work).finally(() => queued--);
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
    if (shared === undefined) return;
    try {
      if (unsent !== undefined) {
        await shared.add(unsent);
        unsent = undefined;
      }
      if (counts.size === 0) return;
      unsent = { id: randomUUID(), rows: takeCounts().rows };
      await shared.add(unsent);
      unsent = undefined;
    } catch (error) {
      onError(error);
    }
  }

  async function write(final = false): Promise<void> {
    if (final) await share();
    let takes: UsageTake[] = [];
    try {
      if (shared !== undefined) takes = await shared.take();
    } catch (error) {
      onError(error);
    }
    // At a clean stop with Redis away, a batch it may not have is written here rather than lost.
    const leftover = final && unsent !== undefined ? unsent.rows : [];
    const taken = takeCounts();
    const rows = new UsageCounts();
    for (const row of [...taken.rows, ...leftover, ...takes.flatMap((take) => take.rows)]) rows.add(row);
    if (rows.size === 0) return;
    try {
      await repo.addUsage(rows.rows());
    } catch (error) {
      // This node's counts are kept for the next flush; the tally keeps what was taken from it, for a later one.
      taken.restore();
      onError(error);
      return;
    }
    if (final) unsent = undefined;
    for (const take of takes) await take.finish().catch(onError);
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
    flush: (): Promise<void> => serially(() => write()),
    /**
     * One key's counts: those written (`readWritten`, read here so that no
     * flush runs meanwhile) and those not yet, this node's and the shared
     * tally's (every node's, handed on) when there is one.
     */
    read: (keyId: string, readWritten: () => Promise<readonly UsageRow[]>): Promise<UsageRow[]> => serially(async () => {
      const rows: UsageRow[] = [...await readWritten(), ...counts.rows(keyId), ...(unsent?.rows.filter((row) => row.key_id === keyId) ?? [])];
      if (shared !== undefined) {
        try {
          rows.push(...await shared.pendingOf(keyId));
        } catch (error) {
          onError(error);
        }
      }
      return rows;
    }),
    start(): void {
      flushTimer ??= setInterval(() => void serially(() => write()), USAGE_FLUSH_MS).unref();
      if (shared !== undefined) {
        shareTimer ??= setInterval(() => {
          if (queued === 0) void serially(share);
        }, USAGE_SHARE_MS).unref();
      }
    },
    /** Stops the timers and writes what is left (a clean shutdown loses nothing). */
    async stop(): Promise<void> {
      clearInterval(flushTimer);
      clearInterval(shareTimer);
      flushTimer = shareTimer = undefined;
      await serially(() => write(true));
      await shared?.close();
    },
    /** Calls counted on this node and not yet handed on, for tests and metrics. */
    pending(): number {
      return counts.calls();
    },
  };
}

export type KeyUsage = ReturnType<typeof createKeyUsage>;
