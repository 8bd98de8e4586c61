import { MaqamError, RateLimitError } from './errors.js';
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
}
/**
 * A client-wide allowance of retries (the token bucket of gRPC's retry
 * throttling): each failed attempt costs a token, each success earns back a
 * fraction of one, and retries stop while the bucket is at half or less. A
 * per-call limit alone lets a thousand failing calls make four thousand
 * requests to a server that is already struggling; the budget caps retries
 * at about one per ten successful calls once things go wrong.
 */
export declare class RetryBudget {
    #private;
    constructor(maxTokens?: number, tokenRatio?: number);
    succeeded(): void;
    /** Records a failed attempt; whether a retry may follow it. */
    failed(): boolean;
}
export interface CallOptions {
    method: 'GET' | 'POST';
    path: string;
    body?: unknown;
    headers?: Record<string, string>;
    signal?: AbortSignal | undefined;
    /**
     * Whether repeating the call cannot change anything (reads). Only such calls
     * are retried after a network failure: a write may have reached the server.
     */
    idempotent: boolean;
}
/** Seconds to wait from Retry-After (seconds or an HTTP date), else X-RateLimit-Reset (Unix seconds). */
export declare function retryDelaySeconds(response: Response, now?: number): number | undefined;
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
 * - Network failures are retried only for idempotent calls.
 * - Every retry also needs the client's RetryBudget to allow it.
 * - Other statuses are never retried: the same request would fail the same way.
 */
export declare function send(http: HttpOptions, call: CallOptions): Promise<Response>;
export { MaqamError, RateLimitError };
