import type { FastifyRequest } from 'fastify';

/** Query parameters whose values are credentials or pass for them. */
const SECRET_QUERY = /([?&](?:page_token|pageToken|code|access_token|refresh_token|token)=)[^&#]*/g;
/** The sealed token of a stream URL is its credential. */
const STREAM_TOKEN = /^(\/v1\/streaming\/hls\/)[^/?#]+/;

/** A URL fit for a log line: tokens in the path or query replaced by "[redacted]". */
export function redactUrl(url: string): string {
  return url.replace(STREAM_TOKEN, '$1[redacted]').replace(SECRET_QUERY, '$1[redacted]');
}

/** Pino serializers for the request log lines (debug and trace): no header values, no tokens. */
export const logSerializers = {
  req(request: FastifyRequest) {
    return { method: request.method, url: redactUrl(request.url), host: request.host, remoteAddress: request.ip };
  },
};
