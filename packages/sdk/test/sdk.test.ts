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
async function realServer(env: Record<string, string> = {}, clock?: () => number) {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const server = await startTestServer(dialects[0]!, { MAQAM_PUBLIC_URL: baseUrl, ...env }, clock ? { clock } : {});
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
    let secondAnswered!: () => void;
    const answered = new Promise<void>((resolve) => (secondAnswered = resolve));
    /** The first chunk's signal, and its fetch settling (after which a client that went on would send the third). */
    let firstSignal: AbortSignal | undefined;
    let firstSettled: Promise<unknown> = Promise.resolve();
    const failSecond = (input: string, init?: RequestInit): Promise<Response> => {
      if (++sent === 2) {
        secondAnswered();
        return Promise.resolve(new Response(JSON.stringify({ code: 'ERROR_CODE_INVALID_REQUEST', message: 'refused' }), { status: 400 }));
      }
      firstSignal = init?.signal ?? undefined;
      // Held in flight until the second chunk has failed, then sent with the signal as the client left it.
      const response = answered.then(() => fetch(input, init));
      firstSettled = response.catch(() => {});
      return response;
    };
    const maqam = new MaqamClient({ baseUrl, apiKey: server.apiKey, fetch: failSecond, batchConcurrency: 2 });
    const ids = Array.from({ length: 1000 }, (_, i) => `song-${i}`);
    await expect(maqam.songs.batchGet(ids)).rejects.toBeInstanceOf(InvalidRequestError);
    expect(firstSignal?.aborted).toBe(true);
    await firstSettled;
    await new Promise(setImmediate); // what the client does once it settles has run
    expect(sent).toBe(2); // of 10 chunks
  });

  it('asserts its arguments', async () => {
    expect(() => new MaqamClient({ baseUrl: 'ftp://x' })).toThrow(TypeError);
    const maqam = new MaqamClient({ baseUrl, apiKey: server.apiKey });
    await expect(maqam.songs.batchGet([''])).rejects.toThrow(TypeError);
    await expect(maqam.songs.get('')).rejects.toThrow(TypeError);
    await expect(maqam.albums.listTracks('')).rejects.toThrow(TypeError);
  });
});

describe('the SDK on the whole catalog', () => {
  let server: TestServer;
  let baseUrl: string;
  let maqam: MaqamClient;
  beforeAll(async () => {
    ({ server, baseUrl } = await realServer());
    maqam = new MaqamClient({ baseUrl, apiKey: server.apiKey, locale: 'en' });
  });
  afterAll(async () => server?.close());

  it('gets a song, an album and an artist, typed, in the locale asked for', async () => {
    const song = await maqam.songs.get('song-ar');
    expect(song.title?.value).toBe('Tamally Maak');
    expect((await maqam.songs.get('song-ar', { locale: 'ar' })).title?.value).toBe('تملي معاك');
    const album = await maqam.albums.get(song.albumId!.value);
    expect([album.id.value, album.albumType, album.trackCount]).toEqual(['album-1', 'ALBUM_TYPE_ALBUM', 3]);
    const artist = await maqam.artists.get('artist-ar', { locale: 'ar' });
    expect([artist.name.value, artist.followerCount]).toEqual(['عمرو دياب', '12345678901234567']);
    await expect(maqam.songs.get('song-withdrawn')).rejects.toBeInstanceOf(NotFoundError);
    await expect(maqam.albums.get('nope')).rejects.toMatchObject({ code: 'ERROR_CODE_NOT_FOUND', status: 404 });
  });

  it('batch-gets albums and artists in chunks of 100, in request order', async () => {
    const { fetchFn, count } = countingFetch();
    const counted = new MaqamClient({ baseUrl, apiKey: server.apiKey, fetch: fetchFn });
    const ids = Array.from({ length: 150 }, (_, i) => (i === 120 ? 'album-1' : `missing-${i}`));
    const albums = await counted.albums.batchGet(ids);
    expect(count('/v1/music/albums:batchGet')).toBe(2);
    expect([...albums.keys()]).toEqual(ids);
    expect(albums.get('album-1')?.album?.title.originalValue).toBe('تملي معاك');
    expect(albums.get('missing-0')?.error?.code).toBe('ERROR_CODE_NOT_FOUND');
    const artists = await counted.artists.batchGet(['artist-en', 'nope', 'artist-en']);
    expect([...artists.keys()]).toEqual(['artist-en', 'nope']);
    expect(artists.get('artist-en')?.artist?.name.value).toBe('Maya Stone');
    expect(artists.get('nope')?.error?.code).toBe('ERROR_CODE_NOT_FOUND');
  });

  it("lists an album's tracks a page at a time and to the end", async () => {
    const page = await maqam.albums.listTracks('album-1', { pageSize: 2 });
    expect(page.items.map((s) => s.id.value)).toEqual(['song-ar', 'song-en']);
    expect(page.tracks).toEqual(page.items);
    expect(page.nextPageToken).not.toBe('');
    const all: string[] = [];
    for await (const song of maqam.albums.tracks('album-1', { pageSize: 1 })) all.push(song.id.value);
    expect(all).toEqual(['song-ar', 'song-en', 'song-fr']);
  });

  it("lists an artist's albums (filtered by type) and top tracks", async () => {
    const albums: string[] = [];
    for await (const album of maqam.artists.albums('artist-ar', { pageSize: 1 })) albums.push(album.id.value);
    expect(albums).toEqual(['album-1']);
    expect(await maqam.artists.listAlbums('artist-ar', { albumType: 'ALBUM_TYPE_SINGLE' })).toEqual({ items: [], albums: [], nextPageToken: '' });
    const top = await maqam.artists.listTopTracks('artist-en', { pageSize: 1 });
    expect(top.items.map((s) => s.id.value)).toEqual(['song-ar']);
    expect(top.nextPageToken).toBe('');
    // The spelling of earlier releases, deprecated: the same songs as a bare array.
    expect(await maqam.artists.topTracks('artist-en', { pageSize: 1 })).toEqual(top.items);
    await expect(maqam.artists.listTopTracks('artist-en', { pageSize: 51 })).rejects.toBeInstanceOf(InvalidRequestError);
  });

  it('searches a page at a time, and through every page', async () => {
    const page = await maqam.search('عمرو د', { types: ['artist'], pageSize: 1 });
    expect(page.items.map((r) => r.artist?.id.value)).toEqual(['artist-ar']);
    expect(page.results).toEqual(page.items);
    const all: string[] = [];
    for await (const result of maqam.searchAll('Amr Diab', { pageSize: 1 })) all.push(Object.keys(result)[0]!);
    expect(all[0]).toBe('artist');
    expect(all).toContain('song');
    await expect(maqam.search('  ')).rejects.toThrow(TypeError);
  });

  it('reads synced lyrics, and tells a song without lyrics by NotFoundError', async () => {
    const { language, lyrics, syncedLyrics } = await maqam.songs.lyrics('song-ar');
    expect(language).toBe('ar');
    expect(lyrics.lines).toHaveLength(4);
    expect(syncedLyrics?.lines[0]).toEqual({ text: 'ولو حتى بعيد عني', startTimeMs: '4500' });
    const error = await maqam.songs.lyrics('song-en').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotFoundError);
    expect((error as NotFoundError).message).toBe('The song "song-en" has no lyrics.');
  });
});

