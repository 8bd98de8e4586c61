import { errorFromResponse, MaqamError, NetworkError, RateLimitError } from './errors.ts';

/**
 * A fetch of your own: a proxy, instrumentation, a test double.
 *
 * @example
 * const timed: FetchLike = async (input, init) => {
 *   const started = performance.now();
 *   try { return await fetch(input, init); } finally { metrics.observe(performance.now() - started); }
 * };
 * const maqam = new MaqamClient({ baseUrl, apiKey, fetch: timed });
 */
export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

export interface HttpOptions {
  baseUrl: string;
  fetch: FetchLike;
  /** Per attempt, in milliseconds. */
  timeoutMs: number;
  /** Retries of one call at most. */
  maxRetries: number;
  /** Longest wait before a retry that the client accepts, in milliseconds. */
  maxRetryDelayMs: number;
  /** Shared by every call of one client; see RetryBudget. */
  retryBudget: RetryBudget;
  /** Accept-Language of every call that names no locale of its own (sign-in's calls too); none when undefined. */
  acceptLanguage?: string | undefined;
}

/**
 * The runtime's language, sent as Accept-Language when the app set no
 * locale: the browser's (navigator.language; Deno and Node 21+ have it too),
 * else Intl's default locale (Node 20, Bun: from the environment, LANG). Sent
 * nothing, the server answers in its default, Arabic: an English-speaking
 * developer's first error message came in a language the app never chose.
 * Unicode extensions (-u-nu-latn) are left out: Accept-Language is a language.
 */
export function runtimeLocale(): string | undefined {
  let locale = (globalThis as { navigator?: { language?: unknown } }).navigator?.language;
  if (typeof locale !== 'string' || locale === '') {
    try {
      locale = new Intl.DateTimeFormat().resolvedOptions().locale;
    } catch {
      return undefined;
    }
  }
  const language = (locale as string).split(/-[0-9a-z]-/i)[0]!;
  return /^[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*$/.test(language) ? language : undefined;
}

/**
 * A client-wide allowance of retries (the token bucket of gRPC's retry
 * throttling): each failed attempt costs a token, each success earns back a
 * fraction of one, and retries stop while the bucket is at half or less. A
 * per-call limit alone lets a thousand failing calls make four thousand
 * requests to a server that is already struggling; the budget caps retries
 * at about one per ten successful calls once things go wrong.
 */
export class RetryBudget {
  #tokens: number;
  readonly #maxTokens: number;
  readonly #tokenRatio: number;

  constructor(maxTokens = 10, tokenRatio = 0.1) {
    this.#maxTokens = maxTokens;
    this.#tokenRatio = tokenRatio;
    this.#tokens = maxTokens;
  }

  succeeded(): void {
    this.#tokens = Math.min(this.#maxTokens, this.#tokens + this.#tokenRatio);
  }

  /** Records a failed attempt; whether a retry may follow it. */
  failed(): boolean {
    this.#tokens = Math.max(0, this.#tokens - 1);
    return this.#tokens > this.#maxTokens / 2;
  }
}

export interface CallOptions {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal | undefined;
  /**
   * Whether repeating the call cannot change anything (reads). Only such calls
   * are retried after a network failure: a write may have reached the server.
   */
  idempotent: boolean;
  /**
   * A write's Idempotency-Key, sent on every attempt: the server answers a
   * repeat from the first answer, so the write is retried like a read.
   */
  idempotencyKey?: string | undefined;
}

/**
 * In a page of another origin, a browser reports a CORS refusal as a bare
 * network failure: say so, since it is the likely cause.
 */
function corsHint(baseUrl: string): string {
  const origin = (globalThis as { location?: { origin?: string } }).location?.origin;
  if (origin === undefined || origin === 'null' || new URL(baseUrl).origin === origin) return '';
  return ` (this page's origin ${origin} is not the API's: if the API does not trust it for CORS, the browser refuses the answer and reports a network error; register it as a client redirect URI or in MAQAM_CORS_ORIGINS)`;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(signal.reason);
    }, { once: true });
  });

