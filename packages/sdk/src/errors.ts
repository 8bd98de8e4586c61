/** A field the server refused, as in the API's ValidationError. */
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
  readonly code: string;
  readonly status: number;
  readonly violations: readonly FieldViolation[];
  readonly requestId: string | undefined;
  /** The raw Response; not enumerable, so logging an error does not dump it. */
  declare readonly response: Response | undefined;

  constructor(message: string, details: { code: string; status: number; violations?: readonly FieldViolation[]; requestId?: string | undefined; response?: Response }) {
    super(message);
    this.code = details.code;
    this.status = details.status;
    this.violations = details.violations ?? [];
    this.requestId = details.requestId;
    Object.defineProperty(this, 'response', { value: details.response, enumerable: false });
  }
}

/** 400: the request was refused; `violations` says which fields. */
export class InvalidRequestError extends MaqamError {
  override name = 'InvalidRequestError';
}
/** 401: the credential is missing, unknown, expired or revoked. */
export class AuthenticationError extends MaqamError {
  override name = 'AuthenticationError';
}
/** 403: the credential is valid but may not do this (API key on streams, missing scope). */
export class PermissionDeniedError extends MaqamError {
  override name = 'PermissionDeniedError';
}
/** 404: no such artist, song or media. */
export class NotFoundError extends MaqamError {
  override name = 'NotFoundError';
}
/** 429 after the retries the client allows; `retryAfter` is in seconds. */
export class RateLimitError extends MaqamError {
  override name = 'RateLimitError';
  readonly retryAfter: number | undefined;
  constructor(message: string, details: ConstructorParameters<typeof MaqamError>[1] & { retryAfter?: number | undefined }) {
    super(message, details);
    this.retryAfter = details.retryAfter;
  }
}
/** 503 or a 5xx after retries. */
export class ServiceUnavailableError extends MaqamError {
  override name = 'ServiceUnavailableError';
}
/** The user must sign in again: no session, or its refresh token was refused. */
export class SignInRequiredError extends MaqamError {
  override name = 'SignInRequiredError';
}
/** The request never got an answer (network failure, or the timeout passed). */
export class NetworkError extends MaqamError {
  override name = 'NetworkError';
}

/** Builds the typed error for a non-2xx answer of the API. */
export async function errorFromResponse(response: Response, extra: { retryAfter?: number | undefined } = {}): Promise<MaqamError> {
  let body: { code?: string; message?: string; violations?: FieldViolation[]; requestId?: string; error_description?: string } = {};
  try {
    body = (await response.clone().json()) as typeof body;
  } catch {
    // Not JSON (a proxy's page): keep the status.
  }
  const details = {
    code: body.code ?? 'ERROR_CODE_UNSPECIFIED',
    status: response.status,
    violations: body.violations ?? [],
    requestId: body.requestId ?? response.headers.get('x-request-id') ?? undefined,
    response,
  };
  const message = body.message ?? body.error_description ?? `HTTP ${response.status}`;
  switch (response.status) {
    case 400:
      return new InvalidRequestError(message, details);
    case 401:
      return new AuthenticationError(message, details);
    case 403:
      return new PermissionDeniedError(message, details);
    case 404:
      return new NotFoundError(message, details);
    case 429:
      return new RateLimitError(message, { ...details, retryAfter: extra.retryAfter });
    default:
      return response.status >= 500 ? new ServiceUnavailableError(message, details) : new MaqamError(message, details);
  }
}
