// The SDK in a page of another origin, in Chromium: a trusted origin calls
// the API and reads its headers; an app whose client is registered signs in
// with PKCE, refreshes and plays an HLS stream through hls.js, all across
// origins; an untrusted origin is refused by the browser, and the SDK's error
// says CORS is the likely cause.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { spawnSync } from 'node:child_process';
import { build } from 'esbuild';
import { addMedia, createClientsService } from '@maqam/server';
import type { Browser } from 'playwright-core';
import { dialects } from '../../server/test/dialects.ts';
import { freePort, listenOnFreePort, startTestServer, type TestServer } from '../../server/test/harness.ts';
import { PASSWORD, seedAccounts } from '../../server/test/oauth/oauth-helpers.ts';
import { browserAvailable, ffmpegAvailable, launchChromium } from '../../server/test/system-tools.ts';

const haveBrowser = browserAvailable('the SDK cross-origin browser test');
const haveFfmpeg = haveBrowser && ffmpegAvailable('the cross-origin HLS playback test');

const HLS_JS = readFileSync(createRequire(import.meta.url).resolve('hls.js/dist/hls.mjs'), 'utf8');

/** A page server on its own loopback port: the SDK bundle at /sdk.js, hls.js at /hls.js, and an empty page at every other path. */
async function pageServer(sdk: string): Promise<{ origin: string; server: Server }> {
  const server = createServer((request, response) => {
    if (request.url === '/sdk.js' || request.url === '/hls.js') {
      response.writeHead(200, { 'content-type': 'text/javascript' }).end(request.url === '/sdk.js' ? sdk : HLS_JS);
      return;
    }
    response.writeHead(200, { 'content-type': 'text/html' }).end(
      '<!doctype html><title>app</title><audio></audio><script type="module">import * as sdk from "/sdk.js"; import Hls from "/hls.js"; window.Hls = Hls; window.sdk = sdk;</script>',
    );
  });
  const port = await listenOnFreePort(server);
  return { origin: `http://127.0.0.1:${port}`, server };
}

