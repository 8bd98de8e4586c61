import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import { coolingOffAfterFailure, createResilientRedis, RedisCoolingOffError } from '../storage/redis-client.ts';
import { ApiError } from '../errors.ts';
import type { Principal } from '../principal.ts';

/** One counted call: how many calls the key has made in its window, and when the window ends. */
export interface WindowCount {
  readonly count: number;
  readonly resetAtMs: number;
}

/** Where counts live: process memory for one node, Redis for many. */
export interface RateLimitStore {
  /** Resolves when the store can count (or has given up trying for now). */
  ready(): Promise<void>;
  /** Counts one call of `key` atomically and answers the count including it. */
  hit(key: string, windowMs: number, nowMs: number): Promise<WindowCount>;
  /** Takes back one counted call (a sign-in that turned out right), never below zero. */
  release(key: string, nowMs: number): Promise<void>;
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
    return { count: window.count, resetAtMs: window.resetAtMs };
  }

  async release(key: string, nowMs: number): Promise<void> {
    const window = this.#windows.get(key);
    if (window !== undefined && window.resetAtMs > nowMs && window.count > 0) window.count--;
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

// DECR only a live key above zero: a bare DECR on an expired key would make one without expiry.
const RELEASE_SCRIPT = `
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
if count > 0 then redis.call('DECR', KEYS[1]) end
return 0`;

export class RateLimitStoreUnavailableError extends Error {
  override name = 'RateLimitStoreUnavailableError';
}

/** How long a Redis command may take before the limiter gives up on it. */
const REDIS_COMMAND_TIMEOUT_MS = 250;
/** After a failure, Redis is left alone this long (one probe after it), so an outage costs requests nothing. */
const REDIS_COOL_OFF_MS = 1000;

type RateCommands = {
  maqamRateHit(key: string, windowMs: number): Promise<[number, number]>;
  maqamRateRelease(key: string): Promise<number>;
};

/**
 * Fixed windows counted in Redis, shared by every node that points at it.
 * Redis down or slow must never hold a request: commands have a short
 * deadline, nothing is queued while disconnected, and after a failure the
 * store fails fast for a cool-off period instead of making every request
 * wait out the deadline again; the first call after it probes Redis.
 */
export class RedisRateLimitStore implements RateLimitStore {
  readonly #redis: Redis & RateCommands;
  readonly #coolingOff: ReturnType<typeof coolingOffAfterFailure>;
  readonly #prefix: string;

  /**
   * `deploymentId` (Storage.deploymentId) names the deployment: nodes of one
   * deployment share their counts however their DATABASE_URLs spell it, and
   * two deployments on one Redis do not spend each other's limits (an
   * address's sign-ins above all).
   */
  constructor(url: string, deploymentId: string, clock: () => number = Date.now) {
    this.#prefix = `maqam:rate:${deploymentId}:`;
    this.#coolingOff = coolingOffAfterFailure(clock, REDIS_COOL_OFF_MS);
    // Reconnects quickly, so limits are back within a second or so of Redis.
    this.#redis = createResilientRedis(url, REDIS_COMMAND_TIMEOUT_MS) as Redis & RateCommands;
    this.#redis.defineCommand('maqamRateHit', { numberOfKeys: 1, lua: HIT_SCRIPT });
    this.#redis.defineCommand('maqamRateRelease', { numberOfKeys: 1, lua: RELEASE_SCRIPT });
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

  async #run<T>(command: () => Promise<T>): Promise<T> {
    try {
      return await this.#coolingOff(command);
    } catch (error) {
      if (error instanceof RedisCoolingOffError) throw new RateLimitStoreUnavailableError(error.message);
      throw new RateLimitStoreUnavailableError(`Redis did not answer: ${(error as Error).message}`, { cause: error });
    }
  }

  async hit(key: string, windowMs: number, nowMs: number): Promise<WindowCount> {
    const [count, ttl] = await this.#run(() => this.#redis.maqamRateHit(this.#prefix + key, windowMs));
    return { count, resetAtMs: nowMs + ttl };
  }

  async release(key: string): Promise<void> {
    await this.#run(() => this.#redis.maqamRateRelease(this.#prefix + key));
  }

  async close(): Promise<void> {
    this.#redis.disconnect();
  }
}

/**
 * Counts in `shared` while it answers and in this process's memory when it
 * does not. For the limits that protect accounts (failed sign-ins), where
 * stepping aside during a Redis outage would open the door to guessing.
 */
export class FallbackRateLimitStore implements RateLimitStore {
  readonly #shared: RateLimitStore;
  readonly #local = new MemoryRateLimitStore();

  constructor(shared: RateLimitStore) {
    this.#shared = shared;
  }

  ready(): Promise<void> {
    return this.#shared.ready();
  }

  async hit(key: string, windowMs: number, nowMs: number): Promise<WindowCount> {
    try {
      return await this.#shared.hit(key, windowMs, nowMs);
    } catch {
      return this.#local.hit(key, windowMs, nowMs);
    }
  }

  async release(key: string, nowMs: number): Promise<void> {
    await Promise.all([this.#shared.release(key, nowMs).catch(() => {}), this.#local.release(key, nowMs)]);
  }

  close(): Promise<void> {
    return this.#shared.close();
  }
}

/** The rate-limit key of a credential: the API key, or the client and user of a token. */
export function principalKey(principal: Principal): string {
  return principal.kind === 'apiKey' ? `key:${principal.keyId}` : `token:${principal.clientId}:${principal.userId}`;
}

/** The rate-limit key of a credentialed request. */
export function credentialKey(request: FastifyRequest): string | undefined {
  return request.principal === null ? undefined : principalKey(request.principal);
}

/** The rate-limit key of the auth endpoints, which take no credential: the client's address. */
export function addressKey(request: FastifyRequest): string {
  return `ip:${request.ip}`;
}

/** One call counted: its key's window, or undefined when the store could not count it; and when it was counted. */
export interface CountedCall {
  readonly window: WindowCount | undefined;
  readonly nowMs: number;
}

/** A rate limiter: the onRequest hook that counts a call and refuses it over the limit. */
export type RateLimiter = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

/**
 * Limits calls per key (contract section 8): per credential on the API, per
 * IP on the auth endpoints. Every limited answer carries X-RateLimit-Limit,
 * -Remaining and -Reset, and a call over the limit is a 429 with Retry-After.
 * A batch counts as one call. If the store fails the request is let through
 * without the headers: a Redis outage must not take the API down with it.
 */
export function createRateLimiter(options: {
  store: RateLimitStore;
  perMinute: number;
  log: FastifyBaseLogger;
  keyOf: (request: FastifyRequest) => string | undefined;
  clock?: () => number;
}): RateLimiter {
  const { store, perMinute, log, keyOf } = options;
  const clock = options.clock ?? Date.now;
  let lastFailureLogMs = 0;

  /** Counts one call of `key`; a store that fails is logged (at most every 10 s) and counts nothing. */
  async function count(key: string): Promise<CountedCall> {
    const nowMs = clock();
    try {
      return { window: await store.hit(key, WINDOW_MS, nowMs), nowMs };
    } catch (error) {
      if (nowMs - lastFailureLogMs > 10_000) {
        lastFailureLogMs = nowMs;
        log.warn({ err: error }, 'rate limit store unavailable; not limiting');
      }
      return { window: undefined, nowMs };
    }
  }

  function headerValues(window: WindowCount, limit: number): string[] {
    return [
      'x-ratelimit-limit', String(limit),
      'x-ratelimit-remaining', String(Math.max(0, limit - window.count)),
      'x-ratelimit-reset', String(Math.ceil(window.resetAtMs / 1000)),
    ];
  }

  /**
   * The limit a request is held to, and the refusal that says which it is:
   * an API key's own (contract section 16: never above the server's), the
   * server's for a key, or the server's.
   */
  function limitOf(request: FastifyRequest): { limit: number; reason: 'rateLimited' | 'apiKeyRateLimited' | 'apiKeyServerRateLimited' } {
    const principal = request.principal;
    if (principal?.kind !== 'apiKey') return { limit: perMinute, reason: 'rateLimited' };
    const own = principal.rateLimitPerMinute;
    return own !== null && own < perMinute ? { limit: own, reason: 'apiKeyRateLimited' } : { limit: perMinute, reason: 'apiKeyServerRateLimited' };
  }

  async function limitCalls(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const key = keyOf(request);
    if (key === undefined) return;
    const { window, nowMs } = await count(key);
    if (window === undefined) return;
    const { limit, reason } = limitOf(request);
    const headers = headerValues(window, limit);
    for (let i = 0; i < headers.length; i += 2) reply.header(headers[i]!, headers[i + 1]!);
    if (window.count > limit) {
      const retryAfter = Math.max(1, Math.ceil((window.resetAtMs - nowMs) / 1000));
      throw new ApiError(reason, { params: { retryAfter, limit }, headers: { 'retry-after': String(retryAfter) } });
    }
  }

  return limitCalls;
}
