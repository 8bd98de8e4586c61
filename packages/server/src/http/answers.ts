import type { FastifyReply } from 'fastify';

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
