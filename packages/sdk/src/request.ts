// What every resource of the client (catalog.ts, video.ts, library.ts, playlists.ts) is
// written against: the one function that sends a call, and the settings every
// call takes. client.ts makes the function (the credential, retries,
// Idempotency-Keys) and composes the resources over it; a resource never
// imports the client, so the modules form no cycle (npm run lint:layers).

/**
 * Per-call settings: the locale (Accept-Language) and an AbortSignal that
 * cancels the call, retries and waits included.
 *
 * @example
 * const controller = new AbortController();
 * const page = await maqam.artists.listRelated('artist-1', { locale: 'en', signal: controller.signal });
 */
export interface CallContext {
  /** BCP 47 language tag(s), e.g. "ar", "en", "fr;q=0.8, ar". */
  locale?: string | undefined;
  signal?: AbortSignal | undefined;
}

/**
 * Page settings of a list call: `pageSize` 1..100 (default 20) and the
 * `nextPageToken` of the page before.
 *
 * @example
 * const page = await maqam.albums.listTracks('album-1', { pageSize: 50, locale: 'ar' });
 */
export interface PageOptions extends CallContext {
  pageSize?: number | undefined;
  pageToken?: string | undefined;
}

/**
 * Why one id of a batch could not be had.
 *
 * @example
 * const { error }: { error?: BatchItemError } = (await maqam.songs.batchGet(['gone'])).get('gone')!;
 * if (error?.code === 'ERROR_CODE_NOT_FOUND') hide('gone');
 */
export interface BatchItemError {
  readonly code: string;
  readonly message: string;
}

/** One call of a resource, as it hands it to the client. */
export interface ResourceCall {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  path: string;
  /** The query string's values; empty ones are left out. */
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  headers?: Record<string, string>;
  /**
   * Whether the call may be repeated after a network failure as it is, with
   * no Idempotency-Key: a POST that changes nothing (a batch read) says true,
   * a billable one (acquiring a stream) false. Left out, GET, PUT and DELETE
   * are (RFC 9110 §9.2.2: a replace repeated after it applied meets its own
   * If-Match, 412), and a POST carries a fresh Idempotency-Key, the same on
   * every retry, so it is retried safely.
   */
  idempotent?: boolean | undefined;
  /** Sent without the client's credential (reporting a leaked key needs none, and a signed-out client may send it). */
  anonymous?: boolean | undefined;
  context: CallContext;
}

/** The one function every resource sends its calls through: the client's credential, retries and typed errors. */
export type Transport = (call: ResourceCall) => Promise<Response>;

/** A call's answer, read as JSON. */
export async function requestJson<T>(transport: Transport, call: ResourceCall): Promise<T> {
  return (await (await transport(call)).json()) as T;
}

/** The two calls most resources make, answered as JSON: a GET, and a POST (which carries an Idempotency-Key). */
export function jsonCalls(transport: Transport) {
  return {
    get: <T>(path: string, context: CallContext, query?: Record<string, string | number | undefined>): Promise<T> =>
      requestJson<T>(transport, { method: 'GET', path, query, context }),
    post: <T>(path: string, body: unknown, context: CallContext): Promise<T> => requestJson<T>(transport, { method: 'POST', path, body, context }),
  };
}
