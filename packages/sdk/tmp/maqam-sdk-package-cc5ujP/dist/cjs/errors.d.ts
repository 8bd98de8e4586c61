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
export declare class MaqamError extends Error {
    name: string;
    readonly code: string;
    readonly status: number;
    readonly violations: readonly FieldViolation[];
    readonly requestId: string | undefined;
    /** The raw Response; not enumerable, so logging an error does not dump it. */
    readonly response: Response | undefined;
    constructor(message: string, details: {
        code: string;
        status: number;
        violations?: readonly FieldViolation[];
        requestId?: string | undefined;
        response?: Response;
    });
}
/** 400: the request was refused; `violations` says which fields. */
export declare class InvalidRequestError extends MaqamError {
    name: string;
}
/** 401: the credential is missing, unknown, expired or revoked. */
export declare class AuthenticationError extends MaqamError {
    name: string;
}
/** 403: the credential is valid but may not do this (API key on streams, missing scope). */
export declare class PermissionDeniedError extends MaqamError {
    name: string;
}
/** 404: no such artist, song or media. */
export declare class NotFoundError extends MaqamError {
    name: string;
}
/** 429 after the retries the client allows; `retryAfter` is in seconds. */
export declare class RateLimitError extends MaqamError {
    name: string;
    readonly retryAfter: number | undefined;
    constructor(message: string, details: ConstructorParameters<typeof MaqamError>[1] & {
        retryAfter?: number | undefined;
    });
}
/** 503 or a 5xx after retries. */
export declare class ServiceUnavailableError extends MaqamError {
    name: string;
}
/** The user must sign in again: no session, or its refresh token was refused. */
export declare class SignInRequiredError extends MaqamError {
    name: string;
}
/** The request never got an answer (network failure, or the timeout passed). */
export declare class NetworkError extends MaqamError {
    name: string;
}
/** Builds the typed error for a non-2xx answer of the API. */
export declare function errorFromResponse(response: Response, extra?: {
    retryAfter?: number | undefined;
}): Promise<MaqamError>;
