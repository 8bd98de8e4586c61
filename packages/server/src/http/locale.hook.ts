import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { invalidRequest } from '../errors.ts';
import type { LocaleNegotiator, Negotiation } from '../locale/negotiation.ts';
import { addVary } from './vary.ts';

declare module 'fastify' {
  interface FastifyRequest {
    negotiation: Negotiation;
  }
}

/** Negotiates Accept-Language for a localized operation and sets Content-Language and Vary. */
export function negotiateLocale(negotiator: LocaleNegotiator) {
  // A hook with a callback, not a promise: it never waits, and it runs on every catalog read. A throw is a refusal.
  return function negotiate(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
    const negotiation = negotiator.negotiate(request.headers['accept-language']);
    if (negotiation === null) throw invalidRequest({ field: 'Accept-Language', reason: 'acceptLanguage' });
    request.negotiation = negotiation;
    addVary(reply.header('content-language', negotiation.contentLanguage), 'Accept-Language');
    done();
  };
}
