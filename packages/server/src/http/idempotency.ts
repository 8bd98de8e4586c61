import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, invalidRequest } from '../errors.ts';
import type { IdempotencyClaim, StoredAnswer } from '../storage/idempotency-records.repo.ts';

/** Where a request's Idempotency-Key is kept while it is answered. */
interface ClaimedKey {
  readonly userId: string;
  readonly key: string;
  readonly fingerprint: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    idempotencyKey: ClaimedKey | undefined;
  }
}

/** What keeps the answers (storage/idempotency-records.repo.ts). */
export interface IdempotencyStore {
  claim(userId: string, key: string, fingerprint: string, now: number): Promise<IdempotencyClaim>;
  complete(userId: string, key: string, fingerprint: string, answer: StoredAnswer): Promise<void>;
  release(userId: string, key: string, fingerprint: string): Promise<void>;
}

/** What an operation that takes an Idempotency-Key says of it in the OpenAPI document (its description ends with it). */
export const IDEMPOTENCY_NOTE = ' Send an `Idempotency-Key` header to make a retry safe: the same request with the same key is answered again from the first answer (24 hours), a different one is a 409.';

/** Printable ASCII, as Stripe and the IETF draft (draft-ietf-httpapi-idempotency-key-header) take it. */
const KEY = /^[\x21-\x7e]{1,255}$/;

/** The headers that describe an answer, replayed with it; the others belong to the request that carries them. */
const REPLAYED_HEADERS = ['content-type', 'content-language', 'etag', 'location', 'cache-control', 'vary'];

/**
 * Idempotency-Key on POSTs that act for a user (contract sections 13 and
 * 14): the first request with a key is answered and its answer kept for 24
 * hours; the same request again (same method, path and body) replays the
 * answer (status, body and the headers that describe it, with
 * `Idempotent-Replayed: true`) without running again, on any node. A
 * different request with the key, or the same one while the first is still
 * being answered, is a 409. An answer of 5xx is not kept: the request did
 * not happen, and a retry runs it.
 *
 * `claim` is a preHandler (after credentials and validation, so a refused
 * request keeps no key) and `record` an onSend hook, of the routes that take
 * a key.
 */
export function createIdempotency(store: IdempotencyStore, clock: () => number, log: { warn(object: object, message: string): void }) {
  return {
    async claim(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> {
      const header = request.headers['idempotency-key'];
      if (header === undefined) return undefined;
      if (typeof header !== 'string' || !KEY.test(header)) throw invalidRequest({ field: 'Idempotency-Key', reason: 'idempotencyKey' });
      const principal = request.principal;
      // The routes that take a key act for a user: their guard admitted a token.
      if (principal?.kind !== 'token') throw new ApiError('apiKeyHasNoUser');
      const fingerprint = createHash('sha256').update(`${request.method} ${request.url}\n${JSON.stringify(request.body ?? null)}`).digest('base64url');
      const claimed = await store.claim(principal.userId, header, fingerprint, clock());
      switch (claimed.kind) {
        case 'new':
          request.idempotencyKey = { userId: principal.userId, key: header, fingerprint };
          return undefined;
        case 'replay':
          reply.code(claimed.answer.status).headers(claimed.answer.headers).header('idempotent-replayed', 'true');
          return reply.send(claimed.answer.body);
        case 'mismatch':
          throw new ApiError('idempotencyKeyReused');
        case 'inFlight':
          throw new ApiError('idempotencyKeyInFlight', { headers: { 'retry-after': '1' } });
      }
    },

    async record(request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
      const claimed = request.idempotencyKey;
      if (claimed === undefined) return payload;
      request.idempotencyKey = undefined;
      const { userId, key, fingerprint } = claimed;
      try {
        if (reply.statusCode >= 500 || !(typeof payload === 'string' || Buffer.isBuffer(payload))) {
          await store.release(userId, key, fingerprint);
        } else {
          const headers: Record<string, string> = {};
          for (const name of REPLAYED_HEADERS) {
            const value = reply.getHeader(name);
            if (value !== undefined) headers[name] = String(value);
          }
          await store.complete(userId, key, fingerprint, { status: reply.statusCode, headers, body: payload.toString() });
        }
      } catch (error) {
        // The answer stands; the key stays claimed until its lease ends, then a retry runs the request again.
        log.warn({ err: error }, 'could not keep the answer of a request with an Idempotency-Key');
      }
      return payload;
    },
  };
}

export type Idempotency = ReturnType<typeof createIdempotency>;
