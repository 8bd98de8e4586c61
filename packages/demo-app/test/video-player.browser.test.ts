// The demo's video player in Debian's Chromium, on a server of this file
// (video-server.ts: a 12 s test clip packaged by addVideo for two episodes
// of the Ramadan series and a film, and a clock the test moves): play,
// quality, audio language (heard: each language is a tone of its own),
// subtitles shown at their time, a stream outliving its URLs, resume after a
// reload, the next episode, and Continue watching; Arabic and English, a
// desktop and a phone, with screenshots in /tmp/shots.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { accessibilityViolations } from '../../server/test/accessibility.ts';
import { browserAvailable, ffmpegAvailable, launchChromium } from '../../server/test/system-tools.ts';
import { CUES, startVideoDemo, TITLES, TONES, type VideoDemoServer } from './video-server.ts';

const REPO = resolve(import.meta.dirname, '../../..');
const SHOTS = '/tmp/shots';
const haveTools = browserAvailable('the video player browser tests') && ffmpegAvailable('the video player browser tests');
const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };
/** MAQAM_STREAM_URL_TTL and MAQAM_STREAM_GRACE's defaults (contract section 7). */
const URL_TTL_MS = 300_000;
const GRACE_MS = 14_400_000;

/** Signs in through the app: its button, the server's sign-in page, back to the app's home. */
async function signIn(page: Page, base: string) {
  await page.goto(`${base}/demo`);
  await page.getByTestId('sign-in').click();
  await page.waitForURL((url) => url.pathname === '/v1/auth/authorize');
  await page.getByLabel('اسم المستخدم Username').fill('demo');
  await page.getByLabel('كلمة المرور Password').fill('maqam-demo');
  await page.getByRole('button', { name: 'سماح · Allow' }).click();
  await page.waitForURL(`${base}/demo`);
  await page.getByTestId('recent-empty').waitFor();
}

const media = (page: Page) => page.evaluate(() => {
  const video = document.querySelector<HTMLVideoElement>('[data-testid="video"]')!;
  return { time: video.currentTime, paused: video.paused, ended: video.ended, height: video.videoHeight };
});

/** The picture moves: not paused, and its time goes on. */
async function expectPlaying(page: Page) {
  const before = (await media(page)).time;
  await expect.poll(async () => {
    const now = await media(page);
    return !now.paused && now.time > before + 0.3;
  }, { timeout: 10_000 }).toBe(true);
}

/** Where the player is, seeked there and waited for. */
async function seek(page: Page, seconds: number) {
  await page.evaluate((to) => new Promise((done) => {
    const video = document.querySelector<HTMLVideoElement>('[data-testid="video"]')!;
    video.addEventListener('seeked', done, { once: true });
    video.currentTime = to;
  }), seconds);
}

/** The tone heard now (Hz): the element's sound through an analyser, the loudest frequency. */
const toneHeard = (page: Page) => page.evaluate(async () => {
  const probe = globalThis as unknown as { toneProbe?: { context: AudioContext; analyser: AnalyserNode } };
  if (!probe.toneProbe) {
    const context = new AudioContext();
    const analyser = context.createAnalyser();
    analyser.fftSize = 8192;
    context.createMediaElementSource(document.querySelector<HTMLVideoElement>('[data-testid="video"]')!).connect(analyser).connect(context.destination);
    probe.toneProbe = { context, analyser };
  }
  const { context, analyser } = probe.toneProbe;
  await context.resume();
  await new Promise((done) => setTimeout(done, 400));
  const levels = new Float32Array(analyser.frequencyBinCount);
  analyser.getFloatFrequencyData(levels);
  let loudest = 1;
  for (let i = 1; i < levels.length; i++) if (levels[i]! > levels[loudest]!) loudest = i;
  return (loudest * context.sampleRate) / analyser.fftSize;
});

/** A menu of the player opened by its button, and one of its items chosen by name. */
async function choose(page: Page, menu: 'quality' | 'audio' | 'subtitles', name: string) {
  await page.getByTestId(`video-${menu}`).click();
  await page.getByTestId(`video-menu-${menu}`).getByRole('menuitemradio', { name, exact: true }).click();
  await expect(page.getByTestId(`video-menu-${menu}`).count()).resolves.toBe(0);
}