describe.skipIf(!haveBrowser)('the SDK from a page of another origin, in Chromium', () => {
  let api: TestServer;
  let apiBase: string;
  let trusted: { origin: string; server: Server };
  let untrusted: { origin: string; server: Server };
  /** The origin of a registered client's redirect URI: trusted because of it, with no setting. */
  let app: { origin: string; server: Server };
  let clientId: string;
  let username: string;
  let mediaDir: string;
  let browser: Browser;
  beforeAll(async () => {
    const bundle = await build({ entryPoints: [join(import.meta.dirname, '../src/index.ts')], bundle: true, format: 'esm', write: false, platform: 'browser' });
    const sdk = bundle.outputFiles[0]!.text;
    trusted = await pageServer(sdk);
    untrusted = await pageServer(sdk);
    app = await pageServer(sdk);
    const port = await freePort();
    apiBase = `http://127.0.0.1:${port}`;
    mediaDir = mkdtempSync(join(tmpdir(), 'maqam-cors-media-'));
    api = await startTestServer(dialects[0]!, { MAQAM_PUBLIC_URL: apiBase, MAQAM_CORS_ORIGINS: trusted.origin, MAQAM_RATE_LIMIT: '100', MAQAM_MEDIA_DIR: mediaDir });
    await api.app.listen({ port, host: '127.0.0.1' });
    username = (await seedAccounts(api)).user.username;
    clientId = (await createClientsService(api.storage.db).create({ name: 'Cross-origin app', redirectUris: [`${app.origin}/callback`], scopes: ['read', 'stream'] })).clientId;
    if (haveFfmpeg) {
      const wav = join(mediaDir, 'tone.wav');
      const made = spawnSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', '-f', 'lavfi', '-i', 'sine=frequency=440:duration=8', '-ac', '2', wav]);
      if (made.status !== 0) throw new Error(made.stderr.toString());
      await addMedia(api.storage.db, mediaDir, 'song-ar', wav);
    }
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await api?.close();
    trusted?.server.close();
    untrusted?.server.close();
    app?.server.close();
    if (mediaDir) rmSync(mediaDir, { recursive: true, force: true });
  });

  const inPage = async (origin: string) => {
    const page = await browser.newPage();
    await page.goto(`${origin}/`);
    await page.waitForFunction(() => 'sdk' in window);
    return page;
  };

  it('calls the API from a trusted origin and reads x-request-id and the rate-limit headers', async () => {
    const page = await inPage(trusted.origin);
    const answer = await page.evaluate(async ({ base, key }) => {
      const { MaqamClient } = (window as unknown as { sdk: typeof import('../src/index.ts') }).sdk;
      const seen: Record<string, string | null> = {};
      const maqam = new MaqamClient({
        baseUrl: base, apiKey: key, locale: 'en',
        fetch: async (input, init) => {
          const response = await fetch(input, init);
          for (const name of ['x-request-id', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'content-language']) seen[name] = response.headers.get(name);
          return response;
        },
      });
      const songs = await maqam.songs.batchGet(['song-ar']);
      return { title: songs.get('song-ar')?.song?.title?.value, seen };
    }, { base: apiBase, key: api.apiKey });
    expect(answer.title).toBe('Tamally Maak');
    expect(answer.seen['x-request-id']).toMatch(/\S/);
    expect(answer.seen['x-ratelimit-limit']).toBe('100');
    expect(answer.seen['x-ratelimit-remaining']).toMatch(/^\d+$/);
    expect(answer.seen['content-language']).toBe('en, ar');
    await page.close();
  });

  it.skipIf(!haveFfmpeg)('signs in with PKCE from a registered client\'s origin, refreshes, and plays an HLS stream through hls.js', async () => {
    const page = await browser.newPage();
    await page.goto(`${app.origin}/`);
    await page.waitForFunction(() => 'sdk' in window);
    type PageWindow = { sdk: typeof import('../src/index.ts'); Hls: any };
    const options = { base: apiBase, clientId, redirectUri: `${app.origin}/callback` };
    // The SDK sends the browser to the sign-in page (on the API's origin)...
    const authorizationUrl = await page.evaluate(async ({ base, clientId, redirectUri }) => {
      const { MaqamClient, localStorageTokens } = (window as unknown as PageWindow).sdk;
      const maqam = new MaqamClient({ baseUrl: base, auth: { clientId, redirectUri, storage: localStorageTokens() } });
      return maqam.auth.createAuthorizationUrl({ scope: 'read stream' });
    }, options);
    await page.goto(authorizationUrl);
    await page.fill('input[name=username]', username);
    await page.fill('input[name=password]', PASSWORD);
    await page.click('button[value=allow]');
    await page.waitForURL(`${app.origin}/callback?**`);
    await page.waitForFunction(() => 'sdk' in window);
    // ...and back on the app's origin it redeems the code, refreshes and streams, each a cross-origin call.
    const outcome = await page.evaluate(async ({ base, clientId, redirectUri }) => {
      const { MaqamClient, localStorageTokens } = (window as unknown as PageWindow).sdk;
      const calls: string[] = [];
      const maqam = new MaqamClient({
        baseUrl: base,
        auth: { clientId, redirectUri, storage: localStorageTokens() },
        fetch: async (input, init) => {
          calls.push(`${init?.method ?? 'GET'} ${new URL(String(input)).pathname}`);
          return fetch(input, init);
        },
      });
      await maqam.auth.handleRedirect(location.href);
      const first = (await maqam.auth.tokens())!.accessToken;
      // The access token dies early (revoked, as a server may): the next call gets a 401, refreshes and retries.
      const revoked = await fetch(`${base}/v1/auth/token/revoke`, {
        method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: first, token_type_hint: 'access_token' }),
      });
      calls.push(`revoke ${revoked.status}`);
      const info = await maqam.auth.tokenInfo();
      const second = (await maqam.auth.tokens())!.accessToken;
      const { stream } = await maqam.streaming.acquireMusic('song-ar');
      const Hls = (window as unknown as PageWindow).Hls;
      const audio = document.querySelector('audio')!;
      audio.muted = true;
      const hls = new Hls();
      const fragments = await new Promise<number>((resolve, reject) => {
        let loaded = 0;
        hls.on(Hls.Events.FRAG_LOADED, () => { if (++loaded === 2) resolve(loaded); });
        hls.on(Hls.Events.ERROR, (_event: unknown, data: { fatal: boolean; details: string }) => { if (data.fatal) reject(new Error(data.details)); });
        hls.loadSource(stream.manifestUrl);
        hls.attachMedia(audio);
        void audio.play().catch(() => {});
      });
      const buffered = audio.buffered.length > 0 ? audio.buffered.end(0) : 0;
      hls.destroy();
      return { scope: info.scope, refreshed: first !== second, calls, fragments, buffered };
    }, options);
    expect(outcome.scope, JSON.stringify(outcome)).toBe('read stream');
    expect(outcome.refreshed).toBe(true);
    expect(outcome.calls).toEqual(['POST /v1/auth/token', 'revoke 200', 'GET /v1/auth/tokeninfo', 'POST /v1/auth/token/refresh', 'GET /v1/auth/tokeninfo', 'POST /v1/streaming/music']);
    expect(outcome.fragments).toBe(2);
    expect(outcome.buffered).toBeGreaterThan(0);
    await page.close();
  }, 60_000);

  it('is refused from an untrusted origin, with an error that names CORS', async () => {
    const page = await inPage(untrusted.origin);
    const error = await page.evaluate(async ({ base, key }) => {
      const { MaqamClient } = (window as unknown as { sdk: typeof import('../src/index.ts') }).sdk;
      const maqam = new MaqamClient({ baseUrl: base, apiKey: key, maxRetries: 0 });
      try {
        await maqam.songs.batchGet(['song-ar']);
        return null;
      } catch (caught) {
        return { name: (caught as Error).name, message: (caught as Error).message };
      }
    }, { base: apiBase, key: api.apiKey });
    expect(error?.name).toBe('NetworkError');
    expect(error?.message).toContain('CORS');
    expect(error?.message).toContain(untrusted.origin);
    await page.close();
  });
});
