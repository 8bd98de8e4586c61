import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, DomainError, invalidRequest, localizeViolation, type MessageLocale } from '../errors.ts';

/**
 * Errors raised before a request reaches Fastify's hooks, answered in the
 * contract's shape all the same: what Node's HTTP parser refuses (answered
 * on the raw socket) and what Fastify's router refuses (bad percent-encoding,
 * an over-long path parameter).
 */

/** The part of the request a parser error is about, named as the contract names fields. */
const PARSER_FIELDS: Record<string, string> = {
  HPE_INVALID_METHOD: 'method',
  HPE_INVALID_URL: 'path',
  HPE_INVALID_VERSION: 'HTTP-version',
  HPE_INVALID_CONTENT_LENGTH: 'Content-Length',
  HPE_UNEXPECTED_CONTENT_LENGTH: 'Content-Length',
  HPE_INVALID_TRANSFER_ENCODING: 'Transfer-Encoding',
  HPE_INVALID_CHUNK_SIZE: 'Transfer-Encoding',
  HPE_INVALID_HEADER_TOKEN: 'headers',
  HPE_INVALID_CONSTANT: 'request',
};

function parserError(code: string | undefined): ApiError {
  if (code === 'HPE_HEADER_OVERFLOW') return new ApiError('headersTooLarge');
  // Contract section 1 has no 408; a request cut short by the server's timeouts is a 400 about the request.
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT' || code === 'ERR_HTTP_REQUEST_HEADERS_TIMEOUT') {
    return ApiError.of(invalidRequest({ field: 'request', reason: 'incomplete' }));
  }
  return ApiError.of(invalidRequest({ field: PARSER_FIELDS[code ?? ''] ?? 'request', reason: 'notHttp' }));
}

/**
 * Node's 'clientError': the request could not be parsed, so there is no
 * request to hand to Fastify. Answers on the socket, if it still takes
 * writes, with the contract's body and a fresh request id, then closes it.
 */
export function createClientErrorHandler(locale: MessageLocale, log: { debug(object: object, message: string): void }) {
  return function onClientError(error: Error & { code?: string }, socket: Socket): void {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const apiError = parserError(error.code);
    const requestId = randomUUID();
    log.debug({ code: error.code, requestId }, 'unparsable request');
    if (socket.writable) {
      const body: Record<string, unknown> = { code: apiError.code, message: apiError.localizedMessage(locale), requestId };
      if (apiError.violations.length > 0) body.violations = apiError.violations.map((v) => localizeViolation(v, locale));
      const json = JSON.stringify(body);
      socket.write(
        `HTTP/1.1 ${apiError.status} ${STATUS_CODES[apiError.status]}\r\n` +
          `content-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(json)}\r\n` +
          `x-request-id: ${requestId}\r\ncontent-language: ${locale}\r\ncache-control: no-store\r\nconnection: close\r\n\r\n${json}`,
      );
    }
    socket.destroy();
  };
}

/** Fastify's `frameworkErrors`: router refusals become catalog errors for the one error handler. */
export function createFrameworkErrors(
  handleError: (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => void,
  maxParamLength: number,
) {
  return function onFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
    let apiError: DomainError;
    if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') apiError = new ApiError('uriTooLong', { params: { limit: maxParamLength } });
    // Never echo the path: it is what could not be decoded.
    else if (error.code === 'FST_ERR_BAD_URL') apiError = invalidRequest({ field: 'path', reason: 'invalid' });
    else apiError = new ApiError('internal', { params: { requestId: request.id }, cause: error });
    handleError(apiError as unknown as FastifyError, request, reply);
  };
}
