import { createHash, randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { createClientsService, createUsersService } from '@maqam/server';
import type { TestServer } from '../harness.ts';

export const REDIRECT = 'https://app.example/callback';
export const PASSWORD = 'صوت الموسيقى 123';

export function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** A user and two clients (read+stream, read only) in the server's database. */
export async function seedAccounts(server: TestServer) {
  const users = createUsersService(server.storage.db);
  const clients = createClientsService(server.storage.db);
  const user = await users.create(`user${randomBytes(4).toString('hex')}`, PASSWORD);
  const client = await clients.create({ name: 'Maqam Test App', redirectUris: [REDIRECT, 'http://127.0.0.1:9999/cb'], scopes: ['read', 'stream'] });
  const readOnly = await clients.create({ name: 'Reader', redirectUris: [REDIRECT], scopes: ['read'] });
  const streamOnly = await clients.create({ name: 'Player', redirectUris: [REDIRECT], scopes: ['stream'] });
  return { user, client, readOnly, streamOnly };
}

export function authorizeUrl(params: Record<string, string | undefined>): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== undefined) query.append(name, value);
  return `/v1/auth/authorize?${query}`;
}

/** The hidden inputs of the sign-in page and its CSRF cookie. */
export function readForm(html: string, setCookie: string | string[] | undefined) {
  const hidden: Record<string, string> = {};
  for (const match of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    hidden[match[1]!] = match[2]!.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
  }
  const cookie = [setCookie ?? []].flat()[0]?.split(';')[0] ?? '';
  return { hidden, cookie };
}

export async function openSignIn(server: TestServer, params: Record<string, string | undefined>) {
  const page = await server.app.inject({ method: 'GET', url: authorizeUrl(params) });
  expect(page.statusCode, page.body).toBe(200);
  return readForm(page.body, page.headers['set-cookie']);
}

export function postForm(server: TestServer, fields: Record<string, string>, cookie: string, remoteAddress = '127.0.0.1') {
  return server.app.inject({
    method: 'POST',
    url: '/v1/auth/authorize',
    remoteAddress,
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
    payload: new URLSearchParams(fields).toString(),
  });
}

/** Signs in through the page and returns the code and the verifier that redeems it. */
export async function signIn(server: TestServer, options: { clientId: string; username: string; scope?: string; state?: string; password?: string }) {
  const { verifier, challenge } = pkce();
  const { hidden, cookie } = await openSignIn(server, {
    response_type: 'code',
    client_id: options.clientId,
    redirect_uri: REDIRECT,
    scope: options.scope ?? 'read stream',
    state: options.state ?? 'xyz',
    code_challenge: challenge,
    code_challenge_method: 'S256',
  });
  const res = await postForm(server, { ...hidden, username: options.username, password: options.password ?? PASSWORD, decision: 'allow' }, cookie);
  expect(res.statusCode, res.body.slice(0, 300)).toBe(302);
  const location = new URL(res.headers.location as string);
  return { code: location.searchParams.get('code')!, verifier, location };
}

export function token(server: TestServer, body: Record<string, string>, form = false) {
  return server.app.inject({
    method: 'POST',
    url: '/v1/auth/token',
    headers: { 'content-type': form ? 'application/x-www-form-urlencoded' : 'application/json' },
    payload: form ? new URLSearchParams(body).toString() : JSON.stringify(body),
  });
}

export async function tokensFor(server: TestServer, clientId: string, username: string, scope?: string) {
  const { code, verifier } = await signIn(server, { clientId, username, ...(scope ? { scope } : {}) });
  const res = await token(server, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, client_id: clientId, code_verifier: verifier });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { access_token: string; refresh_token: string; expires_in: number; scope: string; token_type: string };
}

export function refresh(server: TestServer, body: Record<string, string>) {
  return server.app.inject({ method: 'POST', url: '/v1/auth/token/refresh', headers: { 'content-type': 'application/json' }, payload: JSON.stringify(body) });
}

export function catalogWith(server: TestServer, accessToken: string) {
  return server.app.inject({ method: 'GET', url: '/v1/music/artists/artist-ar/related?page_size=1', headers: { authorization: `Bearer ${accessToken}` } });
}
