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
import { ApiError, invalidRequest, PAGE_TEXTS, type Violation } from '../errors.ts';
import type { Guard } from '../http/credentials.ts';
import type { RateLimiter, RateLimitStore } from '../http/rate-limit.ts';
import { checkAuthorizeRequest, FLOW_PARAMETERS, redirectTo, type AuthorizeFlow, type Csrf } from './authorize-flow.ts';
import type { ClientsService } from './clients.service.ts';
import { CODE_VERIFIER } from './pkce.ts';
import { PAGE_HEADERS, renderErrorPage, renderSignInPage } from './sign-in-page.ts';
import type { TokenSet, TokensService } from './tokens.service.ts';
import { usernameKey, type UsersService } from './users.service.ts';

export interface AuthRouteDeps {
  issuer: string;
  clients: ClientsService;
  users: UsersService;
  tokens: TokensService;
  csrf: Csrf;
  guard: Guard;
  /** Limits calls to the token endpoints per client address (contract section 8); absent when limits are off. */
  addressLimiter: RateLimiter | undefined;
  /** Counts sign-in attempts per username and per IP. */
  signInFailures: RateLimitStore;
  secureCookies: boolean;
  /** The app's clock (AppDeps.clock): sign-in windows and TokenInfo's expires_in. */
  clock: () => number;
  /** The error handler of the token endpoints' scope: the app's, with RFC 6749 members (http/error-handler.ts). */
  oauthErrors: (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => void;
}

const CSRF_COOKIE = 'maqam_csrf';
const SIGN_IN_WINDOW_MS = 15 * 60_000;
/** Failed sign-ins allowed per window: per username (guessing one password) and per IP (spraying many). */
const MAX_FAILURES_PER_USER = 5;
const MAX_FAILURES_PER_IP = 20;

function cookie(request: FastifyRequest, name: string): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return value.join('=');
  }
  return undefined;
}

/** A form body as URLSearchParams, so repeated fields stay visible. */
function formParams(body: unknown): URLSearchParams {
  return body instanceof URLSearchParams ? body : new URLSearchParams();
}

/**
 * The proto3 JSON mapping for the auth bodies, whose canonical names are
 * snake_case: lowerCamelCase members are renamed (clientId -> client_id); a
 * member given both ways with different values is a 400.
 */
function snakeCaseBody(body: unknown): Record<string, unknown> {
  if (body instanceof URLSearchParams) {
    const object: Record<string, unknown> = {};
    for (const name of new Set(body.keys())) {
      const values = body.getAll(name);
      object[name] = values.length === 1 ? values[0] : values; // repeated: fails validation, naming the field
    }
    body = object;
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return body as Record<string, unknown>;
  const result: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    const snake = key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
    if (snake in result && result[snake] !== value) throw invalidRequest({ field: snake, reason: 'duplicateField', params: { other: key } });
    result[snake] = value;
  }
  return result;
}


function required(body: Record<string, unknown>, names: readonly string[]): Violation[] {
  return names.filter((n) => body[n] === undefined || body[n] === '').map((field) => ({ field, reason: 'required' as const }));
}

const AUTH_ERRORS = { 400: OAuthErrorBody, 401: OAuthErrorBody, '4xx': ErrorBody, '5xx': ErrorBody } as const;
const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' };

