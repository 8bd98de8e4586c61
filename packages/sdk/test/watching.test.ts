// Video streams and continue watching through the SDK's public API (issue 54,
// item 4; contract section 15), against the real server listening, over the
// server tests' video catalog: progress reports, the resume list and hiding,
// the WatchReporter's sessions online and offline, and acquiring a stream (of
// a title packaged here by the server's addVideo, what `maqam media add-video` runs).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addVideo, createUsersService } from '@maqam/server';
import {
  memoryTokens, MaqamClient, NetworkError, NotFoundError, PermissionDeniedError, type ContinueWatchingItem, type FetchLike, type PlayableTitle,
  type ProgressReport, type ProgressResult,
} from '@maqam/sdk';
import type { TestServer } from '../../server/test/harness.ts';
import { importRecords, videoFixtureRecords } from '../../server/test/video/video-fixtures.ts';
import { ffmpegAvailable } from '../../server/test/system-tools.ts';
import { listeningServer } from './signed-in.ts';

const haveFfmpeg = ffmpegAvailable('the SDK\'s test of a packaged video stream');
/** A short film to package; the fixtures' titles have no video. */
const PACKAGED = { kind: 'movie', id: 'movie-packaged', title: { ar: 'فيلم قصير', en: 'A Short Film' }, originalLanguage: 'ar', releaseDate: '2024-01-01', durationMs: 3_000, ageRating: 'AGE_RATING_ALL' };

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** A title of continue watching as `id@positionMs`. */
const entry = (item: ContinueWatchingItem) => `${item.movie?.id.value ?? item.episode?.id.value}@${item.positionMs}`;

async function all<T>(items: AsyncIterable<T>): Promise<T[]> {
  const seen: T[] = [];
  for await (const item of items) seen.push(item);
  return seen;
}

/** A fetch that keeps the body and Idempotency-Key of each call to `path`, and fails those calls while `offline()` says so. */
function recording(path: string, offline: () => boolean = () => false) {
  const calls: { body: Record<string, unknown>; idempotencyKey: string | null }[] = [];
  const fetchFn: FetchLike = async (input, init) => {
    if (new URL(input).pathname === path) {
      calls.push({ body: JSON.parse(String(init?.body)) as Record<string, unknown>, idempotencyKey: new Headers(init?.headers).get('idempotency-key') });
      if (offline()) throw new TypeError('fetch failed: offline');
    }
    return fetch(input, init);
  };
  return { calls, fetchFn, reports: () => calls.flatMap((call) => call.body.progress as ProgressReport[]) };
}