const checkedIn = async (page: Page, menu: 'quality' | 'audio' | 'subtitles') => {
  await page.getByTestId(`video-${menu}`).click();
  const checked = await page.getByTestId(`video-menu-${menu}`).locator('[aria-checked="true"]').textContent();
  await page.keyboard.press('Escape');
  return checked?.trim();
};

/**
 * The media time of the video's first frame: hls.js places the picture a
 * frame or two after 0 (where the audio starts), and the subtitles' times
 * count from the picture's start, as the source's did.
 */
const firstFrame = (page: Page) => page.evaluate(() => new Promise<number>((done) => {
  const video = document.querySelector<HTMLVideoElement>('[data-testid="video"]')!;
  video.pause();
  video.requestVideoFrameCallback((_now, frame) => done(frame.mediaTime));
  video.currentTime = 0;
}));

/** Played from `from` (s), the moment the subtitle `text` shows on the page: the player's time then, and that cue's start in the track. */
const cueShown = (page: Page, text: string, from: number) => page.evaluate(async ({ text, from }) => {
  const video = document.querySelector<HTMLVideoElement>('[data-testid="video"]')!;
  video.pause();
  await new Promise((done) => {
    video.addEventListener('seeked', done, { once: true });
    video.currentTime = from;
  });
  const shown = new Promise<{ at: number; cueStart: number }>((done) => {
    const observer = new MutationObserver(() => {
      if (document.querySelector('[data-testid="cue"]')?.textContent !== text) return;
      observer.disconnect();
      const track = Array.from(video.textTracks).find((candidate) => candidate.mode === 'hidden' && candidate.kind === 'subtitles');
      // The cue by its text in the track's list: its active list is updated on the element's own clock, which a
      // loaded machine runs late (it was empty here while the page drew the cue on time).
      const cue = Array.from(track?.cues ?? []).find((candidate) => (candidate as VTTCue).text === text);
      done({ at: video.currentTime, cueStart: cue?.startTime ?? Number.NaN });
    });
    observer.observe(document.querySelector('[data-testid="stage"]')!, { childList: true, subtree: true, characterData: true });
  });
  await video.play();
  return shown;
}, { text, from });

