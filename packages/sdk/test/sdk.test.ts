import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import { createClientsService, createUsersService } from '@maqam/server';
import { AuthenticationError, InvalidRequestError, MaqamClient, memoryTokens, NetworkError, NotFoundError, RateLimitError, ServiceUnavailableError, SignInRequiredError, type Tokens } from '@maqam/sdk';
import { signInWithLoopback } from '@maqam/sdk/node';
import { dialects } from '../../server/test/dialects.ts';
import { RELATED_COUNT } from '../../server/test/fixtures.ts';
import { freePort, listenOnFreePort, startTestServer, type TestServer } from '../../server/test/harness.ts';
import { readForm } from '../../server/test/oauth/oauth-helpers.ts';

/** The real server, listening, with a user and a client whose redirect URI is a page that answers. */
async function realServer(env: Record<string, string> = {}) {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const server = await startTestServer(dialects[0]!, { MAQAM_PUBLIC_URL: baseUrl, ...env });
  await server.app.listen({ port, host: '127.0.0.1' });
  const redirectUri = 'http://127.0.0.1:9/callback';
  const loopbackRedirectUri = `http://127.0.0.1:${await freePort()}/callback`;
  await createUsersService(server.storage.db).create('layla', 'sdk password 1');
  const client = await createClientsService(server.storage.db).create({ name: 'SDK tests', redirectUris: [redirectUri, loopbackRedirectUri], scopes: ['read', 'stream'] });
  return { server, baseUrl, redirectUri, loopbackRedirectUri, clientId: client.clientId };
}

/** A fetch that counts requests by path, around the global fetch. */
function countingFetch() {
  const counts = new Map<string, number>();
  const fetchFn = (input: string, init?: RequestInit) => {
    const path = new URL(input).pathname;
    counts.set(path, (counts.get(path) ?? 0) + 1);
    return fetch(input, init);
  };
  return { fetchFn, count: (path: string) => counts.get(path) ?? 0 };
}

/** Signs in as a browser would: follows the authorization URL, posts the form, returns the redirect. */
async function signInThroughPage(maqam: MaqamClient): Promise<string> {
  return signInAt(await maqam.auth.createAuthorizationUrl());
}

async function signInAt(authorizationUrl: string): Promise<string> {
  const page = await fetch(authorizationUrl);
  const { hidden, cookie } = readForm(await page.text(), page.headers.get('set-cookie') ?? undefined);
  const consent = await fetch(page.url.split('?')[0]!, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
    body: new URLSearchParams({ ...hidden, username: 'layla', password: 'sdk password 1', decision: 'allow' }),
  });
  return consent.headers.get('location')!;
}

