import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import {
  ErrorBody,
  OAuthErrorBody,
  RefreshTokenRequest,
  RevokeTokenRequest,
  TokenInfoResponse,
  TokenRequest,
  TokenResponse,
} from '@maqam/contract';
import { ApiError, type Violation } from '../errors.ts';
import type { RateLimiter } from '../http/rate-limit.ts';
import type { ClientsService } from './clients.service.ts';
import { addFormParser, NO_STORE, snakeCaseBody } from './oauth-http.ts';
import { CODE_VERIFIER } from './pkce.ts';
import type { TokenSet, TokensService } from './tokens.service.ts';

export interface TokenRouteDeps {
  clients: ClientsService;
  tokens: TokensService;
  /** Limits calls to the token endpoints per client address (contract section 8); absent when limits are off. */
  addressLimiter: RateLimiter | undefined;
  /** The app's clock (AppDeps.clock): TokenInfo's expires_in. */
  clock: () => number;
  /** The error handler of the token endpoints' scope: the app's, with RFC 6749 members (http/error-handler.ts). */
  oauthErrors: (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => void;
}

function required(body: Record<string, unknown>, names: readonly string[]): Violation[] {
  return names.filter((n) => body[n] === undefined || body[n] === '').map((field) => ({ field, reason: 'required' as const }));
}

const AUTH_ERRORS = { 400: OAuthErrorBody, 401: OAuthErrorBody, '4xx': ErrorBody, '5xx': ErrorBody } as const;

/** The token endpoints (RFC 6749 §3.2, RFC 7009) and TokenInfo. */
export async function tokenRoutes(app: FastifyInstance, deps: TokenRouteDeps): Promise<void> {
  const { clients, tokens } = deps;
  addFormParser(app);
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  // The token endpoints take no credential to count against, so they are limited per client address.
  const limitPerAddress = deps.addressLimiter ? { onRequest: deps.addressLimiter } : {};
  const normalize = async (request: FastifyRequest) => {
    request.body = snakeCaseBody(request.body);
  };

  async function clientExists(clientId: string) {
    if (!(await clients.find(clientId))) {
      throw new ApiError('clientUnknown', { params: { clientId }, oauth: { error: 'invalid_client', description: 'unknown client_id' } });
    }
  }

  async function exchange(body: TokenRequest): Promise<TokenSet> {
    if (body.grant_type === 'authorization_code') {
      const missing = required(body, ['code', 'redirect_uri', 'client_id', 'code_verifier']);
      if (missing.length > 0) throw invalidRequestOAuth(missing);
      if (!CODE_VERIFIER.test(body.code_verifier!)) throw invalidRequestOAuth([{ field: 'code_verifier', reason: 'codeVerifier' }]);
      await clientExists(body.client_id!);
      return tokens.exchangeCode({ code: body.code!, clientId: body.client_id!, redirectUri: body.redirect_uri!, codeVerifier: body.code_verifier! });
    }
    if (body.grant_type === 'refresh_token') return refresh(body);
    throw new ApiError('invalidRequest', {
      violations: [{ field: 'grant_type', reason: 'grantType' }],
      oauth: { error: 'unsupported_grant_type', description: 'grant_type must be authorization_code or refresh_token' },
    });
  }

  async function refresh(body: { refresh_token?: string | undefined; client_id?: string | undefined }): Promise<TokenSet> {
    const missing = required(body, ['refresh_token', 'client_id']);
    if (missing.length > 0) throw invalidRequestOAuth(missing);
    await clientExists(body.client_id!);
    return tokens.refresh({ refreshToken: body.refresh_token!, clientId: body.client_id! });
  }

  // The token endpoints answer OAuth errors (RFC 6749 §5.2 members) on every failure, parsing and
  // validation included: their scope's own error handler adds them.
  await app.register(async (scope) => {
    scope.setErrorHandler(deps.oauthErrors);
    const tokenEndpoints = scope.withTypeProvider<TypeBoxTypeProvider>();
    tokenEndpoints.post(
      '/v1/auth/token',
      {
        schema: {
          operationId: 'ExchangeToken',
          // Public: the client proves itself with its code, verifier or refresh token, not a credential.
          security: [],
          tags: ['AuthService'],
          summary: 'Exchanges an authorization code (PKCE) for tokens, or refreshes them (grant_type=refresh_token).',
          description: 'The second step of the authorization-code flow (RFC 6749 §4.1.3 with PKCE, RFC 7636): send the code from the redirect, the same `redirect_uri`, your `client_id` and the `code_verifier` whose S256 challenge started the sign-in. JSON or form-encoded. A code works once and for a few minutes; a second use revokes everything issued from it. Errors are OAuth errors (`invalid_grant`, `invalid_request`...).',
          body: TokenRequest,
          response: { 200: TokenResponse, ...AUTH_ERRORS },
        },
        preValidation: normalize,
        ...limitPerAddress,
      },
      async (request, reply) => {
        reply.headers(NO_STORE);
        return exchange(request.body);
      },
    );

    tokenEndpoints.post(
      '/v1/auth/token/refresh',
      {
        schema: {
          operationId: 'RefreshToken',
          // Public: the client proves itself with its code, verifier or refresh token, not a credential.
          security: [],
          tags: ['AuthService'],
          summary: 'Rotates a refresh token: answers a new token pair and spends the one presented.',
          description: 'Every refresh returns a new refresh token; keep only the newest. Presenting a spent refresh token is taken as theft: the whole sign-in is revoked (RFC 9700 §4.14.2). Refresh tokens expire after 30 days unused and 90 days after sign-in.',
          body: RefreshTokenRequest,
          response: { 200: TokenResponse, ...AUTH_ERRORS },
        },
        preValidation: normalize,
        ...limitPerAddress,
      },
      async (request, reply) => {
        reply.headers(NO_STORE);
        return refresh(request.body);
      },
    );

    tokenEndpoints.post(
      '/v1/auth/token/revoke',
      {
        schema: {
          operationId: 'RevokeToken',
          // Public: the client proves itself with its code, verifier or refresh token, not a credential.
          security: [],
          tags: ['AuthService'],
          summary: 'Revokes a token (RFC 7009). Always 200 {}; a refresh token revokes its whole sign-in.',
          description: 'Sign-out: revoke the refresh token to end the sign-in on every device it reached, or an access token to end only it. Unknown tokens also answer 200, so the answer tells nothing about a token. `token_type_hint` only orders the lookup.',
          body: RevokeTokenRequest,
          response: { 200: { type: 'object', properties: {}, additionalProperties: false }, ...AUTH_ERRORS },
        },
        preValidation: normalize,
        ...limitPerAddress,
      },
      async (request, reply) => {
        reply.headers(NO_STORE);
        await tokens.revoke(request.body.token, request.body.token_type_hint);
        return {};
      },
    );
  });

  typed.get(
    '/v1/auth/tokeninfo',
    {
      schema: {
        operationId: 'TokenInfo',
        tags: ['AuthService'],
        summary: "Describes the presented access token: scopes, client, user and expiry.",
        description: 'For apps and resource servers that need to know what a bearer token allows. Answers 401 for a token that is unknown, expired or revoked.',
        response: { 200: TokenInfoResponse },
      },
      config: { access: 'tokeninfo' },
    },
    async (request, reply) => {
      const principal = request.principal!;
      if (principal.kind !== 'token') throw new ApiError('tokenInfoNeedsToken');
      reply.headers(NO_STORE);
      const now = deps.clock();
      return {
        active: true as const,
        scope: principal.scope,
        client_id: principal.clientId,
        sub: principal.userId,
        iat: Math.floor(principal.issuedAt / 1000),
        exp: Math.floor(principal.expiresAt / 1000),
        expires_in: Math.max(0, Math.floor((principal.expiresAt - now) / 1000)),
        token_type: 'Bearer' as const,
      };
    },
  );
}

/** A 400 with violations that also speaks RFC 6749 (`invalid_request`). */
function invalidRequestOAuth(violations: Violation[]): ApiError {
  return new ApiError('invalidRequest', {
    violations,
    oauth: { error: 'invalid_request', description: violations.map((v) => `${v.field}: ${v.reason}`).join('; ') },
  });
}
