import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../dialects.ts';
import { startTestServer, type TestServer } from '../harness.ts';
import { catalogWith, PASSWORD, REDIRECT, refresh, seedAccounts, signIn, token, tokensFor } from './oauth-helpers.ts';

describe.each(dialects.map((d) => [d.name, d] as const))('tokens on %s', (_name, dialect) => {
  let server: TestServer;
  let accounts: Awaited<ReturnType<typeof seedAccounts>>;
  beforeAll(async () => {
    server = await startTestServer(dialect);
    accounts = await seedAccounts(server);
  });
  afterAll(async () => server?.close());

  const exchangeBody = (code: string, verifier: string, clientId = accounts.client.clientId) => ({
    grant_type: 'authorization_code', code, redirect_uri: REDIRECT, client_id: clientId, code_verifier: verifier,
  });

  it('exchanges a code for opaque tokens (JSON body), never cached', async () => {
    const { code, verifier } = await signIn(server, { clientId: accounts.client.clientId, username: accounts.user.username });
    const res = await token(server, exchangeBody(code, verifier));
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const body = res.json();
    expect(body).toEqual({ access_token: expect.stringMatching(/^mat_[A-Za-z0-9_-]{43}$/), refresh_token: expect.stringMatching(/^mrt_[A-Za-z0-9_-]{43}$/), token_type: 'Bearer', expires_in: 3600, scope: 'read stream' });
    expect((await catalogWith(server, body.access_token)).statusCode).toBe(200);
  });

  it('exchanges a code sent form-encoded (RFC 6749) and in camelCase', async () => {
    const one = await signIn(server, { clientId: accounts.client.clientId, username: accounts.user.username });
    expect((await token(server, exchangeBody(one.code, one.verifier), true)).statusCode).toBe(200);
    const two = await signIn(server, { clientId: accounts.client.clientId, username: accounts.user.username });
    const camel = { grantType: 'authorization_code', code: two.code, redirectUri: REDIRECT, clientId: accounts.client.clientId, codeVerifier: two.verifier };
    expect((await token(server, camel)).statusCode).toBe(200);
  });

  it.each([
    ['a verifier that does not match', (b: Record<string, string>) => ({ ...b, code_verifier: 'A'.repeat(43) }), 'invalid_grant', 'code_verifier'],
    ['another redirect_uri', (b: Record<string, string>) => ({ ...b, redirect_uri: 'http://127.0.0.1:9999/cb' }), 'invalid_grant', 'redirect_uri'],
    ['a malformed verifier', (b: Record<string, string>) => ({ ...b, code_verifier: 'short' }), 'invalid_request', 'code_verifier'],
    ['an unknown code', (b: Record<string, string>) => ({ ...b, code: 'nope' }), 'invalid_grant', 'code'],
    ['no code', (b: Record<string, string>) => ({ ...b, code: '' }), 'invalid_request', 'code'],
    ['an unknown grant_type', (b: Record<string, string>) => ({ ...b, grant_type: 'password' }), 'unsupported_grant_type', 'grant_type'],
  ])('answers %s with 400 %s naming %s', async (_what, change, error, field) => {
    const { code, verifier } = await signIn(server, { clientId: accounts.client.clientId, username: accounts.user.username });
    const res = await token(server, change(exchangeBody(code, verifier)));
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'ERROR_CODE_INVALID_REQUEST', error, error_description: expect.any(String), violations: [expect.objectContaining({ field })] });
  });

  it('answers a body with no grant_type with 400 invalid_request', async () => {
    const res = await token(server, {});
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'invalid_request', violations: [expect.objectContaining({ field: 'grant_type' })] });
  });

  it.each(['/v1/auth/token', '/v1/auth/token/refresh', '/v1/auth/token/revoke'])('answers a body that is not JSON at %s with OAuth members, and only there', async (url) => {
    const res = await server.app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json' }, payload: '{"grant_type":' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'ERROR_CODE_INVALID_REQUEST', error: 'invalid_request', error_description: expect.any(String) });
    const catalog = await server.app.inject({ method: 'POST', url: '/v1/music/songs:batchGet', headers: { 'content-type': 'application/json', 'x-api-key': server.apiKey }, payload: '{"songIdList":' });
    expect(catalog.statusCode).toBe(400);
    expect(catalog.json().error).toBeUndefined();
  });

  it('answers an unknown client with 401 invalid_client', async () => {
    const { code, verifier } = await signIn(server, { clientId: accounts.client.clientId, username: accounts.user.username });
    const res = await token(server, exchangeBody(code, verifier, 'mc_unknown'));
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ code: 'ERROR_CODE_UNAUTHENTICATED', error: 'invalid_client' });
  });

  it('refuses a replayed code and revokes what the code issued', async () => {
    const { code, verifier } = await signIn(server, { clientId: accounts.client.clientId, username: accounts.user.username });
    const first = await token(server, exchangeBody(code, verifier));
    expect(first.statusCode).toBe(200);
    const replay = await token(server, exchangeBody(code, verifier));
    expect(replay.statusCode).toBe(400);
    expect(replay.json().error).toBe('invalid_grant');
    expect((await catalogWith(server, first.json().access_token)).statusCode).toBe(401);
    expect((await refresh(server, { refresh_token: first.json().refresh_token, client_id: accounts.client.clientId })).statusCode).toBe(401);
  });

  // Regression (issue 8, item 13): a failed verifier check spent the code, so whoever intercepted it could make the real exchange fail.
  it('does not spend a code on a wrong verifier, client or redirect_uri: the right exchange still works after four', async () => {
    const { code, verifier } = await signIn(server, { clientId: accounts.client.clientId, username: accounts.user.username });
    const wrong = [
      { ...exchangeBody(code, verifier), code_verifier: 'B'.repeat(43) },
      { ...exchangeBody(code, verifier), redirect_uri: 'http://127.0.0.1:9999/cb' },
      exchangeBody(code, verifier, accounts.readOnly.clientId),
      { ...exchangeBody(code, verifier), code_verifier: 'C'.repeat(43) },
    ];
    for (const body of wrong) expect((await token(server, body)).json()).toMatchObject({ error: 'invalid_grant' });
    const right = await token(server, exchangeBody(code, verifier));
    expect(right.statusCode, right.body).toBe(200);
    expect((await catalogWith(server, right.json().access_token)).statusCode).toBe(200);
  });

  it('spends a code on its fifth failed check, and issues nothing for it afterwards', async () => {
    const { code, verifier } = await signIn(server, { clientId: accounts.client.clientId, username: accounts.user.username });
    for (let i = 0; i < 5; i++) {
      const res = await token(server, { ...exchangeBody(code, verifier), code_verifier: `${'D'.repeat(42)}${i}` });
      expect(res.json()).toMatchObject({ error: 'invalid_grant', violations: [expect.objectContaining({ field: 'code_verifier' })] });
    }
    const late = await token(server, exchangeBody(code, verifier));
    expect(late.statusCode).toBe(400);
    expect(late.json()).toMatchObject({ error: 'invalid_grant', error_description: expect.stringContaining('too many checks') });
  });

  it('counts concurrent failed checks exactly: ten at once spend the code', async () => {
    const { code, verifier } = await signIn(server, { clientId: accounts.client.clientId, username: accounts.user.username });
    await Promise.all(Array.from({ length: 10 }, (_, i) => token(server, { ...exchangeBody(code, verifier), code_verifier: `${'E'.repeat(42)}${i}` })));
    expect((await token(server, exchangeBody(code, verifier))).statusCode).toBe(400);
  });

  it('lets exactly one of 10 concurrent exchanges of a code win, with no 5xx', async () => {
    const { code, verifier } = await signIn(server, { clientId: accounts.client.clientId, username: accounts.user.username });
    const answers = await Promise.all(Array.from({ length: 10 }, () => token(server, exchangeBody(code, verifier))));
    const statuses = answers.map((a) => a.statusCode).sort();
    expect(statuses).toEqual([200, ...Array(9).fill(400)]);
  });

  it('rotates on every refresh and refuses a spent token, revoking its family only', async () => {
    const first = await tokensFor(server, accounts.client.clientId, accounts.user.username);
    const other = await tokensFor(server, accounts.client.clientId, accounts.user.username); // the same user's other sign-in
    const rotated = await refresh(server, { refresh_token: first.refresh_token, client_id: accounts.client.clientId });
    expect(rotated.statusCode).toBe(200);
    expect(rotated.headers['cache-control']).toBe('no-store');
    const next = rotated.json();
    expect(next.refresh_token).not.toBe(first.refresh_token);
    expect(next).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'read stream' });
    expect((await catalogWith(server, next.access_token)).statusCode).toBe(200);

    const reuse = await refresh(server, { refresh_token: first.refresh_token, client_id: accounts.client.clientId });
    expect(reuse.statusCode).toBe(401);
    expect(reuse.json()).toMatchObject({ code: 'ERROR_CODE_UNAUTHENTICATED', error: 'invalid_grant' });
    expect((await catalogWith(server, next.access_token)).statusCode).toBe(401);
    expect((await refresh(server, { refresh_token: next.refresh_token, client_id: accounts.client.clientId })).statusCode).toBe(401);
    // The other sign-in keeps working.
    expect((await catalogWith(server, other.access_token)).statusCode).toBe(200);
    expect((await refresh(server, { refresh_token: other.refresh_token, client_id: accounts.client.clientId })).statusCode).toBe(200);
  });

  it('lets exactly one of 20 concurrent refreshes of a token win, with no 5xx', async () => {
    const set = await tokensFor(server, accounts.client.clientId, accounts.user.username);
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => refresh(server, { refresh_token: set.refresh_token, client_id: accounts.client.clientId })),
    );
    expect(answers.map((a) => a.statusCode).sort()).toEqual([200, ...Array(19).fill(401)]);
  });

  it('refreshes through /v1/auth/token with grant_type=refresh_token, form-encoded, and camelCase on /refresh', async () => {
    const set = await tokensFor(server, accounts.client.clientId, accounts.user.username);
    const viaToken = await token(server, { grant_type: 'refresh_token', refresh_token: set.refresh_token, client_id: accounts.client.clientId }, true);
    expect(viaToken.statusCode).toBe(200);
    const camel = await server.app.inject({
      method: 'POST', url: '/v1/auth/token/refresh', headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ refreshToken: viaToken.json().refresh_token, clientId: accounts.client.clientId }),
    });
    expect(camel.statusCode).toBe(200);
  });

  it("refuses another client's refresh token as invalid_grant without spending it", async () => {
    const set = await tokensFor(server, accounts.client.clientId, accounts.user.username);
    const foreign = await refresh(server, { refresh_token: set.refresh_token, client_id: accounts.readOnly.clientId });
    expect(foreign.statusCode).toBe(400);
    expect(foreign.json().error).toBe('invalid_grant');
    expect((await refresh(server, { refresh_token: set.refresh_token, client_id: accounts.client.clientId })).statusCode).toBe(200);
  });

  it('answers an unknown refresh token with 401 invalid_grant', async () => {
    const res = await refresh(server, { refresh_token: 'mrt_unknown', client_id: accounts.client.clientId });
    expect(res.statusCode).toBe(401);
    expect(res.json().error).toBe('invalid_grant');
  });

  describe('revocation (RFC 7009)', () => {
    const revoke = (body: Record<string, string>, form = false) =>
      server.app.inject({
        method: 'POST', url: '/v1/auth/token/revoke',
        headers: { 'content-type': form ? 'application/x-www-form-urlencoded' : 'application/json' },
        payload: form ? new URLSearchParams(body).toString() : JSON.stringify(body),
      });

    it('revokes an access token alone, on the next request', async () => {
      const set = await tokensFor(server, accounts.client.clientId, accounts.user.username);
      const res = await revoke({ token: set.access_token, token_type_hint: 'access_token' });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({});
      expect((await catalogWith(server, set.access_token)).statusCode).toBe(401);
      expect((await refresh(server, { refresh_token: set.refresh_token, client_id: accounts.client.clientId })).statusCode).toBe(200);
    });

    it('revokes a refresh token with its whole family, whatever the hint says', async () => {
      const set = await tokensFor(server, accounts.client.clientId, accounts.user.username);
      expect((await revoke({ token: set.refresh_token, token_type_hint: 'access_token' }, true)).statusCode).toBe(200);
      expect((await catalogWith(server, set.access_token)).statusCode).toBe(401);
      expect((await refresh(server, { refresh_token: set.refresh_token, client_id: accounts.client.clientId })).statusCode).toBe(401);
    });

    it('answers 200 {} for unknown and already revoked tokens', async () => {
      expect((await revoke({ token: 'never-issued' })).json()).toEqual({});
      const set = await tokensFor(server, accounts.client.clientId, accounts.user.username);
      await revoke({ token: set.access_token });
      const again = await revoke({ token: set.access_token });
      expect(again.statusCode).toBe(200);
      expect(again.json()).toEqual({});
    });

    it('needs a token', async () => {
      const res = await revoke({});
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ error: 'invalid_request', violations: [expect.objectContaining({ field: 'token' })] });
    });
  });

  describe('bearer tokens on the catalog (contract section 2)', () => {
    it('refuses a token without the read scope with 403 insufficient_scope', async () => {
      const set = await tokensFor(server, accounts.streamOnly.clientId, accounts.user.username, 'stream');
      const res = await catalogWith(server, set.access_token);
      expect(res.statusCode).toBe(403);
      expect(res.headers['www-authenticate']).toBe('Bearer error="insufficient_scope", scope="read"');
      expect(res.json().code).toBe('ERROR_CODE_PERMISSION_DENIED');
    });

    it('gives an omitted scope the read scope', async () => {
      const set = await tokensFor(server, accounts.client.clientId, accounts.user.username, ' ');
      expect(set.scope).toBe('read');
    });
  });

  describe('TokenInfo', () => {
    it('describes a live token', async () => {
      const set = await tokensFor(server, accounts.client.clientId, accounts.user.username);
      const res = await server.app.inject({ method: 'GET', url: '/v1/auth/tokeninfo', headers: { authorization: `Bearer ${set.access_token}` } });
      expect(res.statusCode).toBe(200);
      const now = Math.floor(Date.now() / 1000);
      expect(res.json()).toEqual({
        active: true, scope: 'read stream', client_id: accounts.client.clientId, sub: accounts.user.id,
        iat: expect.any(Number), exp: expect.any(Number), expires_in: expect.any(Number), token_type: 'Bearer',
      });
      expect(Math.abs(res.json().iat - now)).toBeLessThanOrEqual(5);
      expect(res.json().exp - res.json().iat).toBe(3600);
    });

    it('answers an API key with 403 and an unknown token with 401', async () => {
      expect((await server.app.inject({ method: 'GET', url: '/v1/auth/tokeninfo', headers: { 'x-api-key': server.apiKey } })).statusCode).toBe(403);
      const unknown = await server.app.inject({ method: 'GET', url: '/v1/auth/tokeninfo', headers: { authorization: 'Bearer mat_nope' } });
      expect(unknown.statusCode).toBe(401);
      expect(unknown.headers['www-authenticate']).toBe('Bearer error="invalid_token"');
    });
  });

  it('publishes RFC 8414 metadata whose endpoints work', async () => {
    const meta = (await server.app.inject('/.well-known/oauth-authorization-server')).json();
    expect(meta).toMatchObject({
      issuer: 'http://127.0.0.1:8080',
      authorization_endpoint: 'http://127.0.0.1:8080/v1/auth/authorize',
      token_endpoint: 'http://127.0.0.1:8080/v1/auth/token',
      revocation_endpoint: 'http://127.0.0.1:8080/v1/auth/token/revoke',
      code_challenge_methods_supported: ['S256'],
      scopes_supported: ['read', 'stream', 'write', 'developer'],
      authorization_response_iss_parameter_supported: true,
    });
  });

  it('stores no raw token, code or password', async () => {
    const { code, verifier } = await signIn(server, { clientId: accounts.client.clientId, username: accounts.user.username });
    const set = (await token(server, exchangeBody(code, verifier))).json();
    const dump: string[] = [];
    for (const table of ['users', 'oauth_grants', 'oauth_codes', 'oauth_refresh_tokens', 'oauth_access_tokens', 'api_keys']) {
      dump.push(JSON.stringify(await server.storage.db.selectFrom(table as 'users').selectAll().execute()));
    }
    const text = dump.join('\n');
    for (const secret of [code, set.access_token, set.refresh_token, set.access_token.slice(4), PASSWORD, server.apiKey.split('_').slice(2).join('_')]) {
      expect(text).not.toContain(secret);
    }
  });
});