describe('the SDK with an API key', () => {
  let server: TestServer;
  let baseUrl: string;
  beforeAll(async () => {
    ({ server, baseUrl } = await realServer());
  });
  afterAll(async () => server?.close());

  it('splits 250 ids into chunks of 100 and merges them in request order', async () => {
    const { fetchFn, count } = countingFetch();
    const maqam = new MaqamClient({ baseUrl, apiKey: server.apiKey, fetch: fetchFn, locale: 'en' });
    const ids = Array.from({ length: 250 }, (_, i) => (i === 137 ? 'song-ar' : `missing-${i}`));
    const results = await maqam.songs.batchGet([...ids, 'song-ar']);
    expect(count('/v1/music/songs:batchGet')).toBe(3);
    expect([...results.keys()]).toEqual(ids);
    expect(results.get('song-ar')?.song?.title?.value).toBe('Tamally Maak');
    expect(results.get('missing-0')?.error?.code).toBe('ERROR_CODE_NOT_FOUND');
  });

  it('pages through every related artist, and lists one page', async () => {
    const maqam = new MaqamClient({ baseUrl, apiKey: server.apiKey });
    const seen: string[] = [];
    for await (const artist of maqam.artists.related('artist-ar', { pageSize: 7 })) seen.push(artist.id.value);
    expect(seen).toHaveLength(RELATED_COUNT);
    expect(new Set(seen).size).toBe(RELATED_COUNT);
    const page = await maqam.artists.listRelated('artist-ar', { pageSize: 2, locale: 'ar' });
    expect(page.artists.map((a) => a.name.value)).toEqual(['فنان 1', 'فنان 2']);
    expect(page.nextPageToken).not.toBe('');
  });

  it('throws typed errors with code, status and requestId, and a non-enumerable response', async () => {
    const maqam = new MaqamClient({ baseUrl, apiKey: server.apiKey });
    const error = await maqam.artists.listRelated('nobody').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error).toMatchObject({ code: 'ERROR_CODE_NOT_FOUND', status: 404, requestId: expect.any(String) });
    expect(Object.keys(error as object)).not.toContain('response');
    expect((error as NotFoundError).response?.status).toBe(404);
    const anonymous = new MaqamClient({ baseUrl });
    await expect(anonymous.songs.batchGet(['song-ar'])).rejects.toBeInstanceOf(AuthenticationError);
  });

  it('fails a batch at its first failed chunk, cancelling the chunks in flight and sending no more', async () => {
    let sent = 0;
    const inFlightSawAbort: boolean[] = [];
    const failSecond = async (input: string, init?: RequestInit) => {
      if (++sent === 2) return new Response(JSON.stringify({ code: 'ERROR_CODE_INVALID_REQUEST', message: 'refused' }), { status: 400 });
      await new Promise((r) => setTimeout(r, 100)); // still in flight when the second chunk fails
      inFlightSawAbort.push(init?.signal?.aborted === true);
      return fetch(input, init);
    };
    const maqam = new MaqamClient({ baseUrl, apiKey: server.apiKey, fetch: failSecond, batchConcurrency: 2 });
    const ids = Array.from({ length: 1000 }, (_, i) => `song-${i}`);
    await expect(maqam.songs.batchGet(ids)).rejects.toBeInstanceOf(InvalidRequestError);
    await new Promise((r) => setTimeout(r, 200));
    expect(sent).toBe(2); // of 10 chunks
    expect(inFlightSawAbort).toEqual([true]);
  });

  it('asserts its arguments', async () => {
    expect(() => new MaqamClient({ baseUrl: 'ftp://x' })).toThrow(TypeError);
    const maqam = new MaqamClient({ baseUrl, apiKey: server.apiKey });
    await expect(maqam.songs.batchGet([''])).rejects.toThrow(TypeError);
  });
});

