import { Redis } from 'ioredis';

/**
 * A Redis client for work that must never hold a request up (rate-limit
 * counts, the shared write version): commands fail after `commandTimeoutMs`, nothing
 * is queued while disconnected, and the client reconnects by itself within
 * half a second or so of Redis coming back. Connects on first `connect()`.
 * Failures surface per command, never as an 'error' event on the process.
 */
export function createResilientRedis(url: string, commandTimeoutMs: number): Redis {
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: commandTimeoutMs,
    connectTimeout: 1000,
    lazyConnect: true,
    retryStrategy: (times) => Math.min(times * 50, 500),
  });
  redis.on('error', () => {});
  return redis;
}

/** Thrown instead of asking Redis while a cool-off after a failure lasts. */
export class RedisCoolingOffError extends Error {
  constructor() {
    super('Redis failed recently; not asking it again yet');
  }
}

/**
 * Runs Redis commands so that an outage does not make every caller wait out
 * the command timeout: after a failure, calls fail at once with
 * RedisCoolingOffError for `coolOffMs`, and the first call after that probes
 * Redis again. A command's own failure is thrown as it is.
 */
export function coolingOffAfterFailure(clock: () => number, coolOffMs: number) {
  let coolOffUntilMs = 0;
  return async function run<T>(command: () => Promise<T>): Promise<T> {
    if (clock() < coolOffUntilMs) throw new RedisCoolingOffError();
    try {
      return await command();
    } catch (error) {
      coolOffUntilMs = clock() + coolOffMs;
      throw error;
    }
  };
}
