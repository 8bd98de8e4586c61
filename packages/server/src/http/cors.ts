import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { VersionedCache, type WriteVersion } from '../storage/versioned-cache.ts';
import { addVary } from './vary.ts';

/**
 * CORS (contract section 12, the Fetch standard). Trusted origins are the
 * origins of every registered client's https or loopback-http redirect URI
 * and MAQAM_CORS_ORIGINS. The API answers them on every /v1/ path and
 * /.well-known/ document, errors included; never with credentials. Signed
 * stream URLs answer every origin, since the signature is the credential. The
 * sign-in page never answers CORS.
 */

const ALLOW_HEADERS = 'authorization, x-api-key, content-type, accept-language, x-request-id, idempotency-key, if-match, if-none-match';
const EXPOSE_HEADERS = 'x-request-id, content-language, retry-after, www-authenticate, x-ratelimit-limit, x-ratelimit-remaining, x-ratelimit-reset, idempotent-replayed, etag, location, deprecation, sunset';
const MAX_AGE = '600';
/** Signed stream URLs, music's and video's (not AcquireVideoStream itself: `/v1/streaming/video` has no slash after it). */
const STREAMS = ['/v1/streaming/hls/', '/v1/streaming/video/'];

/** The origin of a redirect URI if it may be trusted: https, or http on a loopback host. */
export function trustedOriginOf(redirectUri: string): string | undefined {
  let url: URL;
  try {
    url = new URL(redirectUri);
  } catch {
    return undefined;
  }
  if (url.protocol === 'https:') return url.origin;
  if (url.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname)) return url.origin;
  return undefined;
}

export interface CorsOptions {
  /** MAQAM_CORS_ORIGINS; '*' trusts every origin. */
  configured: readonly string[];
  /** The redirect URIs of every registered client. */
  redirectUris: () => Promise<string[]>;
  /**
   * Storage.writeVersion: the clients' origins are kept while the database
   * has certainly not changed, so a client registered by the CLI or another
   * node is trusted on the very next request.
   */
  writeVersion: WriteVersion;
  /** The server's own origin, which needs no CORS. */
  ownOrigin: string;
  /** The methods of a route, for Access-Control-Allow-Methods. */
  methodsOf: (routeUrl: string) => readonly string[] | undefined;
}

export function createCors(options: CorsOptions) {
  const everyone = options.configured.includes('*');
  const configured = new Set(options.configured);
  const clients = new VersionedCache<Set<string>>(options.writeVersion, 1);

  async function clientOrigins(): Promise<Set<string>> {
    const origins = await clients.get('origins', async () => new Set((await options.redirectUris()).flatMap((uri) => trustedOriginOf(uri) ?? [])));
    return origins ?? new Set();
  }

  async function trusted(origin: string): Promise<boolean> {
    return everyone || configured.has(origin) || (await clientOrigins()).has(origin);
  }

  /** What the hook does for a request from another origin; true when it answered a preflight itself. */
  async function crossOrigin(request: FastifyRequest, reply: FastifyReply, origin: string): Promise<boolean> {
    const path = request.url.split('?')[0]!;
    const preflight = request.method === 'OPTIONS' && request.headers['access-control-request-method'] !== undefined;

    if (STREAMS.some((prefix) => path.startsWith(prefix))) {
      reply.header('access-control-allow-origin', '*').header('access-control-expose-headers', 'content-range, accept-ranges, content-length, etag, x-request-id');
      if (preflight) {
        reply.header('access-control-allow-methods', 'GET, HEAD').header('access-control-allow-headers', 'range').header('access-control-max-age', MAX_AGE);
        reply.code(204).send();
        return true;
      }
      return false;
    }
    if (path === '/v1/auth/authorize' || !(path.startsWith('/v1/') || path.startsWith('/.well-known/'))) return false;

    addVary(reply, 'Origin');
    const isTrusted = await trusted(origin);
    if (preflight) {
      if (isTrusted) {
        const methods = options.methodsOf(request.routeOptions.url ?? '') ?? [];
        reply
          .header('access-control-allow-origin', origin)
          .header('access-control-allow-methods', methods.filter((m) => m !== 'OPTIONS').join(', '))
          .header('access-control-allow-headers', ALLOW_HEADERS)
          .header('access-control-max-age', MAX_AGE);
      }
      reply.code(204).send();
      return true;
    }
    if (isTrusted) reply.header('access-control-allow-origin', origin).header('access-control-expose-headers', EXPOSE_HEADERS);
    return false;
  }

  /**
   * The onRequest hook: answers preflights and marks the answers of trusted
   * origins. A request without Origin (or from our own) goes on at once, with
   * no promise: most API traffic is server to server.
   */
  return function cors(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
    const origin = request.headers.origin;
    if (origin === undefined || origin === options.ownOrigin) {
      done();
      return;
    }
    // A preflight answered here ends the request: done is not called.
    crossOrigin(request, reply, origin).then((answered) => answered || done(), done);
  };
}