/** Seconds to wait from Retry-After (seconds or an HTTP date), else X-RateLimit-Reset (Unix seconds). */
export function retryDelaySeconds(response: Response, now = Date.now()): number | undefined {
  const retryAfter = response.headers.get('retry-after');
  if (retryAfter !== null) {
    const seconds = Number(retryAfter);
    if (Number.isFinite(seconds)) return Math.max(0, seconds);
    const date = Date.parse(retryAfter);
    if (!Number.isNaN(date)) return Math.max(0, (date - now) / 1000);
  }
  const reset = Number(response.headers.get('x-ratelimit-reset'));
  return reset > 0 ? Math.max(0, reset - now / 1000) : undefined;
}

/**
 * Sends one API call with timeouts, cancellation and retries, and returns the
 * successful Response or throws a typed MaqamError.
 *
 * Retry rules, and why:
 * - 429 and 503 are retried: the server says "later", and how much later
 *   (Retry-After, X-RateLimit-Reset) is honoured, not guessed; a wait longer
 *   than `maxRetryDelayMs` gives up at once with the error (RateLimitError
 *   carries retryAfter) rather than hanging the caller.
 * - Without a server hint, waits grow exponentially with full jitter (AWS
 *   architecture blog, "Exponential Backoff And Jitter"), so many clients
 *   failing together do not retry together.
 * - Network failures are retried only for idempotent calls, and for writes
 *   that carry an Idempotency-Key (the server answers a repeat from the first
 *   answer), as is a 409 saying the first attempt is still being answered.
 * - Every retry also needs the client's RetryBudget to allow it.
 * - Other statuses are never retried: the same request would fail the same way.
 */
export async function send(http: HttpOptions, call: CallOptions): Promise<Response> {
  for (let attempt = 0; ; attempt++) {
    const signals = [AbortSignal.timeout(http.timeoutMs), ...(call.signal ? [call.signal] : [])];
    let response: Response;
    try {
      response = await http.fetch(http.baseUrl + call.path, {
        method: call.method,
        headers: {
          accept: 'application/json',
          ...(http.acceptLanguage ? { 'accept-language': http.acceptLanguage } : {}),
          ...(call.body === undefined ? {} : { 'content-type': 'application/json' }),
          ...(call.idempotencyKey === undefined ? {} : { 'idempotency-key': call.idempotencyKey }),
          ...call.headers,
        },
        ...(call.body === undefined ? {} : { body: JSON.stringify(call.body) }),
        signal: AbortSignal.any(signals),
      });
    } catch (error) {
      if (call.signal?.aborted) throw call.signal.reason;
      if (http.retryBudget.failed() && (call.idempotent || call.idempotencyKey !== undefined) && attempt < http.maxRetries) {
        await sleep(backoff(attempt), call.signal);
        continue;
      }
      throw new NetworkError(`no answer from ${http.baseUrl}: ${(error as Error).message}${corsHint(http.baseUrl)}`, { code: 'ERROR_CODE_UNAVAILABLE', status: 0 });
    }
    // A 304 answers a read that sent If-None-Match: the caller holds the body already.
    if (response.ok || (response.status === 304 && call.headers?.['if-none-match'] !== undefined)) {
      http.retryBudget.succeeded();
      return response;
    }
    // A 409 with Retry-After on a keyed write: the same request is still being answered (an earlier attempt
    // that timed out here); the retry gets its answer.
    const stillRunning = response.status === 409 && call.idempotencyKey !== undefined && response.headers.has('retry-after');
    if (response.status === 429 || response.status === 503 || stillRunning) {
      const hinted = retryDelaySeconds(response);
      const delayMs = hinted === undefined ? backoff(attempt) : hinted * 1000;
      if (http.retryBudget.failed() && attempt < http.maxRetries && delayMs <= http.maxRetryDelayMs) {
        await response.body?.cancel();
        await sleep(delayMs, call.signal);
        continue;
      }
      throw await errorFromResponse(response, { retryAfter: hinted });
    }
    throw await errorFromResponse(response);
  }
}

/**
 * A fresh Idempotency-Key: random, from the Web Crypto API (there in every
 * browser, secure context or not, and in Node, Deno and Bun).
 */
export function newIdempotencyKey(): string {
  const bytes = new Uint8Array(16);
  globalThis.crypto.getRandomValues(bytes);
  return [...bytes].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** Full jitter: a uniform wait between 0 and 250 ms x 2^attempt, capped at 8 s. */
function backoff(attempt: number): number {
  return Math.random() * Math.min(8000, 250 * 2 ** attempt);
}

export { MaqamError, RateLimitError };
