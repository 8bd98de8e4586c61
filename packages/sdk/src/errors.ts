import type * as wire from '@maqam/contract';

/**
 * The codes the API answers errors with; `error.code` is one of them.
 *
 * @example
 * const retryable = (code: ErrorCode) => code === 'ERROR_CODE_UNAVAILABLE' || code === 'ERROR_CODE_RATE_LIMITED';
 */
export type ErrorCode = wire.ErrorCode;

const ERROR_CODES: readonly string[] = [
  'ERROR_CODE_UNSPECIFIED', 'ERROR_CODE_INVALID_REQUEST', 'ERROR_CODE_UNAUTHENTICATED', 'ERROR_CODE_PERMISSION_DENIED', 'ERROR_CODE_NOT_FOUND',
  'ERROR_CODE_CONFLICT', 'ERROR_CODE_RATE_LIMITED', 'ERROR_CODE_INTERNAL', 'ERROR_CODE_UNAVAILABLE',
];

/**
 * A field the server refused, as in the API's ValidationError.
 *
 * @example
 * if (error instanceof InvalidRequestError) for (const { field, description } of error.violations) form.mark(field, description);
 */
export interface FieldViolation {
  readonly field: string;
  readonly description: string;
}

/**
 * Every error the SDK throws for an answer of the API: the contract's `code`
 * (e.g. `ERROR_CODE_NOT_FOUND`), the HTTP `status`, the server's `message`,
 * any `violations`, and the `requestId` to quote in a report.
 *
 * @example
 * try {
 *   await maqam.artists.listRelated('artist-1');
 * } catch (error) {
 *   if (error instanceof NotFoundError) showEmptyState();
 *   else if (error instanceof MaqamError) console.warn(error.code, error.requestId);
 * }
 */
export class MaqamError extends Error {
  override name = 'MaqamError';
  readonly code: ErrorCode;
  readonly status: number;
  readonly violations: readonly FieldViolation[];
  readonly requestId: string | undefined;
  /** The raw Response; not enumerable, so logging an error does not dump it. */
  declare readonly response: Response | undefined;

  constructor(message: string, details: { code: ErrorCode; status: number; violations?: readonly FieldViolation[]; requestId?: string | undefined; response?: Response }) {
    super(message);
    this.code = details.code;
    this.status = details.status;
    this.violations = details.violations ?? [];
    this.requestId = details.requestId;
    Object.defineProperty(this, 'response', { value: details.response, enumerable: false });
  }
}

/** How many of the violations an InvalidRequestError's `message` spells out; `violations` holds every one. */
const VIOLATIONS_IN_MESSAGE = 3;

/**
 * A refusal's message that names its fields: each violation's description,
 * which the server writes as a sentence naming the field ("page_size must be
 * at most 100."), or "field: description" when it does not; the server's own
 * message ("The request is not valid; see violations.") when there are none.
 */
function namingFields(serverMessage: string, violations: readonly FieldViolation[]): string {
  if (violations.length === 0) return serverMessage;
  const named = violations.slice(0, VIOLATIONS_IN_MESSAGE)
    .map(({ field, description }) => (field === '' || description.includes(field) ? description : `${field}: ${description}`));
  const more = violations.length - named.length;
  return `${named.join(' ')}${more > 0 ? ` (+${more})` : ''}`;
}

/**
 * 400 (and 428): the request was refused. `message` names the fields
 * (the first three violations' descriptions), `violations` lists every one,
 * and `serverMessage` is the server's own message.
 *
 * @example
 * await maqam.artists.listRelated('artist-1', { pageSize: 5000 }).catch((error) => {
 *   if (error instanceof InvalidRequestError) {
 *     console.log(error.message);       // 'page_size must be at most 100.'
 *     console.log(error.violations);    // [{ field: 'page_size', description: 'page_size must be at most 100.' }]
 *     console.log(error.serverMessage); // 'The request is not valid; see violations.'
 *   }
 * });
 */
export class InvalidRequestError extends MaqamError {
  override name = 'InvalidRequestError';
  /** The server's message, as it answered it; `message` names the fields instead. */
  readonly serverMessage: string;

  constructor(message: string, details: ConstructorParameters<typeof MaqamError>[1]) {
    super(namingFields(message, details.violations ?? []), details);
    this.serverMessage = message;
  }
}
/**
 * 401: the credential is missing, unknown, expired or revoked. (Signed-in
 * clients refresh and retry first; they throw SignInRequiredError instead
 * when the session is over.)
 *
 * @example
 * if (error instanceof AuthenticationError) console.error('check MAQAM_API_KEY');
 */
export class AuthenticationError extends MaqamError {
  override name = 'AuthenticationError';
}
/**
 * 403: the credential is valid but may not do this (an API key asking for a
 * stream, a token without the scope).
 *
 * @example
 * if (error instanceof PermissionDeniedError) location.href = await maqam.auth.createAuthorizationUrl({ scope: 'read stream' });
 */
