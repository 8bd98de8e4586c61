import { Redis } from 'ioredis';

/**
 * A Redis client for work that must never hold a request up (rate-limit
 * counts, the write epoch): commands fail after `commandTimeoutMs`, nothing
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
