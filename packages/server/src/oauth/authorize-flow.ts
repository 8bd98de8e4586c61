import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { PAGE_TEXTS } from '../errors.ts';
import type { ClientsService, OAuthClient } from './clients.service.ts';
import { S256_CHALLENGE } from './pkce.ts';

/** An authorization request that passed every check of contract section 5. */
export interface AuthorizeFlow {
  readonly client: OAuthClient;
  readonly redirectUri: string;
  readonly scopes: readonly string[];
  readonly state: string | undefined;
  readonly codeChallenge: string;
}

/** What to do with a request: show the page, redirect an error to the client, or refuse without redirecting. */
export type FlowCheck =
  | { kind: 'ok'; flow: AuthorizeFlow }
  | { kind: 'redirect'; redirectUri: string; state: string | undefined; error: string; description: string }
  | { kind: 'refuse'; problem: { readonly ar: string; readonly en: string } };

/** The parameters of the flow, each at most once (RFC 6749 §3.1: none may be repeated). */
export const FLOW_PARAMETERS = ['response_type', 'client_id', 'redirect_uri', 'scope', 'state', 'code_challenge', 'code_challenge_method'] as const;

/**
 * The checks of an authorization request, in order. Until client_id and
 * redirect_uri are trusted, nothing may be redirected (an open redirector);
 * after that, problems go back to the client as RFC 6749 errors.
 */
export async function checkAuthorizeRequest(params: URLSearchParams, clients: ClientsService): Promise<FlowCheck> {
  const once = (name: string) => {
    const values = params.getAll(name);
    return { value: values[0], repeated: values.length > 1 };
  };
  const clientId = once('client_id');
  if (clientId.repeated || !clientId.value) {
    return { kind: 'refuse', problem: PAGE_TEXTS.appNotNamedOnce };
  }
  const client = await clients.find(clientId.value);
  if (!client) return { kind: 'refuse', problem: PAGE_TEXTS.appUnknown };
  const redirect = once('redirect_uri');
  if (redirect.repeated || !redirect.value || !client.redirectUris.includes(redirect.value)) {
    return { kind: 'refuse', problem: PAGE_TEXTS.returnAddressUnknown };
  }
  const state = once('state');
  const fail = (error: string, description: string): FlowCheck => ({
    kind: 'redirect',
    redirectUri: redirect.value!,
    state: state.value,
    error,
    description,
  });

  const repeated = FLOW_PARAMETERS.filter((name) => once(name).repeated);
  if (repeated.length > 0) return fail('invalid_request', `parameter ${repeated.join(', ')} is given more than once`);
  const responseType = once('response_type').value;
  if (!responseType) return fail('invalid_request', 'response_type is required');
  if (responseType !== 'code') return fail('unsupported_response_type', 'only response_type=code is supported');
  const method = once('code_challenge_method').value;
  if (!method) return fail('invalid_request', 'code_challenge_method is required and must be S256');
  if (method !== 'S256') return fail('invalid_request', 'code_challenge_method must be S256 (plain is not accepted)');
  const challenge = once('code_challenge').value;
  if (!challenge) return fail('invalid_request', 'code_challenge is required (PKCE)');
  if (!S256_CHALLENGE.test(challenge)) return fail('invalid_request', 'code_challenge must be 43 base64url characters');
  const requested = (once('scope').value ?? '').split(' ').filter(Boolean);
  const scopes = requested.length === 0 ? ['read'] : [...new Set(requested)];
  const refused = scopes.filter((s) => !(client.scopes as readonly string[]).includes(s));
  if (refused.length > 0) return fail('invalid_scope', `scope ${refused.join(' ')} is not available to this client`);
  return { kind: 'ok', flow: { client, redirectUri: redirect.value, scopes, state: state.value, codeChallenge: challenge } };
}

/** The client's redirect URI with the response parameters added (its own query is kept). */
export function redirectTo(redirectUri: string, params: Record<string, string | undefined>): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(name, value);
  return url.toString();
}

const CSRF_TTL_MS = 30 * 60_000;

/**
 * CSRF tokens for the sign-in form: a random form id, an expiry, and an HMAC
 * over them, a per-browser nonce (kept in an HttpOnly SameSite cookie) and
 * the whole flow. A form posted from elsewhere lacks the cookie; a form whose
 * hidden flow was edited fails the MAC. The form id makes the form single-use:
 * the grant it yields records it, uniquely.
 */
export function createCsrf(key: Buffer, clock: () => number = Date.now) {
  const flowText = (flow: AuthorizeFlow) =>
    [flow.client.clientId, flow.redirectUri, flow.scopes.join(' '), flow.state ?? '', flow.codeChallenge].join('\n');
  const mac = (nonce: string, formId: string, expires: number, flow: AuthorizeFlow) =>
    createHmac('sha256', key).update(`${nonce}\n${formId}\n${expires}\n${flowText(flow)}`).digest('base64url');
  return {
    newNonce: () => randomBytes(18).toString('base64url'),
    issue(nonce: string, flow: AuthorizeFlow): string {
      const formId = randomBytes(16).toString('base64url');
      const expires = clock() + CSRF_TTL_MS;
      return `${formId}.${expires}.${mac(nonce, formId, expires, flow)}`;
    },
    /** The form id of a genuine, unexpired form of this flow and browser, or null. */
    verify(token: string, nonce: string | undefined, flow: AuthorizeFlow): string | null {
      const [formId, expiresText, given, extra] = token.split('.');
      const expires = Number(expiresText);
      if (!nonce || !formId || !given || extra !== undefined || !/^[A-Za-z0-9_-]{22}$/.test(formId) || !Number.isFinite(expires) || expires <= clock()) return null;
      const expected = Buffer.from(mac(nonce, formId, expires, flow));
      const actual = Buffer.from(given);
      return actual.length === expected.length && timingSafeEqual(actual, expected) ? formId : null;
    },
  };
}

export type Csrf = ReturnType<typeof createCsrf>;
