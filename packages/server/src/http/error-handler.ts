import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { addVary } from './vary.ts';
import { ApiError, DomainError, invalidRequest, localizeViolation, oauthErrorOf, type ErrorReason, type Params } from '../errors.ts';
import { DATABASE_RETRY_AFTER_SECONDS } from '../storage/unavailable.ts';
import type { LocaleNegotiator } from '../locale/negotiation.ts';
import { validationErrorToApiError } from './validation.ts';

/** Maps what Fastify itself throws (parsing, limits, validation) to the error catalog. */
function fromFastifyError(error: FastifyError, bodyLimit: number): DomainError | undefined {
  if (error.validation) return validationErrorToApiError(error.validation as never, error.validationContext ?? 'body');
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError('bodyTooLarge', { params: { limit: bodyLimit } });
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return invalidRequest({ field: 'Content-Type', reason: 'contentTypeJson' });
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return invalidRequest({ field: 'body', reason: 'bodyEmpty' });
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return invalidRequest({ field: 'body', reason: 'bodyNotJson', params: { detail: error.message.replace(/^Body is not valid JSON but content-type is set to 'application\/json'/, 'syntax error') } });
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return invalidRequest({ field: 'Content-Length', reason: 'invalid' });
  }
  // Body-parser syntax errors come without a Fastify code.
  if (error instanceof SyntaxError || (error.statusCode === 400 && /JSON/i.test(error.message))) {
    return invalidRequest({ field: 'body', reason: 'bodyNotJson', params: { detail: 'syntax error' } });
  }
  if (error.statusCode === 400) return invalidRequest({ field: 'request', reason: 'invalid' });
  return undefined;
}

/**
 * Headers an answer carries for a reason of the domain's: a Retry-After where
 * waiting helps, and the current ETag of a playlist whose If-Match failed
 * (contract section 14).
 */
const HEADERS_OF: Partial<Record<ErrorReason, (params: Params) => Record<string, string>>> = {
  unavailable: () => ({ 'retry-after': String(DATABASE_RETRY_AFTER_SECONDS) }),
  playlistModified: (params) => ({ etag: `"${params.version}"` }),
};

/**
 * RFC 6749 §5.2 members for an error that carries none of its own: what the
 * token endpoints answer on every error, including the ones raised before
 * their handlers run (validation, body parsing).
 */
function oauthMembersFor(error: DomainError & { status: number }): { error: string; description: string } {
  const named = oauthErrorOf(error.reason);
  // A reason with an OAuth error of its own says what failed in its message; others name the fields at fault.
  if (named !== undefined) return { error: named, description: error.message };
  const code = error.status >= 500 ? 'server_error' : error.status === 429 ? 'temporarily_unavailable' : 'invalid_request';
  const description = error.violations.length > 0 ? error.violations.map((v) => `${v.field}: ${v.reason}`).join('; ') : error.message;
  return { error: code, description };
}

/**
 * The one place errors become responses: every error body is `{ code,
 * message, requestId }` plus `violations` on a 400, with the message in the
 * request's language. Anything that is not an ApiError is logged and answered
 * as a plain 500: no stack, SQL or path reaches the client.
 *
 * `oauth`: the handler of an OAuth scope (the token endpoints set it as their
 * scope's error handler), which adds RFC 6749 members to every error.
 */
export function createErrorHandler(negotiator: LocaleNegotiator, bodyLimit: number, options: { oauth?: boolean } = {}) {
  return function handleError(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
    const known = error instanceof DomainError ? error : fromFastifyError(error, bodyLimit);
    // The one mapping from the domain's errors to answers: the catalog's status, and the headers some reasons carry.
    let apiError = known && ApiError.of(known, HEADERS_OF[known.reason]?.(known.params) ?? {});
    if (!apiError) {
      request.log.error({ err: error }, 'unhandled error');
      apiError = new ApiError('internal', { params: { requestId: request.id } });
    } else if (apiError.status === 503) {
      // An outage: the cause (connection lost, timeout) is worth a warning, not a stack per request.
      request.log.warn({ cause: (apiError.cause as Error | undefined)?.message }, apiError.reason);
    } else if (apiError.status >= 500) {
      request.log.error({ err: error }, apiError.reason);
    }
    const locale = negotiator.messageLocale(request.headers['accept-language']);
    const body: Record<string, unknown> = {
      code: apiError.code,
      message: apiError.localizedMessage(locale),
      requestId: request.id,
    };
    if (apiError.violations.length > 0) body.violations = apiError.violations.map((v) => localizeViolation(v, locale));
    const oauth = apiError.oauth ?? (options.oauth ? oauthMembersFor(apiError) : undefined);
    if (oauth) {
      body.error = oauth.error;
      body.error_description = oauth.description;
    }
    addVary(reply, 'Accept-Language');
    // What a write set of its answer before it failed (its new version, its new resource) describes nothing that
    // exists: an error carries only the headers of its own reason (a 412's current ETag, say).
    reply.removeHeader('etag');
    reply.removeHeader('location');
    reply
      .code(apiError.status)
      .header('x-request-id', request.id)
      .headers(apiError.headers)
      .header('content-language', locale)
      .header('cache-control', 'no-store')
      .type('application/json; charset=utf-8')
      .serializer(JSON.stringify)
      .send(body);
  };
}
