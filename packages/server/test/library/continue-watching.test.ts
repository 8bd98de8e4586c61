import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUsersService } from '@maqam/server';
import { dialects } from '../dialects.ts';
import { startTestServer, type TestServer } from '../harness.ts';
import { importRecords, videoFixtureRecords } from '../video/video-fixtures.ts';
import { asUser, libraryUser } from './library-helpers.ts';

const MINUTE = 60_000;
type Call = ReturnType<typeof asUser>;
interface Item { movie?: { id: { value: string } }; episode?: { id: { value: string } }; positionMs: number; updatedAt: string }

/**
 * Continue watching (issue 54, item 3; contract section 15), where the
 * peers lose places: an older report never wins, a failed start (a report
 * under 5 %) never replaces a resume point, a hidden title keeps its place,
 * the credits finish a title, and a show's next episode is the one after the
 * episode finished last, skipping those already seen.
 */
describe.each(dialects.map((d) => [d.name, d] as const))('continue watching on %s', (_name, dialect) => {
  let server: TestServer;
  let now = Date.parse('2026-11-20T10:00:00.000Z');
  let call: Call;
  let username: string;
  const at = (offsetMinutes: number) => new Date(now + offsetMinutes * MINUTE).toISOString();
  const list = async (as: Call = call): Promise<string[]> => {
    const res = await as('GET', '/v1/library/continue-watching');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    return (res.json().items as Item[]).map((item) => (item.movie ? `movie:${item.movie.id.value}` : `episode:${item.episode!.id.value}`) + `@${item.positionMs}`);
  };
  const report = async (progress: object[], as: Call = call, headers: Record<string, string> = {}) => {
    const res = await as('POST', '/v1/library/progress:report', { progress }, headers);
    expect(res.statusCode, res.body).toBe(200);
    return res.json().results as { positionMs?: number; finished?: boolean; error?: { code: string } }[];
  };
  const movie = (id: string, positionMs: number, reportedAt: string, restart?: boolean) => ({ movieId: { value: id }, positionMs, reportedAt, ...(restart === undefined ? {} : { restart }) });
  const episode = (id: string, positionMs: number, reportedAt: string) => ({ episodeId: { value: id }, positionMs, reportedAt });

  beforeAll(async () => {
    server = await startTestServer(dialect, { MAQAM_RATE_LIMIT: '0' }, { clock: () => now });
    const extra = [
      { kind: 'movie', id: 'movie-credits', title: { en: 'Credits Early' }, originalLanguage: 'en', ageRating: 'AGE_RATING_ALL', releaseDate: '2020-01-01', durationMs: 6_000_000, creditsStartMs: 4_800_000 },
    ];
    expect((await importRecords(server.storage, [...videoFixtureRecords(), ...extra])).errors).toEqual([]);
    const user = await libraryUser(server);
    username = user.user.username;
    call = asUser(server, user.write);
  }, 60_000);
  afterAll(async () => server?.close());

  it('keeps the latest report of a title, never an older one, and a report repeated changes nothing', async () => {
    expect(await report([movie('movie-all', 1_000_000, at(0))])).toEqual([{ positionMs: 1_000_000, finished: false }]);
    now += MINUTE;
    expect(await report([movie('movie-all', 500_000, at(-5))])).toEqual([{ positionMs: 1_000_000, finished: false }]);
    expect(await report([movie('movie-all', 2_000_000, at(-0.5))])).toEqual([{ positionMs: 2_000_000, finished: false }]);
    expect(await report([movie('movie-all', 2_000_000, at(-0.5))])).toEqual([{ positionMs: 2_000_000, finished: false }]);
    expect(await list()).toEqual(['movie:movie-all@2000000']);
  });

  it('never lets a failed start (under 5 %, or 0) replace a resume point, unless the viewer restarted; such a start enters nothing', async () => {
    now += MINUTE;
    expect(await report([movie('movie-all', 0, at(0))])).toEqual([{ positionMs: 2_000_000, finished: false }]);
    expect(await report([movie('movie-all', 100_000, at(0.1))])).toEqual([{ positionMs: 2_000_000, finished: false }]);
    expect(await list()).toEqual(['movie:movie-all@2000000']);
    expect(await report([movie('movie-unrated', 200_000, at(0.2))])).toEqual([{ positionMs: 0, finished: false }]);
    expect(await list()).toEqual(['movie:movie-all@2000000']);
    now += MINUTE;
    expect(await report([movie('movie-all', 60_000, at(0), true)])).toEqual([{ positionMs: 60_000, finished: false }]);
    expect(await list()).toEqual(['movie:movie-all@60000']);
  });

  it('finishes a title where its credits start, before 90 %, and says so in the change feed', async () => {
    const cursor = (await call('GET', '/v1/library/changes')).json().nextCursor as string;
    now += MINUTE;
    await report([movie('movie-credits', 1_000_000, at(0))]);
    expect(await list()).toEqual(['movie:movie-credits@1000000', 'movie:movie-all@60000']);
    now += MINUTE;
    expect(await report([movie('movie-credits', 4_800_000, at(0))])).toEqual([{ positionMs: 4_800_000, finished: true }]);
    expect(await list()).toEqual(['movie:movie-all@60000']);
    const changes = (await call('GET', `/v1/library/changes?cursor=${encodeURIComponent(cursor)}`)).json().changes;
    expect(changes).toEqual([{ kind: 'movie', id: 'movie-credits', change: 'CHANGE_UPDATED', at: expect.any(String) }]);
  });

  it('hides a title without forgetting its place; its next report brings it back where it was', async () => {
    now += MINUTE;
    const hidden = await call('POST', '/v1/library/continue-watching:hide', { movieIdList: [{ value: 'movie-all' }] });
    expect(hidden.statusCode, hidden.body).toBe(200);
    expect(await list()).toEqual([]);
    now += MINUTE;
    expect(await report([movie('movie-all', 0, at(0))])).toEqual([{ positionMs: 60_000, finished: false }]);
    expect(await list()).toEqual(['movie:movie-all@60000']);
    expect((await call('POST', '/v1/library/continue-watching:hide', { movieIdList: [{ value: 'nope' }] })).statusCode).toBe(404);
    // Hidden before it was ever started: a failed start does not bring it in (regression: it entered at 0).
    await call('POST', '/v1/library/continue-watching:hide', { episodeIdList: [{ value: 'ep-doc-1' }] });
    now += MINUTE;
    expect(await report([episode('ep-doc-1', 0, at(0))])).toEqual([{ positionMs: 0, finished: false }]);
    expect(await list()).toEqual(['movie:movie-all@60000']);
  });

  it("lists a show once, as its next episode after the one finished last, skipping episodes already seen", async () => {
    now += MINUTE;
    await report([episode('ep-d1-1', 1_000_000, at(0))]);
    expect((await list())[0]).toBe('episode:ep-d1-1@1000000');
    now += MINUTE;
    await report([episode('ep-d1-1', 2_500_000, at(0))]);
    expect((await list())[0]).toBe('episode:ep-d1-2@0');
    // Out of order: the fourth, then the second. Next is the third; after the third, the fifth (the fourth is seen).
    now += MINUTE;
    await report([episode('ep-d1-4', 2_600_000, at(0))]);
    now += MINUTE;
    await report([episode('ep-d1-2', 2_600_000, at(0))]);
    expect((await list())[0]).toBe('episode:ep-d1-3@0');
    now += MINUTE;
    await report([episode('ep-d1-3', 2_600_000, at(0))]);
    expect((await list())[0]).toBe('episode:ep-d1-5@0');
    expect((await list()).filter((item) => item.startsWith('episode:'))).toHaveLength(1);
  });

  it('drops a show whose last episode is finished, and brings it back when a new episode is imported', async () => {
    now += MINUTE;
    await report([episode('ep-d2-2', 2_600_000, at(0))]);
    expect((await list()).filter((item) => item.startsWith('episode:'))).toEqual([]);
    await importRecords(server.storage, [{
      kind: 'episode', id: 'ep-d2-3', seasonId: 'season-drama-2', episodeNumber: 3, title: { en: 'Episode 3' }, originalLanguage: 'ar', durationMs: 2_700_000,
    }]);
    expect((await list())[0]).toBe('episode:ep-d2-3@0');
  });

  it("skips a next episode above a capped viewer's cap, and refuses their reports of titles above it as unknown", async () => {
    const users = createUsersService(server.storage.db);
    await users.setMaxAgeRating(username, 'AGE_RATING_13');
    now += MINUTE;
    await report([episode('ep-d1-2', 2_600_000, at(0))]);
    // After the second: the third is rated 16 (hidden from this viewer), the fourth is seen: the fifth.
    expect((await list())[0]).toBe('episode:ep-d1-5@0');
    const refused = await report([movie('movie-adult', 1_000_000, at(0)), movie('movie-all', 1_000_000, at(0))]);
    expect(refused[0]!.error!.code).toBe('ERROR_CODE_NOT_FOUND');
    expect(refused[1]).toEqual({ positionMs: 1_000_000, finished: false });
    await users.setMaxAgeRating(username, 'none');
  });

  it('answers a retried report with its Idempotency-Key from the first answer, and refuses bad reports per item or whole', async () => {
    now += MINUTE;
    const key = { 'idempotency-key': 'progress-1' };
    const first = await report([movie('movie-unrated', 1_000_000, at(0))], call, key);
    const again = await report([movie('movie-unrated', 1_000_000, at(0))], call, key);
    expect(again).toEqual(first);
    const bad = await report([movie('movie-all', 1_000_000, at(10)), movie('movie-all', 1_000_000, at(-31 * 24 * 60)), movie('nope', 1, at(0))]);
    expect(bad.map((result) => result.error?.code)).toEqual(['ERROR_CODE_INVALID_REQUEST', 'ERROR_CODE_INVALID_REQUEST', 'ERROR_CODE_NOT_FOUND']);
    const both = await call('POST', '/v1/library/progress:report', { progress: [{ ...movie('movie-all', 1, at(0)), episodeId: { value: 'ep-d1-1' } }] });
    expect(both.statusCode).toBe(400);
    expect(both.json().violations[0].field).toBe('progress[0].movieId');
    expect((await server.app.inject({ method: 'GET', url: '/v1/library/continue-watching', headers: { 'x-api-key': server.apiKey } })).statusCode).toBe(403);
  });
});