export async function authRoutes(app: FastifyInstance, deps: AuthRouteDeps): Promise<void> {
  const { issuer, clients, users, tokens, csrf, guard, signInFailures } = deps;

  // Forms (the sign-in page, and RFC 6749 clients) are parsed only in this plugin; the catalog stays JSON-only.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
    done(null, new URLSearchParams(body as string));
  });

  function sendPage(reply: FastifyReply, status: number, html: string) {
    return reply.code(status).headers(PAGE_HEADERS).type('text/html; charset=utf-8').send(html);
  }

  function showSignIn(reply: FastifyReply, request: FastifyRequest, flow: AuthorizeFlow, extra: { status?: number; username?: string; error?: { readonly ar: string; readonly en: string } } = {}) {
    let nonce = cookie(request, CSRF_COOKIE);
    if (!nonce || !/^[A-Za-z0-9_-]{24}$/.test(nonce)) nonce = csrf.newNonce();
    reply.header(
      'set-cookie',
      `${CSRF_COOKIE}=${nonce}; Path=/v1/auth; HttpOnly; SameSite=Strict; Max-Age=1800${deps.secureCookies ? '; Secure' : ''}`,
    );
    const hidden: Record<string, string> = {
      response_type: 'code',
      client_id: flow.client.clientId,
      redirect_uri: flow.redirectUri,
      scope: flow.scopes.join(' '),
      code_challenge: flow.codeChallenge,
      code_challenge_method: 'S256',
      csrf_token: csrf.issue(nonce, flow),
    };
    if (flow.state !== undefined) hidden.state = flow.state;
    return sendPage(
      reply,
      extra.status ?? 200,
      renderSignInPage({
        clientName: flow.client.name,
        scopes: flow.scopes,
        hidden,
        ...(extra.username === undefined ? {} : { username: extra.username }),
        ...(extra.error === undefined ? {} : { error: extra.error }),
      }),
    );
  }

  /** Runs the checks shared by GET and POST; answers refusals and redirects itself. */
  async function flowOrAnswer(params: URLSearchParams, reply: FastifyReply): Promise<AuthorizeFlow | undefined> {
    const check = await checkAuthorizeRequest(params, clients);
    if (check.kind === 'refuse') {
      await sendPage(reply, 400, renderErrorPage(check.problem));
      return undefined;
    }
    if (check.kind === 'redirect') {
      await reply.headers(NO_STORE).redirect(
        redirectTo(check.redirectUri, { error: check.error, error_description: check.description, state: check.state, iss: issuer }),
        302,
      );
      return undefined;
    }
    return check.flow;
  }

  const hidden = { hide: true };

  app.get('/v1/auth/authorize', { schema: { ...hidden } }, async (request, reply) => {
    const params = new URL(request.url, 'http://maqam.invalid').searchParams;
    const flow = await flowOrAnswer(params, reply);
    if (flow) return showSignIn(reply, request, flow);
    return reply;
  });

  app.post('/v1/auth/authorize', { schema: { ...hidden } }, async (request, reply) => {
    const form = formParams(request.body);
    const flowParams = new URLSearchParams();
    for (const name of FLOW_PARAMETERS) for (const value of form.getAll(name)) flowParams.append(name, value);
    const flow = await flowOrAnswer(flowParams, reply);
    if (!flow) return reply;
    const formId = csrf.verify(form.get('csrf_token') ?? '', cookie(request, CSRF_COOKIE), flow);
    if (formId === null) {
      return sendPage(reply, 400, renderErrorPage(PAGE_TEXTS.pageExpired));
    }
    const back = (params: Record<string, string | undefined>) =>
      reply.headers(NO_STORE).redirect(redirectTo(flow.redirectUri, { ...params, state: flow.state, iss: issuer }), 302);
    const decision = form.get('decision');
    if (decision === 'deny') return back({ error: 'access_denied', error_description: 'the user denied the request' });

    const username = form.get('username') ?? '';
    const password = form.get('password') ?? '';
    const now = deps.clock();
    const userKey = `signin:user:${usernameKey(username)}`;
    const ipKey = `signin:ip:${request.ip}`;
    // The attempt is counted before the password is checked, atomically, so
    // concurrent guesses cannot all pass a count read before any of them is
    // added: of any number of parallel attempts, at most the limit are checked.
    const [userAttempts, ipAttempts] = await Promise.all([
      signInFailures.hit(userKey, SIGN_IN_WINDOW_MS, now),
      signInFailures.hit(ipKey, SIGN_IN_WINDOW_MS, now),
    ]);
    if (userAttempts.count > MAX_FAILURES_PER_USER || ipAttempts.count > MAX_FAILURES_PER_IP) {
      reply.header('retry-after', String(SIGN_IN_WINDOW_MS / 1000));
      return showSignIn(reply, request, flow, {
        status: 429,
        username,
        error: PAGE_TEXTS.tooManyAttempts,
      });
    }
    const user = decision === 'allow' && username !== '' && password !== '' ? await users.authenticate(username, password) : null;
    if (!user) {
      return showSignIn(reply, request, flow, {
        username,
        error: PAGE_TEXTS.wrongPassword,
      });
    }
    // Only failures count: a right password takes its attempt back.
    await Promise.all([signInFailures.release(userKey, now), signInFailures.release(ipKey, now)]);
    const code = await tokens.issueCode({
      clientId: flow.client.clientId,
      userId: user.id,
      scope: flow.scopes.join(' '),
      redirectUri: flow.redirectUri,
      codeChallenge: flow.codeChallenge,
      formId,
    });
    if (code === null) {
      return sendPage(reply, 400, renderErrorPage(PAGE_TEXTS.pageUsed));
    }
    return back({ code });
  });

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
        security: [{ oauth2: [] }],
        response: { 200: TokenInfoResponse, '4xx': ErrorBody, '5xx': ErrorBody },
      },
      onRequest: guard('tokeninfo'),
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

  app.get('/.well-known/oauth-authorization-server', { schema: { ...hidden } }, async () => ({
    issuer,
    authorization_endpoint: `${issuer}/v1/auth/authorize`,
    token_endpoint: `${issuer}/v1/auth/token`,
    revocation_endpoint: `${issuer}/v1/auth/token/revoke`,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none'],
    revocation_endpoint_auth_methods_supported: ['none'],
    scopes_supported: ['read', 'stream'],
    authorization_response_iss_parameter_supported: true,
    service_documentation: `${issuer}/docs`,
  }));
}

/** A 400 with violations that also speaks RFC 6749 (`invalid_request`). */
function invalidRequestOAuth(violations: Violation[]): ApiError {
  return new ApiError('invalidRequest', {
    violations,
    oauth: { error: 'invalid_request', description: violations.map((v) => `${v.field}: ${v.reason}`).join('; ') },
  });
}