describe('the SDK signed in with OAuth (MAQAM_ACCESS_TOKEN_TTL=1)', () => {
  let env: Awaited<ReturnType<typeof realServer>>;
  beforeAll(async () => {
    env = await realServer({ MAQAM_ACCESS_TOKEN_TTL: '1' });
  });
  afterAll(async () => env?.server.close());

  const client = (extra: { fetch?: (input: string, init?: RequestInit) => Promise<Response>; onTokens?: (t: Tokens | null) => void; onSignedOut?: (e: SignInRequiredError) => void } = {}) => {
    const storage = memoryTokens();
    const maqam = new MaqamClient({
      baseUrl: env.baseUrl,
      ...(extra.fetch ? { fetch: extra.fetch } : {}),
      auth: { clientId: env.clientId, redirectUri: env.redirectUri, storage, refreshAheadMs: 0, ...(extra.onTokens ? { onTokens: extra.onTokens } : {}), ...(extra.onSignedOut ? { onSignedOut: extra.onSignedOut } : {}) },
    });
    return { maqam, storage };
  };

  it('signs in with PKCE, checks state and iss, and reports tokens', async () => {
    const seen: (Tokens | null)[] = [];
    const { maqam } = client({ onTokens: (t) => seen.push(t) });
    const tokens = await maqam.auth.handleRedirect(await signInThroughPage(maqam));
    expect(tokens).toMatchObject({ accessToken: expect.stringMatching(/^mat_/), refreshToken: expect.stringMatching(/^mrt_/), scope: 'read stream' });
    expect(seen).toEqual([tokens]);
    expect((await maqam.auth.tokenInfo()).client_id).toBe(env.clientId);
  });

  it('refuses a redirect with another state or iss', async () => {
    const { maqam } = client();
    const redirect = new URL(await signInThroughPage(maqam));
    const wrongIss = new URL(redirect);
    wrongIss.searchParams.set('iss', 'https://evil.example');
    await expect(maqam.auth.handleRedirect(wrongIss)).rejects.toThrow(/RFC 9207/);
    const other = client().maqam;
    await other.auth.createAuthorizationUrl();
    await expect(other.auth.handleRedirect(redirect)).rejects.toThrow(/state mismatch/);
  });

  it('makes exactly one refresh request for 50 concurrent calls with an expired token', async () => {
    const { fetchFn, count } = countingFetch();
    const { maqam } = client({ fetch: fetchFn });
    await maqam.auth.handleRedirect(await signInThroughPage(maqam));
    await new Promise((resolve) => setTimeout(resolve, 1200)); // the access token lives 1 s
    const answers = await Promise.all(Array.from({ length: 50 }, () => maqam.artists.listRelated('artist-ar', { pageSize: 1 })));
    expect(answers).toHaveLength(50);
    expect(count('/v1/auth/token/refresh')).toBe(1);
  });

  it('refreshes and retries once when the server rejects a token the client thought fresh', async () => {
    const { fetchFn, count } = countingFetch();
    const { maqam, storage } = client({ fetch: fetchFn });
    await maqam.auth.handleRedirect(await signInThroughPage(maqam));
    // Make the client believe its expired token is good for an hour: the server's 401 must drive the refresh.
    await new Promise((resolve) => setTimeout(resolve, 1200));
    const key = `maqam:tokens:${env.clientId}`;
    const stored = JSON.parse((await storage.get(key))!);
    await storage.set(key, JSON.stringify({ ...stored, expiresAt: Date.now() + 3_600_000 }));
    const page = await maqam.artists.listRelated('artist-ar', { pageSize: 1 });
    expect(page.artists).toHaveLength(1);
    expect(count('/v1/auth/token/refresh')).toBe(1);
  });

  it('surfaces refresh-token reuse as SignInRequiredError, calls onSignedOut once, and does not loop', async () => {
    const signedOut: SignInRequiredError[] = [];
    const { fetchFn, count } = countingFetch();
    const { maqam } = client({ fetch: fetchFn, onSignedOut: (e) => signedOut.push(e) });
    const tokens = await maqam.auth.handleRedirect(await signInThroughPage(maqam));
    // Someone else spends the refresh token first.
    const spent = await fetch(`${env.baseUrl}/v1/auth/token/refresh`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ refresh_token: tokens.refreshToken, client_id: env.clientId }),
    });
    expect(spent.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1200));
    await expect(maqam.artists.listRelated('artist-ar')).rejects.toBeInstanceOf(SignInRequiredError);
    expect(signedOut).toHaveLength(1);
    expect(count('/v1/auth/token/refresh')).toBe(1);
    expect(await maqam.auth.tokens()).toBeNull();
    await expect(maqam.artists.listRelated('artist-ar')).rejects.toBeInstanceOf(SignInRequiredError);
    expect(count('/v1/auth/token/refresh')).toBe(1);
  });

  it('recovers from a refresh that got no answer: the next call refreshes again, no wait, no sign-out', async () => {
    let refreshes = 0;
    const flaky = (input: string, init?: RequestInit) => {
      if (new URL(input).pathname === '/v1/auth/token/refresh' && ++refreshes === 1) return Promise.reject(new TypeError('fetch failed'));
      return fetch(input, init);
    };
    const signedOut: SignInRequiredError[] = [];
    const { maqam } = client({ fetch: flaky, onSignedOut: (e) => signedOut.push(e) });
    await maqam.auth.handleRedirect(await signInThroughPage(maqam));
    await new Promise((resolve) => setTimeout(resolve, 1200));
    await expect(maqam.artists.listRelated('artist-ar', { pageSize: 1 })).rejects.toBeInstanceOf(NetworkError);
    const started = Date.now();
    await expect(maqam.artists.listRelated('artist-ar', { pageSize: 1 })).resolves.toMatchObject({ artists: [expect.any(Object)] });
    expect(Date.now() - started).toBeLessThan(2000);
    expect(refreshes).toBe(2);
    expect(signedOut).toEqual([]);
  });

  it('shares tokens with the other tabs over BroadcastChannel, whatever their storage', async () => {
    const options = (storage: ReturnType<typeof memoryTokens>, seen: (Tokens | null)[]) => ({
      baseUrl: env.baseUrl,
      auth: { clientId: env.clientId, redirectUri: env.redirectUri, storage, shareAcrossTabs: true, storageKey: 'tabs', onTokens: (t: Tokens | null) => seen.push(t) },
    });
    const seenA: (Tokens | null)[] = [];
    const seenB: (Tokens | null)[] = [];
    const tabA = new MaqamClient(options(memoryTokens(), seenA));
    const tabB = new MaqamClient(options(memoryTokens(), seenB));
    const tokens = await tabA.auth.handleRedirect(await signInThroughPage(tabA));
    await expect.poll(() => tabB.auth.tokens()).toEqual(tokens);
    expect((await tabB.auth.tokenInfo()).client_id).toBe(env.clientId);
    await tabB.auth.signOut();
    await expect.poll(() => tabA.auth.tokens()).toBeNull();
    expect(seenA.at(-1)).toBeNull();
    expect(seenB[0]).toEqual(tokens);
  });

  it('tells every tab of a change even when they share one storage', async () => {
    const shared = memoryTokens();
    const seen: (Tokens | null)[] = [];
    const auth = { clientId: env.clientId, redirectUri: env.redirectUri, storage: shared, shareAcrossTabs: true, storageKey: 'shared' };
    const tabA = new MaqamClient({ baseUrl: env.baseUrl, auth });
    const tabB = new MaqamClient({ baseUrl: env.baseUrl, auth: { ...auth, onTokens: (t: Tokens | null) => seen.push(t) } });
    const tokens = await tabA.auth.handleRedirect(await signInThroughPage(tabA));
    await expect.poll(() => seen).toEqual([tokens]);
    await tabA.auth.signOut();
    await expect.poll(() => seen).toEqual([tokens, null]);
    expect(await tabB.auth.tokens()).toBeNull();
  });

  it('signs a command-line user in through a loopback redirect (RFC 8252)', async () => {
    const storage = memoryTokens();
    const maqam = new MaqamClient({ baseUrl: env.baseUrl, auth: { clientId: env.clientId, redirectUri: env.loopbackRedirectUri, storage } });
    let pageAnswer = '';
    const tokens = await signInWithLoopback(maqam, {
      // The "browser": sign in on the page, then follow the redirect to the helper's listener.
      open: async (url) => {
        expect((await fetch(env.loopbackRedirectUri)).status).toBe(404); // a stray visit does not spend the sign-in
        const redirect = await signInAt(url);
        expect(redirect.startsWith(env.loopbackRedirectUri)).toBe(true);
        void fetch(redirect).then(async (r) => (pageAnswer = `${r.status} ${await r.text()}`));
      },
    });
    expect(tokens.accessToken).toMatch(/^mat_/);
    expect((await maqam.auth.tokenInfo()).client_id).toBe(env.clientId);
    await expect.poll(() => pageAnswer).toMatch(/^200 .*Signed in/s);
    // The listener is gone once it has done its work.
    await expect(fetch(env.loopbackRedirectUri)).rejects.toThrow();
  });

  it('refuses a loopback sign-in whose redirect URI is not a loopback address with a port', async () => {
    const maqam = new MaqamClient({ baseUrl: env.baseUrl, auth: { clientId: env.clientId, redirectUri: 'https://app.example/cb', storage: memoryTokens() } });
    await expect(signInWithLoopback(maqam)).rejects.toThrow(/loopback/);
  });

  it('signs out by revoking the session on the server', async () => {
    const { maqam } = client();
    const tokens = await maqam.auth.handleRedirect(await signInThroughPage(maqam));
    await maqam.auth.signOut();
    expect(await maqam.auth.tokens()).toBeNull();
    const res = await fetch(`${env.baseUrl}/v1/auth/tokeninfo`, { headers: { authorization: `Bearer ${tokens.accessToken}` } });
    expect(res.status).toBe(401);
  });
});

