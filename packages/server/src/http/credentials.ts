import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import { ApiError, invalidRequest } from '../errors.ts';
import type { ApiKeyPrincipal, Principal, TokenPrincipal } from '../principal.ts';
import type { ApiKeyScope } from '@maqam/contract';
import { ACCESS, DEFAULT_KEY_SCOPE, type Access } from './access.ts';
import type { RateLimiter } from './rate-limit.ts';

/** What an operation needs of a credential (access.ts says what each admits). */
export type Requirement = Exclude<Access, 'public'>;

/** The ports credential checking uses; the OAuth server supplies `accessToken`. */
export interface CredentialVerifiers {
  apiKey(key: string): Promise<ApiKeyPrincipal | null>;
  accessToken(token: string): Promise<TokenPrincipal | null>;
}

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
  }
}

// RFC 6750 §2.1: credentials = "Bearer" 1*SP b64token; the scheme is case-insensitive.
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*)$/i;
const REALM = 'Bearer realm="maqam"';

/**
 * Checks credentials in the contract's order (section 2): header shape (400),
 * credential validity (401), permission (403). Request validation runs after.
 * A refusal is thrown.
 */
export async function verifyCredentials(
  verifiers: CredentialVerifiers,
  headers: IncomingHttpHeaders,
  requirement: Requirement,
  keyScope: ApiKeyScope = DEFAULT_KEY_SCOPE,
  authenticated: (principal: Principal) => void = () => {},
): Promise<Principal> {
  const authorization = headers.authorization;
  const apiKey = headers['x-api-key'];

  // 1. Header shape.
  if (authorization !== undefined && apiKey !== undefined) {
    throw invalidRequest(
      { field: 'Authorization', reason: 'bothCredentials' },
      { field: 'x-api-key', reason: 'bothCredentials' },
    );
  }
  if (authorization === undefined && apiKey === undefined) {
    throw new ApiError('credentialsMissing', { headers: { 'www-authenticate': REALM } });
  }
  let bearerToken: string | undefined;
  if (authorization !== undefined) {
    const match = BEARER.exec(authorization);
    if (!match) throw invalidRequest({ field: 'Authorization', reason: 'authorizationScheme' });
    bearerToken = match[1]!;
  }

  // 2. Validity.
  let principal: Principal | null;
  if (bearerToken !== undefined) {
    principal = await verifiers.accessToken(bearerToken);
    if (!principal) {
      throw new ApiError('accessTokenInvalid', { headers: { 'www-authenticate': 'Bearer error="invalid_token"' } });
    }
  } else {
    principal = typeof apiKey === 'string' ? await verifiers.apiKey(apiKey) : null;
    if (!principal) throw new ApiError('apiKeyInvalid', { headers: { 'www-authenticate': REALM } });
  }

  // 3. Permission (who the request is from is known from here on: a refusal is counted as the key's use).
  authenticated(principal);
  const rule = ACCESS[requirement];
  if (principal.kind === 'apiKey') {
    if (rule.apiKey !== 'admitted') throw new ApiError(rule.apiKey);
    if (!principal.scopes.has(keyScope)) throw new ApiError('apiKeyScopeMissing', { params: { scope: keyScope } });
  } else {
    const scope = rule.scope;
    if (scope !== undefined && !principal.scopes.has(scope)) {
      throw new ApiError('scopeMissing', {
        params: { scope },
        headers: { 'www-authenticate': `Bearer error="insufficient_scope", scope="${scope}"` },
      });
    }
  }
  return principal;
}

/**
 * The onRequest hook of verifyCredentials. A key in its rotation's grace
 * is answered with when it was deprecated (RFC 9745) and when it stops
 * working (RFC 8594), whatever the answer.
 */
export function requireCredentials(verifiers: CredentialVerifiers, requirement: Requirement, keyScope?: ApiKeyScope) {
  return async function checkCredentials(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    request.principal = await verifyCredentials(verifiers, request.headers, requirement, keyScope, (principal) => {
      request.principal = principal;
      if (principal.kind === 'apiKey' && principal.rotation !== null) {
        reply.header('deprecation', `@${Math.floor(principal.rotation.rotatedAt / 1000)}`);
        reply.header('sunset', new Date(principal.rotation.sunsetAt).toUTCString());
      }
    });
  };
}

/** The user a request acts for, on a route whose guard admits only access tokens ('user-read', 'user-write'). */
export const userOf = (request: FastifyRequest) => (request.principal as TokenPrincipal).userId;

/** What admits a request to an operation: credentials, then the per-credential rate limit (the onRequest hooks of a route). */
export type Guard = (requirement: Requirement, keyScope?: ApiKeyScope) => onRequestHookHandler[];

export function createGuard(verifiers: CredentialVerifiers, limiter: RateLimiter | undefined): Guard {
  return (requirement, keyScope) => {
    const chain = [requireCredentials(verifiers, requirement, keyScope)] as onRequestHookHandler[];
    if (limiter) chain.push(limiter as onRequestHookHandler);
    return chain;
  };
}
