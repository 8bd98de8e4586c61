import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { resolve } from 'node:path';
import type { Browser } from 'playwright-core';
import { createClientsService } from '@maqam/server';
import { dialects } from '../dialects.ts';
import { freePort, listenOnFreePort, startTestServer, type TestServer } from '../harness.ts';
import { authorizeUrl, PASSWORD, pkce, seedAccounts } from './oauth-helpers.ts';
import { accessibilityViolations } from '../accessibility.ts';
import { browserAvailable, launchChromium } from '../system-tools.ts';

const OUTPUT = resolve(import.meta.dirname, '../../../../test-results');
const haveBrowser = browserAvailable('the browser sign-in test');

/** A real Chromium signs in through the page: wrong password, deny, then allow. */
describe.skipIf(!haveBrowser).each(dialects.map((d) => [d.name, d] as const))('the sign-in page in Chromium on %s', (dialectName, dialect) => {
  let server: TestServer;
  let browser: Browser;
  let callbackServer: Server;
  let callback: string;
  let base: string;
  let clientId: string;
  let username: string;

  beforeAll(async () => {
    // The app the user returns to: any page will do.
    callbackServer = createServer((_req, res) => res.end('back in the app'));
    callback = `http://127.0.0.1:${await listenOnFreePort(callbackServer)}/callback`;
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    server = await startTestServer(dialect, { MAQAM_PUBLIC_URL: base });
    await server.app.listen({ port, host: '127.0.0.1' });
    const accounts = await seedAccounts(server);
    username = accounts.user.username;
    clientId = (await createClientsService(server.storage.db).create({ name: 'تطبيق التجربة', redirectUris: [callback], scopes: ['read', 'stream'] })).clientId;
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    callbackServer?.close();
  });

  const start = (state: string) =>
    base + authorizeUrl({ response_type: 'code', client_id: clientId, redirect_uri: callback, scope: 'read stream', state, code_challenge: pkce().challenge, code_challenge_method: 'S256' });

  it('renders Arabic right to left, refuses a wrong password, denies once, allows once', async () => {
    const page = await browser.newPage({ locale: 'ar-EG', viewport: { width: 800, height: 900 } });
    await page.goto(start('first'));
    mkdirSync(OUTPUT, { recursive: true });
    await page.screenshot({ path: resolve(OUTPUT, `sign-in-page-${dialectName}.png`), fullPage: true });

    // Right to left: the document says so, the layout does it (the Arabic heading hugs the right edge).
    expect(await page.evaluate(() => document.documentElement.dir)).toBe('rtl');
    expect(await page.evaluate(() => getComputedStyle(document.body).direction)).toBe('rtl');
    const heading = (await page.locator('h1').boundingBox())!;
    const main = (await page.locator('main').boundingBox())!;
    expect(main.x + main.width - (heading.x + heading.width)).toBeLessThan(40);
    await expect(page.locator('h1').textContent()).resolves.toBe('تسجيل الدخول إلى مقام');
    await expect(page.getByLabel('اسم المستخدم Username').isVisible()).resolves.toBe(true);

    await page.getByLabel('اسم المستخدم Username').fill(username);
    await page.getByLabel('كلمة المرور Password').fill('not the password');
    await page.getByRole('button', { name: 'سماح · Allow' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toContain('The username or password is not correct.');

    await page.getByRole('button', { name: 'رفض · Deny' }).click();
    await page.waitForURL((url) => url.href.startsWith(callback));
    const denied = new URL(page.url());
    expect(denied.searchParams.get('error')).toBe('access_denied');
    expect(denied.searchParams.get('state')).toBe('first');

    await page.goto(start('second'));
    await page.getByLabel('اسم المستخدم Username').fill(username);
    await page.getByLabel('كلمة المرور Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'سماح · Allow' }).click();
    await page.waitForURL((url) => url.href.startsWith(callback));
    const allowed = new URL(page.url());
    expect(allowed.searchParams.get('code')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(allowed.searchParams.get('state')).toBe('second');
    expect(allowed.searchParams.get('iss')).toBe(base);
    await expect(page.textContent('body')).resolves.toBe('back in the app');
  });

  it('passes an axe-core audit of WCAG 2.1 A and AA, with and without an error shown', async () => {
    const context = await browser.newContext({ bypassCSP: true, locale: 'ar-EG' });
    try {
      const page = await context.newPage();
      await page.goto(start('audit'));
      expect(await accessibilityViolations(page)).toEqual([]);
      await page.getByLabel('اسم المستخدم Username').fill(username);
      await page.getByLabel('كلمة المرور Password').fill('not the password');
      await page.getByRole('button', { name: 'سماح · Allow' }).click();
      await page.getByRole('alert').waitFor();
      expect(await accessibilityViolations(page)).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
