import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ApiKeysRepo } from './api-keys.repo.ts';

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

interface Counts {
  calls: number;
  clientErrors: number;
  rateLimited: number;
}

/** The UTC day of a time, YYYY-MM-DD. */
export const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * Counts each answer to an API key per key, day, operation and status class
 * in this process's memory, and adds the counts to the database at most once
 * a minute (`start`) and when the node stops cleanly (`stop`): a request never
 * writes. A node killed loses at most the last minute's counts. A flush that
 * fails keeps its counts for the next one.
 */
export function createKeyUsage(repo: Pick<ApiKeysRepo, 'addUsage'>, clock: () => number, onError: (error: unknown) => void = () => {}) {
  let counts = new Map<string, Counts>();
  let timer: NodeJS.Timeout | undefined;
  let flushing: Promise<void> = Promise.resolve();

  function count(keyId: string, operation: string, status: number): void {
    const slot = `${keyId}\n${dayOf(clock())}\n${operation}`;
    let entry = counts.get(slot);
    if (entry === undefined) counts.set(slot, (entry = { calls: 0, clientErrors: 0, rateLimited: 0 }));
    entry.calls++;
    if (status >= 400 && status < 500) entry.clientErrors++;
    if (status === 429) entry.rateLimited++;
  }

  async function write(): Promise<void> {
    if (counts.size === 0) return;
    const taken = counts;
    counts = new Map();
    const rows = [...taken].map(([slot, c]) => {
      const [key_id, day, operation] = slot.split('\n') as [string, string, string];
      return { key_id, day, operation, calls: c.calls, client_errors: c.clientErrors, rate_limited: c.rateLimited };
    });
    try {
      await repo.addUsage(rows);
    } catch (error) {
      // Kept for the next flush: added to whatever was counted meanwhile.
      for (const [slot, c] of taken) {
        const now = counts.get(slot);
        if (now === undefined) counts.set(slot, c);
        else { now.calls += c.calls; now.clientErrors += c.clientErrors; now.rateLimited += c.rateLimited; }
      }
      onError(error);
    }
  }

  /** Writes what is counted; flushes never overlap (one asked for during another runs after it). */
  function flush(): Promise<void> {
    flushing = flushing.then(write);
    return flushing;
  }

  return {
    /** The onResponse hook of every operation that admits API keys (http/edge.ts). */
    countAnswer(request: FastifyRequest, reply: FastifyReply, done: () => void): void {
      const principal = request.principal;
      if (principal?.kind === 'apiKey') {
        const schema = request.routeOptions.schema as { operationId?: string } | undefined;
        count(principal.keyId, schema?.operationId ?? request.routeOptions.url ?? 'unknown', reply.statusCode);
      }
      done();
    },
    flush,
    start(): void {
      timer ??= setInterval(() => void flush(), USAGE_FLUSH_MS).unref();
    },
    /** Stops the timer and writes what is left (a clean shutdown loses nothing). */
    async stop(): Promise<void> {
      clearInterval(timer);
      timer = undefined;
      await flush();
    },
    /** Counts not yet written, for tests and metrics. */
    pending(): number {
      let n = 0;
      for (const c of counts.values()) n += c.calls;
      return n;
    },
  };
}

export type KeyUsage = ReturnType<typeof createKeyUsage>;
