import type { IncomingHttpHeaders, IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import type { preParsingHookHandler } from 'fastify';
import type { Principal } from './credentials.ts';
import type { CountedCall } from './rate-limit.ts';
import { requestIdOf } from './request-id.ts';

/**
 * The direct path: the Batch* routes answered straight from `node:http`.
 *
 * A cached BatchGetSongs answer is mostly copies of bytes, and Fastify's own
 * pipeline around it (request and reply objects, routing, the hook runners,
 * the body read through a content-type parser, the response headers kept in
 * an object and written out again) cost about a fifth of the request on its
 * own (bench/batch-get; the README's entry of 2026-11-26 has the figures).
 *
 * So the server hands each request here first. The direct path takes only a
 * request whose answer it can give exactly as Fastify would, byte for byte,
 * headers included: an HTTP/1.1 POST to a direct route's path, without a
 * query, with a Host, a JSON body of a stated length, no Content-Encoding,
 * no Expect, and no Origin but the server's own (so no CORS headers are due).
 * Anything else goes to Fastify untouched.
 *
 * A request it takes but cannot answer with a 200 (a refused credential, a
 * body not in the plain form, an error of any kind) is handed over to
 * Fastify, which answers it or explains what is wrong, as for any request.
 * What the direct path learned on the way goes with it (`Handover`): the
 * verified credential, the call already counted against its rate limit (so
 * it is not counted twice), and the body already read from the socket,
 * which Fastify reads again from memory (`replayHandedOverBody`).
 *
 * It steps aside while the server closes (Fastify answers 503 then) and
 * when request logging is on (its answers would be missing from the log).
 * `inject` never reaches it: tests of the direct path go over a socket.
 */

/** What the direct path learned about a request it handed over to Fastify. */
export interface Handover {
  /** The body it read from the socket, all of it. */
  body?: Buffer;
  /** The credential it verified for the route's requirement. */
  principal?: Principal;
  /** The call it counted against that credential's rate limit. */
  rateLimit?: CountedCall;
}

/** A direct route's 200: its headers after x-request-id and x-content-type-options, flat ([name, value, ...]), and its body. */
export interface DirectAnswer {
  readonly headers: readonly string[];
  readonly body: Buffer;
  /** Called once the response has closed, when nothing reads the body's bytes any more. */
  readonly release?: (body: Buffer) => void;
}

/**
 * Answers a request, or says undefined to hand it over to Fastify. It
 * records in `handover` what it verified or counted; it reads the body only
 * through `readBody`, which resolves undefined if the client went away.
 */
export type DirectHandler = (request: IncomingMessage, handover: Handover, readBody: () => Promise<Buffer | undefined>) => Promise<DirectAnswer | undefined>;

export interface DirectPathOptions {
  /** Off when Fastify logs every request. */
  enabled: boolean;
  /** Longest body taken, in bytes (a longer one is Fastify's 413). */
  bodyLimit: number;
  /** The server's own origin: a request from it needs no CORS headers. */
  ownOrigin: string;
  /**
   * The metrics' counter of a route's 200s, bound once when the route is
   * added: it counts each answer and its time, as Fastify's onResponse hook
   * does for the others.
   */
  answersOf: (pattern: string) => (seconds: number) => void;
}

interface DirectRoute {
  readonly handler: DirectHandler;
  readonly answered: (seconds: number) => void;
}

const HANDOVER = Symbol('maqam.handover');
type HandedOver = IncomingMessage & { [HANDOVER]?: Handover };

/** The body types Fastify's JSON parser takes that the direct path takes too. */
const JSON_TYPES = new Set(['application/json', 'application/json; charset=utf-8']);
const CONTENT_LENGTH = /^\d{1,9}$/;

/** What the direct path learned about a request before handing it over, if it did. */
export function handoverOf(request: IncomingMessage): Handover | undefined {
  return (request as HandedOver)[HANDOVER];
}

/**
 * A preParsing hook of a direct route: a request whose body the direct path
 * already read gets it again, from memory, exactly as it came.
 */
export const replayHandedOverBody: preParsingHookHandler = (request, _reply, payload, done) => {
  const body = handoverOf(request.raw)?.body;
  done(null, body === undefined ? payload : Readable.from([body], { objectMode: false }));
};

export class DirectPath {
  readonly #options: DirectPathOptions;
  /** Route by raw path ('/v1/music/songs:batchGet'): its handler, and where its answers are counted. */
  readonly #routes = new Map<string, DirectRoute>();
  #closing = false;

  constructor(options: DirectPathOptions) {
    this.#options = options;
  }

  /** Adds a POST route under Fastify's pattern ('/v1/music/songs::batchGet'); Fastify must serve the same route. */
  add(pattern: string, handler: DirectHandler): void {
    this.#routes.set(pattern.replace('::', ':'), { handler, answered: this.#options.answersOf(pattern) });
  }

  /** From now on every request goes to Fastify (which answers 503 while it closes). */
  close(): void {
    this.#closing = true;
  }

  /** The server's request listener: what the direct path does not take goes to `general` (Fastify) as it came. */
  listener(general: RequestListener): RequestListener {
    return (request, response) => {
      const route = this.#take(request);
      if (route === undefined) general(request, response);
      else void this.#serve(request, response, route, general);
    };
  }

  #take(request: IncomingMessage) {
    if (request.method !== 'POST' || this.#closing || !this.#options.enabled) return undefined;
    const route = this.#routes.get(request.url!);
    return route !== undefined && this.#plain(request) ? route : undefined;
  }

  /** A request whose answer Fastify would give with no header the direct path does not write. */
  #plain(request: IncomingMessage): boolean {
    const headers: IncomingHttpHeaders = request.headers;
    const length = headers['content-length'];
    return request.httpVersionMajor === 1 && request.httpVersionMinor === 1 && headers.host !== undefined
      && headers['content-type'] !== undefined && JSON_TYPES.has(headers['content-type'])
      && length !== undefined && CONTENT_LENGTH.test(length) && Number(length) <= this.#options.bodyLimit
      && headers['transfer-encoding'] === undefined && headers['content-encoding'] === undefined && headers.expect === undefined
      && (headers.origin === undefined || headers.origin === this.#options.ownOrigin);
  }

  async #serve(request: IncomingMessage, response: ServerResponse, route: DirectRoute, general: RequestListener): Promise<void> {
    const started = performance.now();
    const handover: Handover = {};
    let gone = false;
    // A client that goes away mid-body makes the request emit 'error': heard here, it must not end the process.
    request.on('error', ignore);
    const readBody = () => readWhole(request).then((body) => {
      if (body === undefined) gone = true;
      else handover.body = body;
      return body;
    });
    let answer: DirectAnswer | undefined;
    try {
      answer = await route.handler(request, handover, readBody);
    } catch {
      // Fastify does it all again and answers the error in the contract's shape (and logs it).
      answer = undefined;
    }
    // A client gone (mid-body, or while its credential was checked) gets nothing; Node has let its request go.
    // (Not the response's socket: a pipelined response has none until those before it are sent.)
    if (gone || request.socket.destroyed) {
      if (answer !== undefined) answer.release?.(answer.body);
      return;
    }
    if (answer === undefined) {
      (request as HandedOver)[HANDOVER] = handover;
      general(request, response);
      return;
    }
    const { body, release } = answer;
    if (release !== undefined) response.once('close', () => release(body));
    response.once('finish', () => route.answered((performance.now() - started) / 1000));
    response.writeHead(200, ['x-request-id', requestIdOf(request), 'x-content-type-options', 'nosniff', ...answer.headers, 'content-length', String(body.length)]);
    response.end(body);
  }
}

/** The whole body, or undefined if the client went away before its end. */
function readWhole(request: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve) => {
    // Aborted while the route checked its credential: 'close' has been and gone.
    if (request.destroyed) {
      resolve(undefined);
      return;
    }
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.once('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    // After 'end' this changes nothing: a promise settles once.
    request.once('close', () => resolve(undefined));
  });
}

function ignore(): void {}
