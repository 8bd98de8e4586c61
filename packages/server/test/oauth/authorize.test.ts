import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../dialects.ts';
import { startTestServer, type TestServer } from '../harness.ts';
import { authorizeUrl, openSignIn, pkce, postForm, REDIRECT, seedAccounts, signIn } from './oauth-helpers.ts';

describe.each(dialects.map((d) => [d.name, d] as const))('GET/POST /v1/auth/authorize on %s', (_name, dialect) => {
  let server: TestServer;
  let accounts: Awaited<ReturnType<typeof seedAccounts>>;
  const { challenge } = pkce();
  const valid = () => ({
    response_type: 'code',
    client_id: accounts.client.clientId,
    redirect_uri: REDIRECT,
    scope: 'read stream',
    state: 'st-123',
    code_challenge: challenge,
    code_challenge_method: 'S256',
  });
  beforeAll(async () => {
    server = await startTestServer(dialect);
    accounts = await seedAccounts(server);
  });
  afterAll(async () => server?.close());

  const get = (params: Record<string, string | undefined>) => server.app.inject({ method: 'GET', url: authorizeUrl(params) });

  it('shows a bilingual, right-to-left, unframeable sign-in page with the flow in hidden inputs', async () => {
    const res = await get(valid());
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(res.headers['cache-control']).toBe('no-store');
    expect(String(res.headers['set-cookie'])).toMatch(/^maqam_csrf=[A-Za-z0-9_-]{24}; Path=\/v1\/auth; HttpOnly; SameSite=Strict/);
    expect(res.body).toContain('<html lang="ar" dir="rtl">');
    expect(res.body).toContain('تسجيل الدخول إلى مقام');
    expect(res.body).toContain('Sign in to Maqam');
    expect(res.body).toMatch(/<label for="username">[\s\S]*<input type="text" id="username" name="username"/);
    expect(res.body).toMatch(/<label for="password">[\s\S]*<input type="password" id="password" name="password"/);
    expect(res.body).toContain('name="decision" value="allow"');
    expect(res.body).toContain('name="decision" value="deny"');
    expect(res.body).toContain('name="csrf_token"');
    expect(res.body).toContain(`name="code_challenge" value="${challenge}"`);
    expect(res.body).not.toMatch(/<script/);
  });

  it.each([
    ['an unknown client_id', { client_id: 'mc_nope' }],
    ['a missing client_id', { client_id: undefined }],
    ['an unregistered redirect_uri', { redirect_uri: 'https://evil.example/cb' }],
    ['a redirect_uri that only starts like a registered one', { redirect_uri: `${REDIRECT}/more` }],
    ['a missing redirect_uri', { redirect_uri: undefined }],
  ])('refuses %s with a 400 page and no redirect', async (_what, change) => {
    const res = await get({ ...valid(), ...change });
    expect(res.statusCode).toBe(400);
    expect(res.headers.location).toBeUndefined();
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.body).toContain('role="alert"');
  });

  it('refuses a repeated client_id without redirecting', async () => {
    const res = await server.app.inject({ method: 'GET', url: `${authorizeUrl(valid())}&client_id=${accounts.client.clientId}` });
    expect(res.statusCode).toBe(400);
    expect(res.headers.location).toBeUndefined();
  });

  it.each([
    ['no code_challenge', { code_challenge: undefined }, 'invalid_request'],
    ['no code_challenge_method', { code_challenge_method: undefined }, 'invalid_request'],
    ['code_challenge_method=plain', { code_challenge_method: 'plain' }, 'invalid_request'],
    ['a short code_challenge', { code_challenge: 'abc' }, 'invalid_request'],
    ['a code_challenge with bad characters', { code_challenge: `${challenge.slice(0, 42)}=` }, 'invalid_request'],
    ['no response_type', { response_type: undefined }, 'invalid_request'],
    ['response_type=token', { response_type: 'token' }, 'unsupported_response_type'],
    ['an unknown scope', { scope: 'read admin' }, 'invalid_scope'],
  ])('redirects %s back with error=%s, state and iss', async (_what, change, error) => {
    const res = await get({ ...valid(), ...change });
    expect(res.statusCode).toBe(302);
    const location = new URL(res.headers.location as string);
    expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
    expect(location.searchParams.get('error')).toBe(error);
    expect(location.searchParams.get('error_description')).toBeTruthy();
    expect(location.searchParams.get('state')).toBe('st-123');
    expect(location.searchParams.get('iss')).toBe('http://127.0.0.1:8080');
  });

  it('redirects a scope the client may not ask for as invalid_scope', async () => {
    const res = await get({ ...valid(), client_id: accounts.readOnly.clientId, scope: 'stream' });
    expect(new URL(res.headers.location as string).searchParams.get('error')).toBe('invalid_scope');
  });

  it('redirects a repeated parameter as invalid_request', async () => {
    const res = await server.app.inject({ method: 'GET', url: `${authorizeUrl(valid())}&state=again` });
    expect(new URL(res.headers.location as string).searchParams.get('error')).toBe('invalid_request');
  });

  it('redirects deny with error=access_denied, state and iss', async () => {
    const { hidden, cookie } = await openSignIn(server, valid());
    const res = await postForm(server, { ...hidden, username: '', password: '', decision: 'deny' }, cookie);
    expect(res.statusCode).toBe(302);
    const location = new URL(res.headers.location as string);
    expect(location.searchParams.get('error')).toBe('access_denied');
    expect(location.searchParams.get('state')).toBe('st-123');
    expect(location.searchParams.get('iss')).toBe('http://127.0.0.1:8080');
    expect(location.searchParams.get('code')).toBeNull();
  });

  it('redirects allow with a code, state and iss, and keeps the redirect URI exact', async () => {
    const { code, location } = await signIn(server, { clientId: accounts.client.clientId, username: accounts.user.username, state: 'abc' });
    expect(code).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
    expect(location.searchParams.get('state')).toBe('abc');
    expect(location.searchParams.get('iss')).toBe('http://127.0.0.1:8080');
  });

  it('re-renders a wrong password with a message (200), keeping the username', async () => {
    const { hidden, cookie } = await openSignIn(server, valid());
    const res = await postForm(server, { ...hidden, username: accounts.user.username, password: 'wrong password', decision: 'allow' }, cookie);
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('role="alert"');
    expect(res.body).toContain('The username or password is not correct.');
    expect(res.body).toContain(`value="${accounts.user.username}"`);
  });

  it('refuses a post without the CSRF cookie, or with an edited flow, without redirecting', async () => {
    const { hidden, cookie } = await openSignIn(server, valid());
    const noCookie = await postForm(server, { ...hidden, username: accounts.user.username, password: 'x', decision: 'allow' }, '');
    expect(noCookie.statusCode).toBe(400);
    expect(noCookie.headers.location).toBeUndefined();
    const edited = await postForm(server, { ...hidden, scope: 'read', username: accounts.user.username, password: 'x', decision: 'allow' }, cookie);
    expect(edited.statusCode).toBe(400);
    const otherCookie = await postForm(server, { ...hidden, username: accounts.user.username, password: 'x', decision: 'allow' }, 'maqam_csrf=AAAAAAAAAAAAAAAAAAAAAAAA');
    expect(otherCookie.statusCode).toBe(400);
  });

  // Regression (issue 8, item 14): the same sign-in form posted twice yielded two codes.
  it('yields one code per sign-in form, however often and however concurrently it is posted', async () => {
    const { user } = await seedAccounts(server);
    const { hidden, cookie } = await openSignIn(server, valid());
    const fields = { ...hidden, username: user.username, password: 'صوت الموسيقى 123', decision: 'allow' };
    const first = await postForm(server, fields, cookie);
    expect(first.statusCode).toBe(302);
    expect(new URL(first.headers.location as string).searchParams.get('code')).toBeTruthy();
    const again = await postForm(server, fields, cookie);
    expect(again.statusCode).toBe(400);
    expect(again.headers.location).toBeUndefined();
    expect(again.body).toContain('already used');

    const fresh = await openSignIn(server, valid());
    // Five at once from an address of their own: more would meet the attempt limits, which count attempts before checking them.
    const answers = await Promise.all(Array.from({ length: 5 }, () => postForm(server, { ...fields, csrf_token: fresh.hidden.csrf_token! }, fresh.cookie, '10.7.0.1')));
    expect(answers.map((res) => res.statusCode).sort()).toEqual([302, 400, 400, 400, 400]);
  });

  it('limits failed sign-ins per username: the sixth attempt is refused even with the right password', async () => {
    const { user } = await seedAccounts(server);
    const { hidden, cookie } = await openSignIn(server, valid());
    for (let i = 0; i < 5; i++) {
      const res = await postForm(server, { ...hidden, username: user.username, password: `wrong-${i}`, decision: 'allow' }, cookie);
      expect(res.statusCode).toBe(200);
    }
    const limited = await postForm(server, { ...hidden, username: user.username, password: 'صوت الموسيقى 123', decision: 'allow' }, cookie);
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['retry-after']).toBe('900');
    expect(limited.body).toContain('Too many failed attempts');
  });
});
