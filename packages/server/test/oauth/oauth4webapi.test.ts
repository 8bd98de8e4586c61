import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as oauth from 'oauth4webapi';
import { dialects } from '../dialects.ts';
import { freePort, startTestServer, type TestServer } from '../harness.ts';
import { PASSWORD, readForm, REDIRECT, seedAccounts } from './oauth-helpers.ts';

// Plain http on loopback is what a test has; oauth4webapi otherwise insists on https.
const insecure = { [oauth.allowInsecureRequests]: true };

/**
 * The whole flow driven by oauth4webapi, an independent, strict OAuth 2 client
 * (discovery, PKCE, iss validation, form-encoded token requests, RFC 7009),
 * against the server listening on a real port.
 */
describe.each(dialects.map((d) => [d.name, d] as const))('oauth4webapi against Maqam on %s', (_name, dialect) => {
  let server: TestServer;
  let issuer: URL;
  let accounts: Awaited<ReturnType<typeof seedAccounts>>;
  beforeAll(async () => {
    const port = await freePort();
    issuer = new URL(`http://127.0.0.1:${port}`);
    server = await startTestServer(dialect, { MAQAM_PUBLIC_URL: issuer.origin });
    await server.app.listen({ port, host: '127.0.0.1' });
    accounts = await seedAccounts(server);
  });
  afterAll(async () => server?.close());

  it('discovers, signs in with PKCE, exchanges, refreshes and revokes', async () => {
    const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }));
    expect(as.code_challenge_methods_supported).toEqual(['S256']);
    const client: oauth.Client = { client_id: accounts.client.clientId };
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();

    const authorize = new URL(as.authorization_endpoint!);
    authorize.search = new URLSearchParams({
      response_type: 'code', client_id: client.client_id, redirect_uri: REDIRECT, scope: 'read stream', state,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256',
    }).toString();
    const page = await fetch(authorize);
    expect(page.status).toBe(200);
    const { hidden, cookie } = readForm(await page.text(), page.headers.get('set-cookie') ?? undefined);
    const consent = await fetch(authorize.origin + authorize.pathname, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
      body: new URLSearchParams({ ...hidden, username: accounts.user.username, password: PASSWORD, decision: 'allow' }),
    });
    expect(consent.status).toBe(302);
    const callback = new URL(consent.headers.get('location')!);

    // Checks state and the RFC 9207 iss parameter against the discovered issuer.
    const params = oauth.validateAuthResponse(as, client, callback, state);
    const tokens = await oauth.processAuthorizationCodeResponse(
      as, client, await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, REDIRECT, verifier, insecure),
    );
    expect(tokens.token_type).toBe('bearer');
    expect(tokens.scope).toBe('read stream');
    const catalog = await fetch(`${issuer.origin}/v1/music/artists/artist-ar/related?page_size=1`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(catalog.status).toBe(200);

    const refreshed = await oauth.processRefreshTokenResponse(
      as, client, await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token!, insecure),
    );
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);

    await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, oauth.None(), refreshed.refresh_token!, insecure));
    const afterRevoke = await fetch(`${issuer.origin}/v1/music/artists/artist-ar/related`, { headers: { authorization: `Bearer ${refreshed.access_token}` } });
    expect(afterRevoke.status).toBe(401);
    await expect(
      oauth.processRefreshTokenResponse(as, client, await oauth.refreshTokenGrantRequest(as, client, oauth.None(), refreshed.refresh_token!, insecure)),
    ).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  it('rejects a callback whose iss is not the discovered issuer', async () => {
    const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }));
    const forged = new URL(`${REDIRECT}?code=abc&state=s&iss=${encodeURIComponent('https://evil.example')}`);
    expect(() => oauth.validateAuthResponse(as, { client_id: accounts.client.clientId }, forged, 's')).toThrow();
  });
});
