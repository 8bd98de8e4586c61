import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PAGE_TEXTS } from '../errors.ts';
import { checkAuthorizeRequest, FLOW_PARAMETERS, redirectTo, type AuthorizeFlow, type Csrf } from './authorize-flow.ts';
import type { ClientsService } from './clients.service.ts';
import { addFormParser, formParams, NO_STORE } from './oauth-http.ts';
import { PAGE_HEADERS, renderErrorPage, renderSignInPage } from './sign-in-page.ts';
import { SIGN_IN_WINDOW_MS, type SignInLimits } from './sign-in-limits.ts';
import type { TokensService } from './tokens.service.ts';
import type { UsersService } from './users.service.ts';

export interface AuthorizeRouteDeps {
  issuer: string;
  clients: ClientsService;
  users: UsersService;
  tokens: TokensService;
  csrf: Csrf;
  /** Counts sign-in attempts per username and per address. */
  signInLimits: SignInLimits;
  secureCookies: boolean;
}

const CSRF_COOKIE = 'maqam_csrf';

function cookie(request: FastifyRequest, name: string): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return value.join('=');
  }
  return undefined;
}

/**
 * The authorization endpoint (RFC 6749 §4.1.1 with PKCE): GET shows the
 * bilingual sign-in and consent page, POST signs in and redirects back with a
 * code (or an error), after the checks shared with GET (authorize-flow.ts).
 */
export async function authorizeRoutes(app: FastifyInstance, deps: AuthorizeRouteDeps): Promise<void> {
  const { issuer, clients, users, tokens, csrf, signInLimits } = deps;
  addFormParser(app);

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
    const attempt = await signInLimits.attempt(username, request.ip);
    if (attempt.refused) {
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
    await attempt.succeeded();
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
}