describe('retries', () => {
  let server: Server;
  let base: string;
  let calls: number[] = [];
  let retryAfter = '1';
  beforeAll(async () => {
    // A stand-in that rate-limits the first call: the SDK must wait as told, then succeed.
    server = createServer((req, res) => {
      calls.push(Date.now());
      if (calls.length === 1) {
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after': retryAfter });
        res.end(JSON.stringify({ code: 'ERROR_CODE_RATE_LIMITED', message: 'slow down', requestId: 'r1' }));
      } else {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ artists: [], nextPageToken: '' }));
      }
      req.resume();
    });
    base = `http://127.0.0.1:${await listenOnFreePort(server)}`;
  });
  afterAll(() => server?.close());

  it('retries a 429 after the Retry-After second', async () => {
    calls = [];
    retryAfter = '1';
    const maqam = new MaqamClient({ baseUrl: base, apiKey: 'mk_x' });
    await expect(maqam.artists.listRelated('a')).resolves.toEqual({ artists: [], nextPageToken: '' });
    expect(calls).toHaveLength(2);
    expect(calls[1]! - calls[0]!).toBeGreaterThanOrEqual(950);
    expect(calls[1]! - calls[0]!).toBeLessThan(3000);
  });

  it('stops retrying when the client-wide retry budget is spent', async () => {
    // A server that is down for good: every call answers 503 at once.
    const down = createServer((req, res) => {
      req.resume();
      res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '0' });
      res.end(JSON.stringify({ code: 'ERROR_CODE_UNAVAILABLE', message: 'down' }));
    });
    let requests = 0;
    down.on('request', () => requests++);
    const url = `http://127.0.0.1:${await listenOnFreePort(down)}`;
    try {
      const maqam = new MaqamClient({ baseUrl: url, apiKey: 'mk_x', maxRetries: 3, retryBudget: { maxTokens: 10, tokenRatio: 0.1 } });
      for (let call = 0; call < 20; call++) await expect(maqam.artists.listRelated('a')).rejects.toBeInstanceOf(ServiceUnavailableError);
      // Without a budget: 20 calls x 4 attempts = 80 requests. With it (every failure costs a token,
      // retries only above 5 of 10): the first call's 3 retries, then none.
      expect(requests).toBe(23);
    } finally {
      down.close();
    }
  });

  it('retries network failures of reads but never of a stream acquisition (billable)', async () => {
    let attempts = 0;
    const failing = async () => {
      attempts++;
      throw new TypeError('fetch failed');
    };
    const maqam = new MaqamClient({ baseUrl: 'http://127.0.0.1:9', apiKey: 'mk_x', fetch: failing, maxRetries: 2 });
    await expect(maqam.artists.listRelated('a')).rejects.toBeInstanceOf(NetworkError);
    expect(attempts).toBe(3);
    attempts = 0;
    const storage = memoryTokens();
    const now = Date.now();
    storage.set('maqam:tokens:c', JSON.stringify({ accessToken: 'mat_x', refreshToken: 'mrt_x', issuedAt: now, expiresAt: now + 3_600_000, scope: 'read stream' }));
    const signedIn = new MaqamClient({ baseUrl: 'http://127.0.0.1:9', fetch: failing, maxRetries: 2, auth: { clientId: 'c', redirectUri: 'http://127.0.0.1:9/cb', storage } });
    await expect(signedIn.streaming.acquireMusic('song-1')).rejects.toBeInstanceOf(NetworkError);
    expect(attempts).toBe(1);
  });

  it('cancels a call, waits included, with an AbortSignal', async () => {
    calls = [];
    retryAfter = '5';
    const maqam = new MaqamClient({ baseUrl: base, apiKey: 'mk_x' });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('user left')), 200);
    const started = Date.now();
    await expect(maqam.artists.listRelated('a', { signal: controller.signal })).rejects.toThrow('user left');
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('gives up with RateLimitError and retryAfter when the wait is longer than allowed', async () => {
    calls = [];
    retryAfter = '120';
    const maqam = new MaqamClient({ baseUrl: base, apiKey: 'mk_x', maxRetryDelayMs: 5000 });
    const error = await maqam.artists.listRelated('a').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).retryAfter).toBe(120);
    expect(calls).toHaveLength(1);
  });
});