export class PermissionDeniedError extends MaqamError {
  override name = 'PermissionDeniedError';
}
/**
 * 404: no such artist, song or media.
 *
 * @example
 * const page = await maqam.artists.listRelated(id).catch((error) => {
 *   if (error instanceof NotFoundError) return { artists: [], nextPageToken: '' };
 *   throw error;
 * });
 */
export class NotFoundError extends MaqamError {
  override name = 'NotFoundError';
}
/**
 * 409 or 412: the request conflicts with the resource's state. A 412 says a
 * write's If-Match named a version the playlist has moved on from;
 * `currentVersion` is the version it is at now (its ETag). A 409 names an
 * entry that is gone, or an Idempotency-Key used for another request.
 *
 * @example
 * await maqam.playlists.update(id, { name }, { ifMatch: version }).catch((error) => {
 *   if (error instanceof ConflictError && error.currentVersion) return reloadAndAsk(error.currentVersion);
 *   throw error;
 * });
 */
export class ConflictError extends MaqamError {
  override name = 'ConflictError';
  /** On a 412: the version the resource is at now. */
  readonly currentVersion: string | undefined;

  constructor(message: string, details: ConstructorParameters<typeof MaqamError>[1] & { currentVersion?: string | undefined }) {
    super(message, details);
    this.currentVersion = details.currentVersion;
  }
}
/**
 * 429 after the retries the client allows (or a wait longer than
 * `maxRetryDelayMs`); `retryAfter` is the server's wait in seconds.
 *
 * @example
 * if (error instanceof RateLimitError) setTimeout(tryAgain, (error.retryAfter ?? 1) * 1000);
 */
export class RateLimitError extends MaqamError {
  override name = 'RateLimitError';
  readonly retryAfter: number | undefined;
  constructor(message: string, details: ConstructorParameters<typeof MaqamError>[1] & { retryAfter?: number | undefined }) {
    super(message, details);
    this.retryAfter = details.retryAfter;
  }
}
/**
 * 503 (or another 5xx) after the retries the client allows.
 *
 * @example
 * if (error instanceof ServiceUnavailableError) showBanner('Maqam is busy; try again in a minute');
 */
export class ServiceUnavailableError extends MaqamError {
  override name = 'ServiceUnavailableError';
}
/**
 * The user must sign in again: there is no session, or its refresh token was
 * refused (expired, revoked, or reused elsewhere). Thrown once per call;
 * the client never loops on it.
 *
 * @example
 * if (error instanceof SignInRequiredError) location.href = await maqam.auth.createAuthorizationUrl();
 */
export class SignInRequiredError extends MaqamError {
  override name = 'SignInRequiredError';
}
/**
 * The request never got an answer (a network failure, or the timeout
 * passed), after the retries allowed for the call; `status` is 0.
 *
 * @example
 * if (error instanceof NetworkError) showOfflineNotice();
 */
export class NetworkError extends MaqamError {
  override name = 'NetworkError';
}

/** Builds the typed error for a non-2xx answer of the API. */
/** The version an answer's ETag names (`"7"`, or weak `W/"7"`), if it has one. */
export const etagVersion = (response: Response): string | undefined => /^(?:W\/)?"([^"]*)"$/.exec(response.headers.get('etag') ?? '')?.[1];

export async function errorFromResponse(response: Response, extra: { retryAfter?: number | undefined } = {}): Promise<MaqamError> {
  let body: { code?: string; message?: string; violations?: FieldViolation[]; requestId?: string; error_description?: string } = {};
  try {
    body = (await response.clone().json()) as typeof body;
  } catch {
    // Not JSON (a proxy's page): keep the status.
  }
  const details = {
    // A code this SDK does not know (a proxy's, a newer server's) reads as UNSPECIFIED; the status still tells the kind.
    code: (body.code !== undefined && ERROR_CODES.includes(body.code) ? body.code : 'ERROR_CODE_UNSPECIFIED') as ErrorCode,
    status: response.status,
    violations: body.violations ?? [],
    requestId: body.requestId ?? response.headers.get('x-request-id') ?? undefined,
    response,
  };
  const message = body.message ?? body.error_description ?? `HTTP ${response.status}`;
  switch (response.status) {
    case 400:
    case 428:
      return new InvalidRequestError(message, details);
    case 401:
      return new AuthenticationError(message, details);
    case 403:
      return new PermissionDeniedError(message, details);
    case 404:
      return new NotFoundError(message, details);
    case 409:
      return new ConflictError(message, details);
    case 412:
      return new ConflictError(message, { ...details, currentVersion: etagVersion(response) });
    case 429:
      return new RateLimitError(message, { ...details, retryAfter: extra.retryAfter });
    default:
      return response.status >= 500 ? new ServiceUnavailableError(message, details) : new MaqamError(message, details);
  }
}
