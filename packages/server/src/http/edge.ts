import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction, onResponseHookHandler, RouteOptions } from 'fastify';
import { ErrorBody, ValidationErrorBody, type ApiKeyScope } from '@maqam/contract';
import type { LocaleNegotiator } from '../locale/negotiation.ts';
import { ACCESS, securityOf, type Access } from './access.ts';
import type { Guard } from './credentials.ts';
import type { Idempotency } from './idempotency.ts';
import { negotiateLocale } from './locale.hook.ts';
import { normalizeProtoJsonNames } from './proto-json.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * Who may call the operation (access.ts). A route that declares it is
     * wired by the edge: credentials and the rate limit, Accept-Language, the
     * proto3 JSON names of its body, and its OpenAPI security and error
     * answers. Routes that declare nothing (OAuth's endpoints, the
     * operators' ones) speak their own protocols.
     */
    access?: Access;
    /** Takes an Idempotency-Key (contract section 14): claimed before the handler, its answer kept (idempotency.ts). */
    idempotent?: boolean;
    /** The key scope an API key needs here (contract section 16), when the access admits keys; `catalog` unless said. */
    keyScope?: ApiKeyScope;
  }
}

/** The error answers every operation may give, in the contract's shapes (section 1). */
export const ERROR_RESPONSES = { 400: ValidationErrorBody, '4xx': ErrorBody, '5xx': ErrorBody } as const;

export interface EdgeDeps {
  guard: Guard;
  negotiator: LocaleNegotiator;
  idempotency: Idempotency;
  /** Counts each answer to an API key (keys/key-usage.ts): an onResponse hook of the routes that admit keys. */
  countKeyUse?: onResponseHookHandler;
}

/** A preValidation hook: a parsed body's snake_case members become lowerCamelCase (proto3 JSON), so one schema validates both. */
function renameBody(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  normalizeProtoJsonNames(request.body);
  done();
}

const hooks = <T>(hook: T | T[] | undefined): T[] => (hook === undefined ? [] : Array.isArray(hook) ? hook : [hook]);

/**
 * The edge, declared once (house style: "routes declare, one plugin
 * wires"): every route registered after it that says its `access` gets, in
 * the contract's order (section 2), the credential check and the
 * credential's rate limit (onRequest), then Accept-Language and the body's
 * proto3 JSON names (preValidation), then validation; an `idempotent` one
 * its Idempotency-Key claim (preHandler) and the keeping of its answer
 * (onSend). Its OpenAPI `security` and error answers come from the same
 * declaration, so what the document says is what is enforced.
 */
export function wireEdge(app: FastifyInstance, { guard, negotiator, idempotency, countKeyUse }: EdgeDeps): void {
  const negotiate = negotiateLocale(negotiator);
  app.decorateRequest('idempotencyKey', undefined);
  app.addHook('onRoute', (route: RouteOptions) => {
    const access = route.config?.access;
    if (access === undefined) return;
    const schema = route.schema as (RouteOptions['schema'] & { security?: unknown; response?: Record<string | number, unknown> }) | undefined;
    route.onRequest = [...(access === 'public' ? [] : guard(access, route.config?.keyScope)), ...hooks(route.onRequest)] as RouteOptions['onRequest'];
    if (countKeyUse !== undefined && access !== 'public' && ACCESS[access].apiKey === 'admitted') {
      route.onResponse = [countKeyUse, ...hooks(route.onResponse)] as RouteOptions['onResponse'];
    }
    route.preValidation = [negotiate, ...(schema?.body === undefined ? [] : [renameBody]), ...hooks(route.preValidation)] as RouteOptions['preValidation'];
    if (route.config?.idempotent) {
      route.preHandler = [idempotency.claim, ...hooks(route.preHandler)] as RouteOptions['preHandler'];
      route.onSend = [idempotency.record, ...hooks(route.onSend)] as RouteOptions['onSend'];
    }
    if (schema !== undefined) {
      schema.security = securityOf(access);
      schema.response = { ...schema.response, ...ERROR_RESPONSES };
    }
  });
}