describe('the SDK\'s video streams and continue watching', () => {
  let running: Awaited<ReturnType<typeof listeningServer>>;
  let server: TestServer;
  /** The server's MAQAM_MEDIA_DIR, in a folder of this test's. */
  let dir: string;
  let media: string;
  /** layla, signed in with every scope. */
  let maqam: MaqamClient;
  const shelf = async (client = maqam) => (await all(client.library.continueWatching())).map(entry);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'maqam-sdk-watching-'));
    media = join(dir, 'media');
    running = await listeningServer('layla', { MAQAM_MEDIA_DIR: media });
    ({ server } = running);
    expect((await importRecords(server.storage, [...videoFixtureRecords(), PACKAGED])).errors).toEqual([]);
    maqam = await running.signedIn('read stream write');
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('moves the resume point with a report, lists it in continue watching page by page, and hides it until the next report', async () => {
    const { calls, fetchFn } = recording('/v1/library/progress:report');
    const client = await running.signedIn('read stream write', fetchFn);
    const base = Date.now() - HOUR;
    const at = (minutes: number) => new Date(base + minutes * MINUTE).toISOString();
    const film = (positionMs: number, reportedAt: string): ProgressReport => ({ movieId: { value: 'movie-all' }, positionMs, reportedAt });

    const [moved, unknown] = await client.library.progress.report([film(1_000_000, at(0)), { episodeId: { value: 'ep-nope' }, positionMs: 1_000_000, reportedAt: at(0) }]);
    expect(moved).toEqual({ positionMs: 1_000_000, finished: false });
    expect(unknown?.error?.code).toBe('ERROR_CODE_NOT_FOUND');
    expect(calls[0]?.idempotencyKey).toMatch(/^[0-9a-f]{32}$/);
    expect(await shelf()).toEqual(['movie-all@1000000']);

    // The later reportedAt wins, whatever the order the reports arrive in.
    expect(await client.library.progress.report([film(1_500_000, at(2))])).toEqual([{ positionMs: 1_500_000, finished: false }]);
    expect(await client.library.progress.report([film(1_200_000, at(1))])).toEqual([{ positionMs: 1_500_000, finished: false }]);
    expect(await client.library.progress.report([{ episodeId: { value: 'ep-doc-1' }, positionMs: 900_000, reportedAt: at(3) }])).toEqual([{ positionMs: 900_000, finished: false }]);
    expect(await shelf()).toEqual(['ep-doc-1@900000', 'movie-all@1500000']);

    const first = await maqam.library.listContinueWatching({ pageSize: 1, locale: 'en' });
    expect(first.items.map(entry)).toEqual(['ep-doc-1@900000']);
    expect(first.items[0]?.episode).toMatchObject({ showId: { value: 'show-doc' }, title: { value: 'Episode 1' }, durationMs: 2_700_000 });
    expect(Date.parse(first.items[0]!.updatedAt)).toBeGreaterThan(Date.now() - MINUTE);
    expect(first.nextPageToken).not.toBe('');
    const second = await maqam.library.listContinueWatching({ pageSize: 1, pageToken: first.nextPageToken, locale: 'en' });
    expect(second.items.map(entry)).toEqual(['movie-all@1500000']);
    expect(second.items[0]?.movie?.title.value).toBe('Desert Journey');
    expect((await all(maqam.library.continueWatching({ pageSize: 1, pageToken: first.nextPageToken }))).map(entry)).toEqual(['movie-all@1500000']);

    await maqam.library.hideFromContinueWatching({ movies: ['movie-all'] });
    expect(await shelf()).toEqual(['ep-doc-1@900000']);
    await maqam.library.hideFromContinueWatching({ movies: ['movie-all'], episodes: ['ep-doc-1'] }); // hiding again succeeds
    expect(await shelf()).toEqual([]);
    await expect(maqam.library.hideFromContinueWatching({ episodes: ['ep-nope'] })).rejects.toBeInstanceOf(NotFoundError);

    // Hidden, not forgotten: the next report brings the film back, and a report under 5 % brings it back where it was.
    expect(await client.library.progress.report([film(1_600_000, at(4))])).toEqual([{ positionMs: 1_600_000, finished: false }]);
    expect(await client.library.progress.report([{ episodeId: { value: 'ep-doc-1' }, positionMs: 0, reportedAt: at(5) }])).toEqual([{ positionMs: 900_000, finished: false }]);
    expect(await shelf()).toEqual(['ep-doc-1@900000', 'movie-all@1600000']);
  });

  it('WatchReporter: a play-pause-seek-end session arrives in order, each report later than the one before, and finishes the title', async () => {
    const { calls, fetchFn, reports } = recording('/v1/library/progress:report');
    const client = await running.signedIn('read stream write', fetchFn);
    let now = Date.now() - HOUR;
    const results: ProgressResult[] = [];
    const reporter = client.watchReporter({ now: () => now, onReported: (answered) => results.push(...answered) });
    const title: PlayableTitle = { movieId: 'movie-unrated' }; // 5,000,000 ms, no credits: finished at 4,500,000

    reporter.play(title, 0);
    expect(reporter.current).toEqual(title);
    for (let position = 1_000; position <= 25_000; position += 1_000) {
      now += 1_000;
      reporter.timeUpdate(position); // reported every 10 s of playback: at 10 and 20 s
    }
    now += 500;
    reporter.pause(25_500);
    now += 5 * MINUTE; // paused
    reporter.play(title, 25_500); // goes on: nothing to report
    reporter.pause(25_500); // nothing moved: nothing to report
    now += 2_000;
    reporter.seek(2_000_000);
    await reporter.flush();
    // Past 5 %, the seek moved the resume point; the reports under 5 % did not start one.
    expect(await shelf()).toEqual(['movie-unrated@2000000', 'ep-doc-1@900000', 'movie-all@1600000']);

    now += 10_000;
    reporter.timeUpdate(2_010_000);
    reporter.seek(4_700_000); // the same millisecond as the time update, and as the end
    reporter.end(5_000_000);
    expect(reporter.current).toBeUndefined();
    await reporter.flush();

    const sent = reports();
    expect(sent.map((report) => [report.movieId?.value, report.positionMs, report.restart])).toEqual([
      ['movie-unrated', 10_000, undefined], ['movie-unrated', 20_000, undefined], ['movie-unrated', 25_500, undefined], ['movie-unrated', 2_000_000, undefined],
      ['movie-unrated', 2_010_000, undefined], ['movie-unrated', 4_700_000, undefined], ['movie-unrated', 5_000_000, undefined],
    ]);
    const times = sent.map((report) => Date.parse(report.reportedAt));
    expect(times.every((time, i) => i === 0 || time > times[i - 1]!)).toBe(true);
    // The time each position was seen, not the time it was sent: 10 s of playback after the start.
    expect(times[0]).toBe(times[1]! - 10_000);
    expect(calls.every((call) => /^[0-9a-f]{32}$/.test(call.idempotencyKey ?? ''))).toBe(true);
    expect(results).toHaveLength(7);
    expect(results.at(-1)).toEqual({ positionMs: 5_000_000, finished: true });
    expect(results.at(-2)).toEqual({ positionMs: 4_700_000, finished: true });
    expect(await shelf()).toEqual(['ep-doc-1@900000', 'movie-all@1600000']);
    expect(await reporter.pending()).toEqual([]);
  });

  it('WatchReporter: restart() sends the viewer back to the start, where a seek to the start does not move the resume point', async () => {
    const { fetchFn, reports } = recording('/v1/library/progress:report');
    const client = await running.signedIn('read stream write', fetchFn);
    let now = Date.now() - HOUR;
    const reporter = client.watchReporter({ now: () => now });
    const show = async () => (await shelf()).filter((item) => item.startsWith('ep-d2-'));

    reporter.play({ episodeId: 'ep-d2-2' }, 0);
    now += 1_000;
    reporter.seek(1_200_000);
    await reporter.flush();
    expect(await show()).toEqual(['ep-d2-2@1200000']);

    now += 1_000;
    reporter.seek(0); // a player that jumps to 0 (or reports 0 on a failed start) must not lose the place
    await reporter.flush();
    expect(await show()).toEqual(['ep-d2-2@1200000']);

    now += 1_000;
    reporter.restart();
    await reporter.flush();
    expect(await show()).toEqual(['ep-d2-2@0']);
    expect(reports().map((report) => [report.episodeId?.value, report.positionMs, report.restart])).toEqual([
      ['ep-d2-2', 1_200_000, undefined], ['ep-d2-2', 0, undefined], ['ep-d2-2', 0, true],
    ]);
  });

  it('WatchReporter offline keeps its queue (in the storage given) and delivers it later, never moving the resume point backwards', async () => {
    let offline = true;
    const { calls, fetchFn, reports } = recording('/v1/library/progress:report', () => offline);
    const client = await running.signedIn('read stream write', fetchFn);
    const storage = memoryTokens();
    let now = Date.now() - HOUR;
    const reporter = client.watchReporter({ storage, now: () => now });

    reporter.play({ movieId: 'movie-adult' }, 1_000_000); // 6,000,000 ms, resumed past 5 %
    now += 10_000;
    reporter.timeUpdate(1_010_000);
    now += 20_000;
    reporter.pause(1_030_000);
    await reporter.flush();
    expect(calls.length).toBeGreaterThan(0); // it tried, and failed
    const queued = await reporter.pending();
    expect(queued.map((report) => [report.movieId?.value, report.positionMs])).toEqual([['movie-adult', 1_010_000], ['movie-adult', 1_030_000]]);
    expect(JSON.parse((await storage.get('maqam:progress'))!)).toEqual(queued);
    await reporter.flush(); // failing again loses nothing
    expect(await reporter.pending()).toEqual(queued);
    expect(await shelf()).not.toContain('movie-adult@1030000');

    // Meanwhile the viewer went on on another device, later than this one's reports.
    now += 10 * MINUTE;
    expect(await maqam.library.progress.report([{ movieId: { value: 'movie-adult' }, positionMs: 3_000_000, reportedAt: new Date(now).toISOString() }]))
      .toEqual([{ positionMs: 3_000_000, finished: false }]);

    // Back online, the page reloaded: a new reporter over the same storage delivers the queue as it was made.
    offline = false;
    const results: ProgressResult[] = [];
    const reloaded = client.watchReporter({ storage, now: () => now, onReported: (answered) => results.push(...answered) });
    await reloaded.flush();
    expect(await reloaded.pending()).toEqual([]);
    expect(await storage.get('maqam:progress')).toBeNull();
    expect(reports().slice(-2)).toEqual(queued);
    expect(reports().every((report) => queued.some((kept) => kept.reportedAt === report.reportedAt && kept.positionMs === report.positionMs))).toBe(true);
    expect(results).toEqual([{ positionMs: 3_000_000, finished: false }, { positionMs: 3_000_000, finished: false }]);
    expect(await shelf()).toContain('movie-adult@3000000');
  });

  it('acquireVideo: a title without video and an unknown title are NotFoundError; the body names the title; a billable acquisition is not retried', async () => {
    let failing = false;
    const { calls, fetchFn } = recording('/v1/streaming/video', () => failing);
    const client = await running.signedIn('read stream write', fetchFn);
    const notFound = async (title: PlayableTitle) => {
      const error = await client.streaming.acquireVideo(title, { maxQuality: 'VIDEO_QUALITY_HD', locale: 'en' }).then(() => undefined, (e: unknown) => e);
      expect(error).toBeInstanceOf(NotFoundError);
      return (error as NotFoundError).message;
    };
    expect(await notFound({ movieId: 'movie-all' })).toBe('"movie-all" has no playable video yet.');
    expect(await notFound({ episodeId: 'ep-d1-1' })).toBe('"ep-d1-1" has no playable video yet.');
    expect(await notFound({ movieId: 'movie-nope' })).toBe('No film with id "movie-nope".');
    expect(await notFound({ episodeId: 'ep-nope' })).toBe('No episode with id "ep-nope".');
    expect(calls.map((call) => call.body)).toEqual([
      { movieId: { value: 'movie-all' }, maxQuality: 'VIDEO_QUALITY_HD' }, { episodeId: { value: 'ep-d1-1' }, maxQuality: 'VIDEO_QUALITY_HD' },
      { movieId: { value: 'movie-nope' }, maxQuality: 'VIDEO_QUALITY_HD' }, { episodeId: { value: 'ep-nope' }, maxQuality: 'VIDEO_QUALITY_HD' },
    ]);
    expect(calls.every((call) => call.idempotencyKey === null)).toBe(true);

    failing = true;
    await expect(client.streaming.acquireVideo({ movieId: 'movie-all' })).rejects.toBeInstanceOf(NetworkError);
    expect(calls).toHaveLength(5);
    expect(calls[4]?.body).toEqual({ movieId: { value: 'movie-all' } });

    const withKey = new MaqamClient({ baseUrl: running.baseUrl, apiKey: server.apiKey });
    await expect(withKey.streaming.acquireVideo({ movieId: 'movie-all' })).rejects.toBeInstanceOf(PermissionDeniedError);
  });

  it.skipIf(!haveFfmpeg)('acquireVideo of a packaged title answers a signed master playlist with the qualities it was packaged in', async () => {
    // Three seconds of ffmpeg's test picture and a tone, packaged as `maqam media add-video movie-packaged FILE` would.
    const source = join(dir, 'short.mp4');
    const made = spawnSync('ffmpeg', [
      '-hide_banner', '-loglevel', 'error', '-nostdin', '-y', '-f', 'lavfi', '-i', 'testsrc2=size=320x240:rate=15:duration=3', '-f', 'lavfi', '-i', 'sine=frequency=440:duration=3',
      '-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-shortest', source,
    ]);
    expect(made.status, made.stderr.toString()).toBe(0);
    await addVideo(server.storage.db, media, { kind: 'movie', id: 'movie-packaged' }, source);

    const { stream } = await maqam.streaming.acquireVideo({ movieId: 'movie-packaged' }, { maxQuality: 'VIDEO_QUALITY_HD' });
    expect(stream.manifestUrl.startsWith(`${running.baseUrl}/v1/streaming/video/`)).toBe(true);
    expect(stream).toMatchObject({ expiresInSeconds: 300, drmScheme: 'DRM_SCHEME_UNSPECIFIED', licenseUrl: '', drmParams: {} });
    expect(stream.availableQualities).toEqual([{ label: 'VIDEO_QUALITY_SD', bitrateKbps: expect.any(Number), codec: expect.stringMatching(/^avc1\./) }]);
    const master = await fetch(stream.manifestUrl);
    expect(master.status).toBe(200);
    expect(master.headers.get('content-type')).toMatch(/^application\/vnd\.apple\.mpegurl/);
    const playlist = await master.text();
    expect(playlist.startsWith('#EXTM3U')).toBe(true);
    expect(playlist.match(/#EXT-X-STREAM-INF:/g)).toHaveLength(1);
  }, 60_000);

  it('asserts its arguments before sending anything', async () => {
    const { calls, fetchFn } = recording('/v1/library/progress:report');
    const client = await running.signedIn('read stream write', fetchFn);
    await expect(client.streaming.acquireVideo({} as PlayableTitle)).rejects.toThrow(TypeError);
    await expect(client.streaming.acquireVideo({ movieId: 'movie-all', episodeId: 'ep-d1-1' } as unknown as PlayableTitle)).rejects.toThrow(TypeError);
    await expect(client.streaming.acquireVideo({ movieId: '' })).rejects.toThrow(TypeError);
    await expect(client.library.progress.report([])).rejects.toThrow(TypeError);
    await expect(client.library.progress.report(Array.from({ length: 51 }, () => ({ movieId: { value: 'movie-all' }, positionMs: 0, reportedAt: new Date().toISOString() })))).rejects.toThrow(TypeError);
    await expect(client.library.hideFromContinueWatching({})).rejects.toThrow(TypeError);
    await expect(client.library.hideFromContinueWatching({ movies: [''] })).rejects.toThrow(TypeError);
    const reporter = client.watchReporter();
    expect(() => reporter.play({ showId: 'show-doc' } as unknown as PlayableTitle, 0)).toThrow(TypeError);
    expect(() => reporter.play({ movieId: 'movie-all' }, Number.NaN)).toThrow(TypeError);
    reporter.play({ movieId: 'movie-all' }, 0);
    expect(() => reporter.timeUpdate(-1)).toThrow(TypeError);
    expect(() => reporter.seek(Number.NaN)).toThrow(TypeError);
    expect(() => reporter.pause(undefined as unknown as number)).toThrow(TypeError);
    await reporter.flush();
    expect(calls).toEqual([]);
  });

  it('acquireVideo of a title above the viewer\'s parental cap is PermissionDeniedError, and continue watching leaves it out', async () => {
    expect(await shelf()).toContain('movie-adult@3000000');
    await createUsersService(server.storage.db).setMaxAgeRating('layla', 'AGE_RATING_13');
    await expect(maqam.streaming.acquireVideo({ movieId: 'movie-adult' })).rejects.toBeInstanceOf(PermissionDeniedError);
    expect((await shelf()).filter((item) => item.startsWith('movie-adult'))).toEqual([]);
  });
});