describe.skipIf(!haveTools)('the video player in Chromium', () => {
  let browser: Browser;
  let server: VideoDemoServer;
  const contexts: BrowserContext[] = [];
  beforeAll(async () => {
    // The server reads the built app when it starts: built first.
    const built = spawnSync(process.execPath, [join(REPO, 'packages/demo-app/scripts/build.ts')], { encoding: 'utf8' });
    expect(built.status, built.stderr).toBe(0);
    [server, browser] = await Promise.all([startVideoDemo(), launchChromium(['--autoplay-policy=no-user-gesture-required'])]);
    mkdirSync(SHOTS, { recursive: true });
  });
  afterAll(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    await server?.close();
  });

  const newPage = async (locale: string, viewport: { width: number; height: number }, options: { bypassCSP?: boolean } = {}) => {
    const context = await browser.newContext({ locale, viewport, ...options });
    contexts.push(context);
    const page = await context.newPage();
    const failures: string[] = [];
    page.on('pageerror', (error) => failures.push(error.message));
    return { page, failures };
  };

  it('plays an episode: quality, audio language, subtitles at their time, past its URLs, resumed after a reload, then the next episode (Arabic, desktop)', async () => {
    const { page, failures } = await newPage('ar-EG', DESKTOP);
    const acquisitions: number[] = [];
    page.on('response', (response) => {
      if (new URL(response.url()).pathname === '/v1/streaming/video') acquisitions.push(response.status());
    });
    await signIn(page, server.base);

    // The show's page offers Play on the episodes that have video, and only on those.
    await page.getByTestId('nav-watch').click();
    await page.getByTestId('spotlight-play').waitFor();
    await page.getByTestId('watch-shows').locator('[data-title="show-beit-al-karma"]').click();
    await page.getByTestId('episodes').waitFor();
    const plays = page.getByTestId('episodes').getByTestId('play-episode');
    expect(await plays.count()).toBe(2);
    expect(await page.getByTestId('play-show').textContent()).toContain('م١:ح١');
    await page.screenshot({ path: join(SHOTS, 'player-show-ar-desktop.png') });
    await plays.first().click();
    await expect.poll(() => page.getByTestId('video-title').textContent()).toBe('الحلقة ١');
    expect(new URL(page.url()).hash).toBe(`#/watch/episode/${TITLES.episode}`);
    await expectPlaying(page);
    expect(acquisitions).toEqual([200]);
    expect(await page.getByTestId('resume-hint').count()).toBe(0);
    // The lock screen and the media keys are the video's while it is on screen.
    expect(await page.evaluate(() => [navigator.mediaSession.metadata?.title, navigator.mediaSession.metadata?.artist])).toEqual(['الحلقة ١', 'بيت الكرمة']);

    // Quality: Auto, then each level by its height; a level chosen shows at once.
    await page.getByTestId('video-quality').click();
    expect(await page.getByTestId('video-menu-quality').getByRole('menuitemradio').allTextContents()).toEqual([expect.stringMatching(/^تلقائية/), '720p', '480p']);
    await page.keyboard.press('Escape');
    await seek(page, 0.5);
    await choose(page, 'quality', '480p');
    await expect.poll(async () => (await media(page)).height, { timeout: 10_000 }).toBe(480);
    await expectPlaying(page);
    await choose(page, 'quality', '720p');
    await expect.poll(async () => (await media(page)).height, { timeout: 10_000 }).toBe(720);
    await expect(checkedIn(page, 'quality')).resolves.toBe('720p');
    await expectPlaying(page);

    // Audio: each language named in itself; the one chosen is the one heard (Arabic 440 Hz, English 880 Hz), and playback goes on.
    await seek(page, 0.5);
    await page.getByTestId('video-audio').click();
    const audio = page.getByTestId('video-menu-audio').getByRole('menuitemradio');
    expect(await audio.evaluateAll((items) => items.map((item) => [item.textContent?.trim(), item.getAttribute('lang'), item.getAttribute('aria-checked')])))
      .toEqual([['العربية', 'ar', 'true'], ['English', 'en', 'false']]);
    await page.keyboard.press('Escape');
    expect(Math.abs((await toneHeard(page)) - TONES.ar)).toBeLessThan(20);
    await choose(page, 'audio', 'English');
    await expect(checkedIn(page, 'audio')).resolves.toBe('English');
    await expect.poll(() => toneHeard(page).then((hz) => Math.abs(hz - TONES.en) < 20), { timeout: 10_000 }).toBe(true);
    await expectPlaying(page);

    // Subtitles: off until chosen, but for the forced ones of the audio's language (not a choice of the menu).
    await page.getByTestId('video-subtitles').click();
    expect(await page.getByTestId('video-menu-subtitles').getByRole('menuitemradio').allTextContents()).toEqual(['بلا ترجمة', 'العربية', 'English']);
    await expect(page.getByTestId('video-menu-subtitles').locator('[aria-checked="true"]').textContent()).resolves.toBe('بلا ترجمة');
    await page.keyboard.press('Escape');
    await seek(page, CUES['en-forced'][0].start + 0.3);
    await expect.poll(() => page.getByTestId('cue').textContent()).toBe(CUES['en-forced'][0].text);
    // Each cue of the subtitles chosen is shown when the picture reaches its time, within 100 ms.
    await choose(page, 'subtitles', 'العربية');
    const start = await firstFrame(page);
    for (const cue of CUES.ar) {
      const shown = await cueShown(page, cue.text, start + cue.start - 0.8);
      expect(Math.abs(shown.cueStart - (start + cue.start)), `cue "${cue.text}" starts at its time on the picture`).toBeLessThan(0.1);
      expect(Math.abs(shown.at - (start + cue.start)), `cue "${cue.text}" shown at ${shown.at} s`).toBeLessThan(0.1);
    }
    expect(await page.getByTestId('cue').getAttribute('lang')).toBe('ar');
    await page.screenshot({ path: join(SHOTS, 'player-ar-desktop.png') });
    // C turns them off and on again, in the language chosen; shown at once (Chromium leaves a track enabled again
    // without active cues until its next one: they are read off the time until it tells of them).
    await page.keyboard.press('c');
    await expect.poll(() => page.getByTestId('cue').count()).toBe(0);
    await page.keyboard.press('c');
    await expect(checkedIn(page, 'subtitles')).resolves.toBe('العربية');
    await seek(page, start + CUES.ar[1].start + 0.5);
    await expect.poll(() => page.getByTestId('cue').textContent()).toBe(CUES.ar[1].text);

    // The keyboard: K pauses and plays, the arrows seek ten seconds (ahead leftwards, as the bar fills in Arabic); ? lists the shortcuts.
    await seek(page, 1);
    await page.keyboard.press('k');
    await expect.poll(async () => (await media(page)).paused).toBe(true);
    await page.keyboard.press('ArrowLeft');
    await expect.poll(async () => (await media(page)).time).toBeGreaterThan(10.5);
    await page.keyboard.press('ArrowRight');
    await expect.poll(async () => (await media(page)).time).toBeLessThan(1.5);
    await page.keyboard.press('Shift+Slash');
    await page.getByTestId('video-help-dialog').waitFor();
    expect(await page.getByTestId('video-help-dialog').locator('dt').allTextContents()).toEqual(['المسافة K', '←', '→', 'F', 'M', 'C', '?']);
    await page.screenshot({ path: join(SHOTS, 'player-help-ar-desktop.png') });
    await page.keyboard.press('Escape');
    await page.keyboard.press('k');
    await expectPlaying(page);
    // M mutes and unmutes; F fills the screen with the player (its subtitles and controls too) and leaves it.
    await page.keyboard.press('m');
    expect(await page.evaluate(() => document.querySelector<HTMLVideoElement>('[data-testid="video"]')!.muted)).toBe(true);
    await page.keyboard.press('m');
    expect(await page.evaluate(() => document.querySelector<HTMLVideoElement>('[data-testid="video"]')!.muted)).toBe(false);
    await page.keyboard.press('f');
    await expect.poll(() => page.evaluate(() => document.fullscreenElement?.getAttribute('data-testid'))).toBe('stage');
    await page.screenshot({ path: join(SHOTS, 'player-fullscreen-ar-desktop.png') });
    await page.keyboard.press('f');
    await expect.poll(() => page.evaluate(() => document.fullscreenElement)).toBe(null);

    // What follows is fetched again, as the segments of a long film played an hour ago would be: the clip's are in the
    // browser's cache (the server lets it keep them until their URLs expire), which would answer without the server.
    const devtools = await page.context().newCDPSession(page);
    await devtools.send('Network.enable');
    await devtools.send('Network.setCacheDisabled', { cacheDisabled: true });

    // Past the manifest URL's life: the playlists and segments it led to are signed for the whole viewing window, so
    // what is fetched now (another quality, a seek) plays without acquiring again.
    server.moveClock(URL_TTL_MS + 60_000);
    await seek(page, 2);
    await choose(page, 'quality', '480p');
    await expect.poll(async () => (await media(page)).height, { timeout: 10_000 }).toBe(480);
    await expectPlaying(page);
    expect(acquisitions).toEqual([200]);

    // Past the viewing window itself (a pause of hours): the URLs answer 403, the player acquires the stream again and
    // goes on from the same place, in the quality, language and subtitles chosen.
    await seek(page, 3);
    const before = (await media(page)).time;
    server.moveClock(GRACE_MS + 60_000);
    await choose(page, 'quality', '720p');
    // (The access token has expired on the server's clock too: the SDK refreshes it, and acquires once it has.)
    await expect.poll(() => acquisitions.filter((status) => status === 200), { timeout: 10_000 }).toEqual([200, 200]);
    await expect.poll(async () => (await media(page)).height, { timeout: 10_000 }).toBe(720);
    await expectPlaying(page);
    expect((await media(page)).time).toBeGreaterThan(before - 0.5);
    expect(await page.getByTestId('video-error').count()).toBe(0);
    await expect(checkedIn(page, 'audio')).resolves.toBe('English');
    await expect(checkedIn(page, 'subtitles')).resolves.toBe('العربية');
    expect(Math.abs((await toneHeard(page)) - TONES.en)).toBeLessThan(20);
    await devtools.send('Network.setCacheDisabled', { cacheDisabled: false });

    // Paused at 7 s, the place is reported; a reload resumes there, and says so.
    const reported = page.waitForResponse((response) => new URL(response.url()).pathname === '/v1/library/progress:report');
    await seek(page, 7);
    await page.getByTestId('video-toggle').click();
    expect((await reported).status()).toBe(200);
    await page.reload();
    await page.getByTestId('resume-hint').waitFor();
    expect(await page.getByTestId('resume-hint').textContent()).toContain('٠:٠٧');
    await expectPlaying(page);
    expect((await media(page)).time).toBeGreaterThan(6.8);
    await page.screenshot({ path: join(SHOTS, 'player-resumed-ar-desktop.png') });

    // The end: the next episode, after a countdown that Cancel stops; at the next end, the countdown runs out and it starts.
    const toTheEnd = async () => {
      await seek(page, 11);
      await page.evaluate(() => document.querySelector<HTMLVideoElement>('[data-testid="video"]')!.play());
      await page.getByTestId('next-countdown').waitFor({ timeout: 10_000 });
    };
    await toTheEnd();
    expect(await page.getByTestId('next-episode').locator('.next-title').textContent()).toContain('م١:ح٢');
    await expect.poll(() => page.getByTestId('next-countdown').textContent()).toMatch(/^تبدأ بعد [٥٤٣] ثوانٍ$/);
    await page.screenshot({ path: join(SHOTS, 'player-next-ar-desktop.png') });
    await page.getByTestId('next-cancel').click();
    expect(await page.getByTestId('next-countdown').count()).toBe(0);
    await page.waitForTimeout(1500);
    expect(new URL(page.url()).hash).toBe(`#/watch/episode/${TITLES.episode}`);
    await page.getByTestId('next-play').waitFor();
    await toTheEnd();
    await expect.poll(() => new URL(page.url()).hash, { timeout: 10_000 }).toBe(`#/watch/episode/${TITLES.nextEpisode}`);
    await expect.poll(() => page.getByTestId('video-title').textContent()).toBe('الحلقة ٢');
    await expectPlaying(page);
    // Three seconds in (past 5 % of the clip), left for the series page: its place is kept.
    await seek(page, 3);
    await page.getByTestId('back-link').click();
    await page.getByTestId('show-title').waitFor();
    expect(await page.evaluate(() => navigator.mediaSession.metadata)).toBe(null);
    expect(failures).toEqual([]);
  }, 150_000);

  it('lists what was left half-watched under Continue watching: S1 · E2 and a film, resumed on a tap, hidden on ×; English on a phone, both languages and widths', async () => {
    // Without the page's CSP, for axe-core's script (the other test plays under it).
    const { page, failures } = await newPage('en-US', PHONE, { bypassCSP: true });
    await signIn(page, server.base);

    // The film, from its page's Play; left 6 s in.
    await page.getByTestId('nav-watch').click();
    await page.getByTestId('watch-movies').locator(`[data-title="${TITLES.movie}"]`).click();
    await page.getByTestId('play-movie').click();
    await expect.poll(() => page.getByTestId('video-title').textContent()).toBe('The Morning Star');
    await expectPlaying(page);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    await page.getByTestId('video-subtitles').click();
    await page.screenshot({ path: join(SHOTS, 'player-menu-en-phone.png') });
    await page.keyboard.press('Escape');
    await choose(page, 'subtitles', 'English');
    await page.getByTestId('cue').waitFor({ timeout: 15_000 }).catch(() => undefined);
    await seek(page, CUES.en[1].start + 0.3);
    await page.getByTestId('cue').waitFor();
    await page.screenshot({ path: join(SHOTS, 'player-en-phone.png') });
    await seek(page, 6);
    const reported = page.waitForResponse((response) => new URL(response.url()).pathname === '/v1/library/progress:report');
    await page.getByTestId('video-toggle').click();
    await reported;

    // Continue watching: the film (latest first), then the show as its next episode, S1 · E2, each with how far.
    await page.getByTestId('nav-watch').click();
    const shelf = page.getByTestId('continue-watching');
    await shelf.waitFor();
    const cards = shelf.locator('.watch-entry');
    expect(await cards.evaluateAll((items) => items.map((item) => item.getAttribute('data-title')))).toEqual([TITLES.movie, TITLES.nextEpisode]);
    expect(await cards.nth(1).locator('.episode-code').textContent()).toBe('S1 · E2');
    expect(await cards.nth(0).locator('.card-title').textContent()).toBe('The Morning Star');
    expect(await cards.nth(1).locator('.card-title').textContent()).toBe('The House of the Vine');
    expect(await cards.nth(0).locator('progress').evaluate((bar: HTMLProgressElement) => bar.value / bar.max)).toBeCloseTo(0.5, 1);
    await expect.poll(() => shelf.locator('img').evaluateAll((images) => images.every((image) => (image as HTMLImageElement).complete))).toBe(true);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    await shelf.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(SHOTS, 'continue-en-phone.png') });
    // The spotlight's Play resumes the show where it is.
    expect(await page.getByTestId('spotlight-play').textContent()).toContain('S1 · E2');

    for (const [lang, size, name] of [['ar', DESKTOP, 'desktop'], ['ar', PHONE, 'phone'], ['en', DESKTOP, 'desktop']] as const) {
      if ((await page.evaluate(() => document.documentElement.lang)) !== lang) await page.getByTestId('lang').click();
      await page.setViewportSize(size);
      await expect.poll(() => shelf.locator('.card-title').first().textContent()).toBe(lang === 'ar' ? 'نجمة الصباح' : 'The Morning Star');
      await expect.poll(() => shelf.locator('img').evaluateAll((images) => images.every((image) => (image as HTMLImageElement).complete))).toBe(true);
      expect(await page.evaluate(() => document.documentElement.scrollWidth), `${lang} ${name}`).toBeLessThanOrEqual(size.width);
      // A desktop shows the spotlight and the row from the top; a phone, the row.
      if (size === DESKTOP) await page.evaluate(() => scrollTo(0, 0));
      else await shelf.scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(SHOTS, `continue-${lang}-${name}.png`) });
    }

    expect(await accessibilityViolations(page)).toEqual([]);
    await page.getByTestId('spotlight-link').click();
    await page.getByTestId('play-show').waitFor();
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.goBack();

    // A tap resumes the film where it was left (English, desktop now).
    await cards.first().getByTestId('continue-link').click();
    await page.getByTestId('resume-hint').waitFor();
    await expectPlaying(page);
    expect((await media(page)).time).toBeGreaterThan(5.8);
    await page.screenshot({ path: join(SHOTS, 'player-en-desktop.png'), fullPage: true });
    await page.getByTestId('video-toggle').click();
    await page.getByTestId('video-audio').click();
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.keyboard.press('Escape');
    await page.setViewportSize(PHONE);
    await page.getByTestId('lang').click();
    await expect.poll(() => page.getByTestId('video-title').textContent()).toBe('نجمة الصباح');
    await page.screenshot({ path: join(SHOTS, 'player-ar-phone.png') });

    // × takes the film off the row, and it stays off.
    await page.getByTestId('nav-watch').click();
    await shelf.waitFor();
    await cards.first().getByTestId('hide-continue').click();
    await expect.poll(() => cards.count()).toBe(1);
    await page.reload();
    await shelf.waitFor();
    expect(await cards.evaluateAll((items) => items.map((item) => item.getAttribute('data-title')))).toEqual([TITLES.nextEpisode]);
    expect(failures).toEqual([]);
  }, 120_000);
});