describe('short lifetimes (MAQAM_ACCESS_TOKEN_TTL=1, MAQAM_CODE_TTL=1)', () => {
  let server: TestServer;
  let accounts: Awaited<ReturnType<typeof seedAccounts>>;
  // The server's clock: moved past the lifetimes rather than waited out.
  let now = Date.now();
  beforeAll(async () => {
    server = await startTestServer(dialects[0]!, { MAQAM_ACCESS_TOKEN_TTL: '1', MAQAM_CODE_TTL: '1' }, { clock: () => now });
    accounts = await seedAccounts(server);
  });
  afterAll(async () => server?.close());

  it('expires access tokens (401 invalid_token) and codes (invalid_grant)', async () => {
    const set = await tokensFor(server, accounts.client.clientId, accounts.user.username);
    expect(set.expires_in).toBe(1);
    const { code, verifier } = await signIn(server, { clientId: accounts.client.clientId, username: accounts.user.username });
    now += 1000;
    const expired = await catalogWith(server, set.access_token);
    expect(expired.statusCode).toBe(401);
    expect(expired.headers['www-authenticate']).toBe('Bearer error="invalid_token"');
    const late = await token(server, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, client_id: accounts.client.clientId, code_verifier: verifier });
    expect(late.statusCode).toBe(400);
    expect(late.json().error).toBe('invalid_grant');
    // The refresh token outlives the access token: the client refreshes and carries on.
    const renewed = await token(server, { grant_type: 'refresh_token', refresh_token: set.refresh_token, client_id: accounts.client.clientId });
    expect(renewed.statusCode).toBe(200);
    expect((await catalogWith(server, renewed.json().access_token)).statusCode).toBe(200);
  });
});
