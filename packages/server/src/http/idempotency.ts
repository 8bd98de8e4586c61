import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, invalidRequest } from '../errors.ts';
import type { QueryCreator } from 'kysely';
import type { Database } from '../storage/database.ts';
import type { IdempotencyClaim, IdempotencyRecordsRepo, StoredAnswer } from '../storage/idempotency-records.repo.ts';

/** A request's claim on its Idempotency-Key, while it is answered. */
interface ClaimedKey {
  readonly userId: string;
  readonly key: string;
  /** When it was claimed: what names this claim, as a retry may take an abandoned key over. */
  readonly claimedAt: number;
  /** The answer went into the write's transaction: there is nothing left to keep or give back. */
  kept: boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    idempotencyKey: ClaimedKey | undefined;
  }
}

/** What keeps the answers (storage/idempotency-records.repo.ts). */
export interface IdempotencyStore {
  claim(userId: string, key: string, fingerprint: string, now: number): Promise<IdempotencyClaim>;
  /** The statement that keeps a write's answer in the write's transaction (see IdempotencyRecordsRepo.completion). */
  completion: IdempotencyRecordsRepo['completion'];
  complete(userId: string, key: string, claimedAt: number, answer: StoredAnswer): Promise<boolean>;
  release(userId: string, key: string, claimedAt: number): Promise<void>;
}

/**
 * Keeps a write's answer inside the write's own transaction, just before it
 * commits (library/user-write.ts, writeAsUser): the effect and the answer that
 * reports it commit together, or neither does.
 */
export type KeepAnswer<T> = (result: T) => {
  /** The statement that keeps the answer, built on the database or on the WITH that ends the write. */
  build(db: QueryCreator<Database>): ReturnType<IdempotencyStore['completion']>;
  /** What the write throws (rolling back) when the statement found no claim of this request's. */
  refused(): Error;
};

/** A write's answer (Idempotency.answer). */
export interface WriteAnswer<T, P> {
  /** For the write's transaction: keeps the answer made from its result, or undefined when the request has no key. */
  readonly keep: KeepAnswer<T> | undefined;
  /** What to send for the committed write's result: the kept answer, or the payload made now. */
  send(result: T): Sent<P>;
}

/** What a route answers: JSON text or bytes are sent as they are; an object is the route's to serialize. */
type Sent<P> = P extends string | Buffer ? FastifyReply : P | FastifyReply;

/**
 * A kept error answer as this request answers it: an error body names the
 * request it answers (`requestId`, contract section 1), as `x-request-id`
 * does, and a replay is another request than the first.
 */
function withRequestId(body: string, requestId: string): string {
  try {
    const error = JSON.parse(body) as Record<string, unknown>;
    return error !== null && typeof error === 'object' && 'requestId' in error ? JSON.stringify({ ...error, requestId }) : body;
  } catch {
    return body;
  }
}

/** What an operation that takes an Idempotency-Key says of it in the OpenAPI document (its description ends with it). */
export const IDEMPOTENCY_NOTE = ' Send an `Idempotency-Key` header to make a retry safe: the same request with the same key is answered again from the first answer (24 hours), a different one is a 409.';

/** Printable ASCII, as Stripe and the IETF draft (draft-ietf-httpapi-idempotency-key-header) take it. */
const KEY = /^[\x21-\x7e]{1,255}$/;

/** The headers that describe an answer, replayed with it; the others belong to the request that carries them. */
const REPLAYED_HEADERS = ['content-type', 'content-language', 'etag', 'location', 'cache-control', 'vary'];
const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * Idempotency-Key on POSTs that act for a user (contract sections 13 and
 * 14): the first request with a key is answered and its answer kept for 24
 * hours; the same request again (same method, path and body) replays the
 * answer (status, body and the headers that describe it, with
 * `Idempotent-Replayed: true`) without running again, on any node. A
 * different request with the key, or the same one while the first is still
 * being answered, is a 409.
 *
 * Why a write is never applied twice: a write's answer is kept by its own
 * transaction (`write`), so a committed effect always has its answer beside
 * it, and a retry replays it, after a crash or a timeout too. A claim whose
 * transaction never committed holds no answer: once its lease ends (its node
 * may be gone) a retry takes the key over and runs the request, and a late
 * commit by the first holder finds the claim no longer its own and rolls
 * back. Answers that changed nothing (a refusal, a check) are kept after
 * they are made; a 5xx gives the key back, as nothing happened.
 *
 * `claim` is a preHandler (after credentials and validation, so a refused
 * request keeps no key) and `record` an onSend hook, of the routes that take
 * a key.
 */
