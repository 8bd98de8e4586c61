import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidRequestError, memoryTokens, PlayReporter, type Change, type FetchLike, type Play } from '@maqam/sdk';
import type { TestServer } from '../../server/test/harness.ts';
import { listeningServer } from './signed-in.ts';

/** The library through the SDK, against the real server (listening), signed in with the write scope. */
describe('the SDK\'s library, history and PlayReporter', () => {
  let running: Awaited<ReturnType<typeof listeningServer>>;
  let server: TestServer;

  beforeAll(async () => {
    running = await listeningServer('nadia');
    ({ server } = running);
  });
  afterAll(async () => server?.close());

  /** A client signed in through the page as nadia, over `fetchFn` when given. */
  const signedIn = (fetchFn?: FetchLike) => running.signedIn('read stream write', fetchFn);

  it('saves, checks, lists and removes, and the change feed keeps its cursor across syncs', async () => {
    const maqam = await signedIn();
    expect((await maqam.library.me()).username).toBe('nadia');
    const feed = maqam.library.changes();
    for await (const change of feed) throw new Error(`a first sync only marks now, not ${JSON.stringify(change)}`);
    expect(feed.cursor).toEqual(expect.any(String));

    const saved = await maqam.library.save({ songs: ['song-ar', 'nope'], albums: ['album-1'] });
    expect(saved.songs.get('song-ar')?.savedAt).toEqual(expect.any(String));
    expect(saved.songs.get('nope')?.error?.code).toBe('ERROR_CODE_NOT_FOUND');
    expect((await maqam.library.check({ songs: ['song-ar', 'song-en'] })).songs).toEqual(new Map([['song-ar', { saved: true, savedAt: saved.songs.get('song-ar')!.savedAt }], ['song-en', { saved: false }]]));
    const listed = [];
    for await (const item of maqam.library.list({ pageSize: 1 })) listed.push(item.song?.id?.value ?? item.album?.id.value);
    expect(listed.sort()).toEqual(['album-1', 'song-ar']);
    await maqam.library.follow(['artist-ar']);
    expect((await maqam.library.isFollowing(['artist-ar', 'artist-en'])).get('artist-en')).toEqual({ following: false });
    const followed = [];
    for await (const { artist } of maqam.library.followed()) followed.push(artist.id.value);
    expect(followed).toEqual(['artist-ar']);
    await maqam.library.remove({ albums: ['album-1'] });
    await maqam.library.unfollow(['artist-ar']);

    const next = maqam.library.changes({ cursor: feed.cursor });
    const changes: Change[] = [];
    for await (const change of next) changes.push(change);
    expect(changes.map((c) => `${c.change} ${c.kind} ${c.id}`)).toEqual([
      'CHANGE_SAVED song song-ar', 'CHANGE_SAVED album album-1', 'CHANGE_SAVED artist artist-ar', 'CHANGE_REMOVED album album-1', 'CHANGE_REMOVED artist artist-ar',
    ]);
    const again: Change[] = [];
    for await (const change of maqam.library.changes({ cursor: next.cursor })) again.push(change);
    expect(again).toEqual([]);
    await expect(maqam.library.save({})).rejects.toThrow(TypeError);
  });

  it('retries a write whose answer was lost with the same Idempotency-Key, so it applies once', async () => {
    const keys: string[] = [];
    let dropped = false;
    const maqam = await signedIn(async (input, init) => {
      const response = await fetch(input, init);
      if (new URL(input).pathname === '/v1/library/saved:batchRemove') {
        keys.push(new Headers(init?.headers).get('idempotency-key') ?? '(none)');
        // The first answer is lost on the way back, after the server applied the write.
        if (!dropped) {
          dropped = true;
          throw new TypeError('fetch failed');
        }
      }
      return response;
    });
    await maqam.library.save({ songs: ['song-fr'] });
    const feed = maqam.library.changes();
    for await (const _ of feed) void _;
    await maqam.library.remove({ songs: ['song-fr'] });
    expect(keys).toHaveLength(2);
    expect(keys[0]).toMatch(/^[0-9a-f]{32}$/);
    expect(keys[1]).toBe(keys[0]);
    const changes: Change[] = [];
    for await (const change of maqam.library.changes({ cursor: feed.cursor })) changes.push(change);
    expect(changes.map((c) => c.change)).toEqual(['CHANGE_REMOVED']);
  });

  it('PlayReporter measures time played, queues plays while offline and reports each playId once', async () => {
    // The app's clock; the server's is the real one, so the plays are an hour old to it.
    let now = Date.now() - 3_600_000;
    server.app.log.level = 'silent';
    let online = false;
    const reports: Play[][] = [];
    const maqam = await signedIn(async (input, init) => {
      if (new URL(input).pathname === '/v1/library/history:report') {
        reports.push((JSON.parse(String(init?.body)) as { plays: Play[] }).plays);
        if (!online) throw new TypeError('offline');
      }
      return fetch(input, init);
    });
    const storage = memoryTokens();
    const reporter = maqam.playReporter({ storage, now: () => now });
    reporter.start('song-ar', { durationMs: 215_000, context: { albumId: { value: 'album-1' } } });
    now += 20_000;
    reporter.pause();
    now += 60_000; // paused: does not count
    reporter.resume();
    reporter.seek();
    now += 15_000;
    const first = reporter.end();
    expect(first).toMatchObject({ songId: 'song-ar', msPlayed: 35_000, counted: true });
    reporter.start('song-en', { durationMs: 215_000 });
    now += 5_000;
    const last = reporter.start('song-fr', { durationMs: 215_000 }); // ends the song-en play, a skip
    now += 31_000;
    expect(reporter.end()).toMatchObject({ playId: last, msPlayed: 31_000, counted: true });
    await reporter.flush();
    expect((await reporter.pending()).map((play) => play.songId.value)).toEqual(['song-ar', 'song-en', 'song-fr']);
    expect(await storage.get('maqam:plays')).toContain('song-ar');

    // Sent twice (the offline attempt may have reached the server): recorded once.
    online = true;
    await reporter.flush();
    expect(await reporter.pending()).toEqual([]);
    const sent = reports.flat().filter((play) => play.playId === first!.playId);
    expect(sent.length).toBeGreaterThanOrEqual(2);
    expect(await maqam.history.report([sent[0]!])).toEqual(new Map([[first!.playId, { counted: true }]]));
    const history = [];
    for await (const entry of maqam.history.list()) history.push([entry.song.id?.value, entry.msPlayed, entry.context]);
    expect(history).toEqual([['song-fr', 31_000, undefined], ['song-ar', 35_000, { albumId: { value: 'album-1' } }]]);
  });

  it('PlayReporter counts half of a song shorter than a minute, and drops a report the API refuses as malformed', async () => {
    let now = 0;
    let refuse = true;
    const sent: Play[][] = [];
    const reporter = new PlayReporter(async (plays) => {
      sent.push([...plays]);
      if (refuse) throw new InvalidRequestError('refused', { code: 'ERROR_CODE_INVALID_REQUEST', status: 400 });
      return new Map(plays.map((play) => [play.playId, { counted: true }]));
    }, { now: () => now });
    reporter.start('short', { durationMs: 40_000 });
    now += 19_999;
    expect(reporter.end()?.counted).toBe(false);
    reporter.start('short', { durationMs: 40_000 });
    now += 20_000;
    expect(reporter.end()?.counted).toBe(true);
    await reporter.flush();
    expect(await reporter.pending()).toEqual([]);
    refuse = false;
    await reporter.flush();
    expect(sent.flat()).toHaveLength(2);
  });
});
