import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Browser } from 'playwright-core';
import { createClientsService } from '@maqam/server';
import { dialects } from '../dialects.ts';
import { freePort, startTestServer, type TestServer } from '../harness.ts';
import { PASSWORD, seedAccounts } from '../oauth/oauth-helpers.ts';
import { browserAvailable, launchChromium } from '../system-tools.ts';

const OUTPUT = resolve(import.meta.dirname, '../../../../test-results');
const haveBrowser = browserAvailable('the /docs sign-in test');

/**
 * /docs as a reader uses it in Chromium: Maqam's look, then Authorize signs
 * in through the sign-in page with PKCE (swagger-ui's popup and its
 * oauth2-redirect page), and "Try it out" calls the API with the token.
 */
describe.skipIf(!haveBrowser)('/docs in Chromium', () => {
  let server: TestServer;
  let browser: Browser;
  let base: string;
  let username: string;

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    server = await startTestServer(dialects[0]!, { MAQAM_PUBLIC_URL: base, MAQAM_DOCS_CLIENT_ID: 'docs-client' });
    await server.app.listen({ port, host: '127.0.0.1' });
    username = (await seedAccounts(server)).user.username;
    await createClientsService(server.storage.db).create({
      clientId: 'docs-client', name: 'Maqam API docs', redirectUris: [`${base}/docs/static/oauth2-redirect.html`], scopes: ['read', 'stream'],
    });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('carries Maqam\'s name and look, signs in with PKCE from Authorize, and tries an operation with the token', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${base}/docs/`);
    await page.locator('.opblock-tag', { hasText: 'MusicCatalogService' }).waitFor();
    expect(await page.title()).toBe('Maqam API · مقام');
    expect(await page.locator('.topbar img').getAttribute('src')).toMatch(/logo|svg/);
    mkdirSync(OUTPUT, { recursive: true });
    await page.screenshot({ path: resolve(OUTPUT, 'docs.png') });

    await page.locator('.btn.authorize').first().click();
    const oauth = page.locator('.auth-container').first();
    await expect(oauth.innerText()).resolves.toContain('authorizationCode with PKCE');
    const popupOpened = context.waitForEvent('page');
    await oauth.locator('button.authorize').click();
    const popup = await popupOpened;
    await popup.waitForLoadState();
    const authorize = new URL(popup.url());
    expect(authorize.pathname).toBe('/v1/auth/authorize');
    expect(authorize.searchParams.get('client_id')).toBe('docs-client');
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
    await popup.fill('input[name=username]', username);
    await popup.fill('input[name=password]', PASSWORD);
    await popup.click('button[value=allow]');
    await expect.poll(() => oauth.innerText(), { timeout: 15_000 }).toContain('Authorized');
    await page.locator('.auth-btn-wrapper button.btn-done, .btn-done').first().click();

    // TokenInfo with the token the docs now hold.
    const operation = page.locator('#operations-AuthService-TokenInfo');
    await operation.locator('.opblock-summary').click();
    await operation.getByRole('button', { name: 'Try it out' }).click();
    await operation.getByRole('button', { name: 'Execute' }).click();
    const status = operation.locator('.live-responses-table tbody .response-col_status').first();
    await expect.poll(() => status.innerText(), { timeout: 15_000 }).toBe('200');
    await expect(operation.locator('.live-responses-table tbody .microlight').first().innerText()).resolves.toContain('"client_id": "docs-client"');
    await context.close();
  }, 60_000);
});