export function createIdempotency(store: IdempotencyStore, clock: () => number, log: { warn(object: object, message: string): void }) {
  /** The answer as the route's response schema writes it, and the headers that describe it. */
  function storedAnswer(reply: FastifyReply, payload: unknown): StoredAnswer {
    const body = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString() : String(reply.serialize(payload));
    const headers: Record<string, string> = {};
    for (const name of REPLAYED_HEADERS) {
      const value = reply.getHeader(name);
      if (value !== undefined) headers[name] = String(value);
    }
    headers['content-type'] ??= JSON_TYPE;
    return { status: reply.statusCode, headers, body };
  }

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
          request.idempotencyKey = { userId: principal.userId, key: header, claimedAt: claimed.claimedAt, kept: false };
          return undefined;
        case 'replay':
          reply.code(claimed.answer.status).headers(claimed.answer.headers).header('idempotent-replayed', 'true');
          return reply.send(claimed.answer.status >= 400 ? withRequestId(claimed.answer.body, request.id) : claimed.answer.body);
        case 'mismatch':
          throw new ApiError('idempotencyKeyReused');
        case 'inFlight':
          throw new ApiError('idempotencyKeyInFlight', { headers: { 'retry-after': '1' } });
      }
    },

    /**
     * The answer of a write, kept with it: hand `keep` to the write's
     * transaction (undefined when the request has no key), then `send` its
     * result. `make` builds the payload from the write's result (and sets the
     * status and headers it needs); with a key it runs inside the
     * transaction, so it must only compute, never read.
     */
    answer<T, P>(request: FastifyRequest, reply: FastifyReply, make: (result: T) => P): WriteAnswer<T, P> {
      const claimed = request.idempotencyKey;
      let kept: StoredAnswer | undefined;
      return {
        keep: claimed && ((result) => {
          const made = storedAnswer(reply, make(result));
          // Sent only once the write committed, and with it this answer.
          kept = made;
          return {
            build: (db) => store.completion(db, claimed.userId, claimed.key, claimed.claimedAt, made),
            // Its lease ran out and a retry took the key over: that retry answers, and this write must not commit.
            refused: () => new ApiError('idempotencyKeyInFlight', { headers: { 'retry-after': '1' } }),
          };
        }),
        send(result) {
          if (kept === undefined) {
            const payload = make(result);
            // Text or bytes are the JSON already; an object is written by the route's response schema.
            return (typeof payload === 'string' || Buffer.isBuffer(payload) ? reply.type(JSON_TYPE).send(payload) : payload) as Sent<P>;
          }
          // Committed with its answer: the answer sent is the one kept, and there is nothing left to record.
          claimed!.kept = true;
          return reply.type(JSON_TYPE).send(kept.body) as Sent<P>;
        },
      };
    },

    async record(request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
      const claimed = request.idempotencyKey;
      if (claimed === undefined || claimed.kept) return payload;
      request.idempotencyKey = undefined;
      const { userId, key, claimedAt } = claimed;
      try {
        if (reply.statusCode >= 500 || !(typeof payload === 'string' || Buffer.isBuffer(payload))) {
          await store.release(userId, key, claimedAt);
        } else {
          // Nothing was written (a refusal, or a route that only reads): its answer is kept on its own.
          await store.complete(userId, key, claimedAt, storedAnswer(reply, payload));
        }
      } catch (error) {
        // The answer stands; the key stays claimed until its lease ends, then a retry runs the request again (nothing was applied).
        log.warn({ err: error }, 'could not keep the answer of a request with an Idempotency-Key');
      }
      return payload;
    },
  };
}

export type Idempotency = ReturnType<typeof createIdempotency>;