describe('the SDK signed in with OAuth (MAQAM_ACCESS_TOKEN_TTL=1)', () => {
  let env: Awaited<ReturnType<typeof realServer>>;
  // One clock for the server and the SDK, moved on instead of waiting for a token to expire.
  let now = Date.now();
  const clock = () => now;
  /** Past the access token's life (one second). */
  const expireAccessToken = () => {
    now += 1200;
  };
  beforeAll(async () => {
    env = await realServer({ MAQAM_ACCESS_TOKEN_TTL: '1' }, clock);
  });
  afterAll(async () => env?.server.close());

  const client = (extra: { fetch?: (input: string, init?: RequestInit) => Promise<Response>; onTokens?: (t: Tokens | null) => void; onSignedOut?: (e: SignInRequiredError) => void } = {}) => {
    const storage = memoryTokens();
    const maqam = new MaqamClient({
      baseUrl: env.baseUrl,
      ...(extra.fetch ? { fetch: extra.fetch } : {}),
      auth: { clientId: env.clientId, redirectUri: env.redirectUri, storage, refreshAheadMs: 0, now: clock, ...(extra.onTokens ? { onTokens: extra.onTokens } : {}), ...(extra.onSignedOut ? { onSignedOut: extra.onSignedOut } : {}) },
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
    expireAccessToken();
    const answers = await Promise.all(Array.from({ length: 50 }, () => maqam.artists.listRelated('artist-ar', { pageSize: 1 })));
    expect(answers).toHaveLength(50);
    expect(count('/v1/auth/token/refresh')).toBe(1);
  });

  it('refreshes and retries once when the server rejects a token the client thought fresh', async () => {
    const { fetchFn, count } = countingFetch();
    const { maqam, storage } = client({ fetch: fetchFn });
    await maqam.auth.handleRedirect(await signInThroughPage(maqam));
    // Make the client believe its expired token is good for an hour: the server's 401 must drive the refresh.
    expireAccessToken();
    const key = `maqam:tokens:${env.clientId}`;
    const stored = JSON.parse((await storage.get(key))!);
    await storage.set(key, JSON.stringify({ ...stored, expiresAt: now + 3_600_000 }));
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
    expireAccessToken();
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
    expireAccessToken();
    await expect(maqam.artists.listRelated('artist-ar', { pageSize: 1 })).rejects.toBeInstanceOf(NetworkError);
    // At once: one more refresh and the call, no retry and no sign-out (counted below).
    await expect(maqam.artists.listRelated('artist-ar', { pageSize: 1 })).resolves.toMatchObject({ artists: [expect.any(Object)] });
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
    await expect(maqam.artists.listRelated('a')).resolves.toEqual({ items: [], artists: [], nextPageToken: '' });
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
    // A wait of 25 s (under maxRetryDelayMs): one the signal did not end would outlast the test's timeout.
    retryAfter = '25';
    const maqam = new MaqamClient({ baseUrl: base, apiKey: 'mk_x' });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('user left')), 200);
    await expect(maqam.artists.listRelated('a', { signal: controller.signal })).rejects.toThrow('user left');
    expect(calls).toHaveLength(1);
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
