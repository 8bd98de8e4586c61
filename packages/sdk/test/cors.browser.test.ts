// The SDK in a page of another origin, in Chromium: a trusted origin calls
// the API and reads its headers; an untrusted one is refused by the browser,
// and the SDK's error says CORS is the likely cause.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { build } from 'esbuild';
import type { Browser } from 'playwright-core';
import { dialects } from '../../server/test/dialects.ts';
import { freePort, listenOnFreePort, startTestServer, type TestServer } from '../../server/test/harness.ts';
import { browserAvailable, launchChromium } from '../../server/test/system-tools.ts';

const haveBrowser = browserAvailable('the SDK cross-origin browser test');

/** A page server on its own loopback port: the SDK bundle at /sdk.js and an empty page. */
async function pageServer(sdk: string): Promise<{ origin: string; server: Server }> {
  const server = createServer((request, response) => {
    if (request.url === '/sdk.js') {
      response.writeHead(200, { 'content-type': 'text/javascript' }).end(sdk);
      return;
    }
    response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>app</title><script type="module">import * as sdk from "/sdk.js"; window.sdk = sdk;</script>');
  });
  const port = await listenOnFreePort(server);
  return { origin: `http://127.0.0.1:${port}`, server };
}

describe.skipIf(!haveBrowser)('the SDK from a page of another origin, in Chromium', () => {
  let api: TestServer;
  let apiBase: string;
  let trusted: { origin: string; server: Server };
  let untrusted: { origin: string; server: Server };
  let browser: Browser;
  beforeAll(async () => {
    const bundle = await build({ entryPoints: [join(import.meta.dirname, '../src/index.ts')], bundle: true, format: 'esm', write: false, platform: 'browser' });
    const sdk = bundle.outputFiles[0]!.text;
    trusted = await pageServer(sdk);
    untrusted = await pageServer(sdk);
    const port = await freePort();
    apiBase = `http://127.0.0.1:${port}`;
    api = await startTestServer(dialects[0]!, { MAQAM_PUBLIC_URL: apiBase, MAQAM_CORS_ORIGINS: trusted.origin, MAQAM_RATE_LIMIT: '100' });
    await api.app.listen({ port, host: '127.0.0.1' });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await api?.close();
    trusted?.server.close();
    untrusted?.server.close();
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
    expect(answer.seen['content-language']).toBe('en');
    await page.close();
  });

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
