import type { FastifyInstance, FastifyReply } from 'fastify';

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * Sends JSON already serialized in the route's response schema (rendered
 * fragments, see catalog/render.ts): Fastify sends a Buffer, or a string
 * with its type set, as is.
 */
export function sendJson(reply: FastifyReply, body: Buffer | string): FastifyReply {
  return reply.type(JSON_TYPE).send(body);
}

/** What lends an answer's memory (the catalog's buffer pool: catalog.service.ts `releaseAnswer`). */
export interface AnswerLender {
  releaseAnswer(body: Buffer): void;
}

/**
 * Sends an answer whose memory is lent (a Batch* answer, a list): it is
 * given back when the response closes, after its bytes were written to the
 * socket (or the connection went away), never while a write may still read
 * them.
 */
export function sendLentAnswer(reply: FastifyReply, body: Buffer, lender: AnswerLender): FastifyReply {
  reply.raw.once('close', () => lender.releaseAnswer(body));
  return sendJson(reply, body);
}

/**
 * Makes a scope's answers ones no cache keeps, shared or private, unless a
 * route says otherwise: a user's library and viewing progress change with
 * every write and are theirs alone.
 */
export function uncachedAnswers(scope: FastifyInstance): void {
  scope.addHook('onSend', (_request, reply, payload, done) => {
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
    done(null, payload);
  });
}
