import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import { Redis } from 'ioredis';
import { ApiError } from '../errors.ts';
import type { Principal } from './credentials.ts';

/** One counted call: how many calls the key has made in its window, and when the window ends. */
export interface WindowCount {
  readonly count: number;
  readonly resetAtMs: number;
}

/** Where counts live: process memory for one node, Redis for many. */
export interface RateLimitStore {
  /** Resolves when the store can count (or has given up trying for now). */
  ready(): Promise<void>;
  hit(key: string, windowMs: number, nowMs: number): Promise<WindowCount>;
  /** The current count of a key without counting a call (0 when its window is over). */
  peek(key: string, nowMs: number): Promise<number>;
  close(): Promise<void>;
}

const WINDOW_MS = 60_000;

/** Fixed windows counted in this process; expired windows are swept once a window. */
export class MemoryRateLimitStore implements RateLimitStore {
  readonly #windows = new Map<string, { count: number; resetAtMs: number }>();
  #nextSweepMs = 0;

  async ready(): Promise<void> {}

  async hit(key: string, windowMs: number, nowMs: number): Promise<WindowCount> {
    if (nowMs >= this.#nextSweepMs) {
      for (const [k, w] of this.#windows) if (w.resetAtMs <= nowMs) this.#windows.delete(k);
      this.#nextSweepMs = nowMs + windowMs;
    }
    let window = this.#windows.get(key);
    if (window === undefined || window.resetAtMs <= nowMs) {
      window = { count: 0, resetAtMs: nowMs + windowMs };
      this.#windows.set(key, window);
    }
    window.count++;
    return window;
  }

  async peek(key: string, nowMs: number): Promise<number> {
    const window = this.#windows.get(key);
    return window === undefined || window.resetAtMs <= nowMs ? 0 : window.count;
  }

  async close(): Promise<void> {}
}

// INCR and set the expiry in one step, so a crash between the two cannot leave a key that never expires.
const HIT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return { count, ttl }`;

/** Fixed windows counted in Redis, shared by every node that points at it. */
export class RedisRateLimitStore implements RateLimitStore {
  readonly #redis: Redis;

  constructor(url: string) {
    // No offline queue and one attempt per command: a limiter must answer now or step aside.
    this.#redis = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: true });
    this.#redis.on('error', () => {}); // surfaced per call; the client reconnects by itself
    this.#redis.defineCommand('maqamRateHit', { numberOfKeys: 1, lua: HIT_SCRIPT });
  }

  /**
   * Connects before the server takes traffic, so the first requests are
   * counted. If Redis does not answer within the timeout the server starts
   * anyway (limits step aside) and the client keeps reconnecting.
   */
  async ready(timeoutMs = 3000): Promise<void> {
    const connecting = this.#redis.connect().catch(() => {});
    await Promise.race([connecting, new Promise((resolve) => setTimeout(resolve, timeoutMs).unref())]);
  }

  async hit(key: string, windowMs: number, nowMs: number): Promise<WindowCount> {
    const [count, ttl] = (await (this.#redis as unknown as { maqamRateHit(k: string, w: number): Promise<[number, number]> }).maqamRateHit(
      `maqam:rate:${key}`,
      windowMs,
    ));
    return { count, resetAtMs: nowMs + ttl };
  }

  async peek(key: string): Promise<number> {
    return Number((await this.#redis.get(`maqam:rate:${key}`)) ?? 0);
  }

  async close(): Promise<void> {
    this.#redis.disconnect();
  }
}

function credentialKey(principal: Principal): string {
  return principal.kind === 'apiKey' ? `key:${principal.keyId}` : `token:${principal.clientId}:${principal.userId}`;
}

/**
 * Limits calls per credential (contract section 8): every answer to a
 * credentialed request carries X-RateLimit-Limit, -Remaining and -Reset, and
 * a call over the limit is a 429 with Retry-After. A batch counts as one call.
 * If the store fails the request is let through: a Redis outage must not take
 * the API down with it.
 */
export function createRateLimiter(options: { store: RateLimitStore; perMinute: number; log: FastifyBaseLogger; clock?: () => number }) {
  const { store, perMinute, log } = options;
  const clock = options.clock ?? Date.now;
  let lastFailureLogMs = 0;

  return async function limitPerCredential(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    if (request.principal === null) return;
    const now = clock();
    let window: WindowCount;
    try {
      window = await store.hit(credentialKey(request.principal), WINDOW_MS, now);
    } catch (error) {
      if (now - lastFailureLogMs > 10_000) {
        lastFailureLogMs = now;
        log.warn({ err: error }, 'rate limit store unavailable; not limiting');
      }
      return;
    }
    const resetSeconds = Math.ceil(window.resetAtMs / 1000);
    reply.header('x-ratelimit-limit', perMinute);
    reply.header('x-ratelimit-remaining', Math.max(0, perMinute - window.count));
    reply.header('x-ratelimit-reset', resetSeconds);
    if (window.count > perMinute) {
      const retryAfter = Math.max(1, Math.ceil((window.resetAtMs - now) / 1000));
      throw new ApiError('rateLimited', { params: { retryAfter }, headers: { 'retry-after': String(retryAfter) } });
    }
  };
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;
