// Screenshots of the Developer page to look at, not a test: a key made through
// the page, its secret on screen, and a chart with a month of calls, in
// Arabic and English on a phone (390 px) and a desktop (1280 px).
//
//   npm run build:demo
//   PORT=8791 MAQAM_PUBLIC_URL=http://127.0.0.1:8791 DATABASE_URL=sqlite:/tmp/devpage/maqam.db MAQAM_DEMO_MUSIC=0 npx maqam serve --demo &
//   DEMO_BASE=http://127.0.0.1:8791 DEMO_DB=/tmp/devpage/maqam.db npx node packages/demo-app/test/developer-screenshots.ts
//
// The month's calls before today are written into the demo's SQLite file
// (DEMO_DB) as the server's flush would have: a page's chart is only worth
// looking at with some history. Today's are real calls made with the key.
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import type { Page } from 'playwright-core';
import { launchChromium } from '../../server/test/system-tools.ts';

const base = process.env.DEMO_BASE ?? 'http://127.0.0.1:8791';
const database = process.env.DEMO_DB;
const out = resolve(import.meta.dirname, '../../../test-results');
mkdirSync(out, { recursive: true });

async function signIn(page: Page) {
  await page.goto(`${base}/demo`);
  await page.getByTestId('sign-in').click();
  await page.waitForURL((url) => url.pathname === '/v1/auth/authorize');
  await page.getByLabel('اسم المستخدم Username').fill('demo');
  await page.getByLabel('كلمة المرور Password').fill('maqam-demo');
  await page.getByRole('button', { name: 'سماح · Allow' }).click();
  await page.waitForURL(`${base}/demo`);
  await page.getByTestId('featured').locator('li').first().waitFor();
}

/** A month of made-up calls before today, as flushed rows: weekdays busier, a few client errors and 429s. */
function writeHistory(keyId: string) {
  if (!database) return;
  const db = new DatabaseSync(database);
  try {
    const insert = db.prepare('insert or replace into api_key_usage (key_id, day, operation, calls, client_errors, rate_limited) values (?, ?, ?, ?, ?, ?)');
    for (let back = 29; back >= 1; back--) {
      const day = new Date(Date.now() - back * 86_400_000);
      const weekend = day.getUTCDay() === 5 || day.getUTCDay() === 6;
      const calls = Math.round((weekend ? 40 : 120) + 60 * Math.sin(back / 3) + (29 - back) * 4);
      const errors = back % 4 === 0 ? 14 : 3;
      const limited = back % 9 === 0 ? 25 : 0;
      insert.run(keyId, day.toISOString().slice(0, 10), 'GetArtist', calls, errors + limited, limited);
    }
  } finally {
    db.close();
  }
}

const browser = await launchChromium();
try {
  for (const locale of ['ar-EG', 'en-US']) {
    const lang = locale.slice(0, 2);
    const context = await browser.newContext({ locale, viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    page.on('pageerror', (error) => console.error('page error:', error.message));
    await signIn(page);
    await page.getByTestId('nav-developer').click();
    await page.getByTestId('developer-title').waitFor();
    await page.getByTestId('new-key-name').fill(lang === 'ar' ? 'تطبيق الراديو' : 'Radio app');
    await page.getByTestId('new-key-rate').fill('120');
    await page.getByTestId('create-key').click();
    const secret = (await page.getByTestId('secret').textContent())!;
    const keyId = secret.split('_')[1]!;
    writeHistory(keyId);
    for (let i = 0; i < 12; i++) {
      await fetch(`${base}/v1/music/artists/${i % 4 === 0 ? 'no-such-artist' : 'artist-1'}/related`, { headers: { 'x-api-key': secret } });
    }
    await page.getByTestId('refresh-usage').click();
    await page.waitForFunction(() => Number(document.querySelector('[data-testid="usage-chart"]')?.getAttribute('data-calls')) > 12);
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      await page.screenshot({ path: join(out, `demo-developer-${lang}-${width}.png`), fullPage: true });
    }
    // And by night, as a phone set to dark shows it.
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.screenshot({ path: join(out, `demo-developer-dark-${lang}-390.png`), fullPage: true });
    await page.emulateMedia({ colorScheme: 'light' });
    // A rotation's question, then its new secret with the old key's end.
    await page.setViewportSize({ width: 390, height: 900 });
    await page.getByTestId('secret-done').click();
    await page.getByTestId('key').first().getByTestId('rotate-key').click();
    await page.screenshot({ path: join(out, `demo-developer-rotate-${lang}-390.png`), fullPage: true });
    await page.getByTestId('confirm-rotate').click();
    await page.getByTestId('old-key-until').waitFor();
    await page.screenshot({ path: join(out, `demo-developer-rotated-${lang}-390.png`), fullPage: true });
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.screenshot({ path: join(out, `demo-developer-rotated-${lang}-1280.png`), fullPage: true });
    await context.close();
  }
} finally {
  await browser.close();
}
console.log(`screenshots in ${out}`);
