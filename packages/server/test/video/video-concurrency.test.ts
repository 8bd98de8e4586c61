import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { SCOPE_NAMES, type ImportRecord } from '@maqam/contract';
import { createClientsService, createUsersService, seededRandom } from '@maqam/server';
import { dialects } from '../dialects.ts';
import { secondNode, startTestServer, type TestServer } from '../harness.ts';
import { REDIRECT, tokensFor } from '../oauth/oauth-helpers.ts';
import { importRecords } from './video-fixtures.ts';

const SHOWS = 40;
const SEASONS_PER_SHOW = 2;
const EPISODES_PER_SEASON = 8;
const MOVIES = 120;
const RATINGS = ['AGE_RATING_ALL', 'AGE_RATING_7', 'AGE_RATING_13', 'AGE_RATING_16', 'AGE_RATING_18', undefined] as const;
const WORKERS = 16;
const REQUESTS_PER_WORKER = 40;

/** A generated video catalog: every rating, unrated titles, episodes rated above their show, soundtracks of the fixture songs. */
function generatedVideo(): ImportRecord[] {
  const records: ImportRecord[] = [];
  const songs = ['song-ar', 'song-en', 'song-fr'];
  for (let s = 1; s <= SHOWS; s++) {
    const rating = RATINGS[s % RATINGS.length];
    records.push({
      kind: 'show', id: `show-${s}`, title: { ar: `مسلسل الحارة ${s}`, en: `Quarter Stories ${s}` }, originalLanguage: 'ar', releaseYear: 2000 + (s % 25),
      ...(rating && { ageRating: rating }), soundtrack: songs.slice(s % 3), cast: [{ id: `person-${s % 7}`, name: { ar: `ممثل ${s % 7}`, en: `Actor ${s % 7}` }, role: 'بطل', isLead: true }],
    });
    for (let n = 1; n <= SEASONS_PER_SHOW; n++) {
      records.push({ kind: 'season', id: `season-${s}-${n}`, showId: `show-${s}`, seasonNumber: n, title: { ar: `الموسم ${n}`, en: `Season ${n}` }, originalLanguage: 'ar' });
      for (let e = 1; e <= EPISODES_PER_SEASON; e++) {
        const own = (s + e) % 5 === 0 ? 'AGE_RATING_16' : undefined;
        records.push({
          kind: 'episode', id: `ep-${s}-${n}-${e}`, seasonId: `season-${s}-${n}`, episodeNumber: e, title: { ar: `الحلقة ${e}`, en: `Episode ${e}` },
          originalLanguage: 'ar', durationMs: 2_400_000 + e, ...(own && { ageRating: own }),
        });
      }
    }
  }
  for (let m = 1; m <= MOVIES; m++) {
    const rating = RATINGS[m % RATINGS.length];
    records.push({
      kind: 'movie', id: `movie-${m}`, title: { ar: `فيلم القمر ${m}`, en: `Moon Film ${m}` }, originalLanguage: m % 2 ? 'ar' : 'en', releaseDate: '2021-04-01',
      durationMs: 5_000_000 + m, ...(rating && { ageRating: rating }), soundtrack: songs.slice(m % 3),
    });
  }
  return records;
}

/**
 * Issue 53: every video answer under load is byte for byte its
 * single-threaded rendering, for a capped and an uncapped viewer in two
 * locales, on two nodes, while imports of the same titles keep replacing
 * them (each import changes the catalog version, which clears every node's
 * cache of rendered titles mid-load).
 */
describe.each(dialects.map((d) => [d.name, d] as const))('the video catalog under concurrency on %s', (_name, dialect) => {
  let server: TestServer;
  let other: { app: FastifyInstance; close(): Promise<void> };
  const viewers: { name: string; token: string }[] = [];
  const records = generatedVideo();
  const urls: { method: 'GET' | 'POST'; url: string; payload?: string }[] = [];
  const expected = new Map<string, { status: number; body: string }>();
  const withoutToken = (body: string) => body.replace(/"nextPageToken":"[^"]+"/, '"nextPageToken":"(a token)"');
  const key = (viewer: string, locale: string, request: { url: string; payload?: string }) => `${viewer} ${locale} ${request.url} ${request.payload ?? ''}`;

  const send = (app: FastifyInstance, token: string, locale: string, request: (typeof urls)[number]) =>
    app.inject({
      method: request.method, url: request.url,
      headers: { authorization: `Bearer ${token}`, 'accept-language': locale, ...(request.payload && { 'content-type': 'application/json' }) },
      ...(request.payload && { payload: request.payload }),
    });

  beforeAll(async () => {
    server = await startTestServer(dialect, { MAQAM_RATE_LIMIT: '0', MAQAM_SONG_CACHE_MB: '1' });
    expect((await importRecords(server.storage, records)).errors).toEqual([]);
    other = await secondNode(server, { MAQAM_RATE_LIMIT: '0', MAQAM_SONG_CACHE_MB: '1' });
    const users = createUsersService(server.storage.db);
    const client = await createClientsService(server.storage.db).create({ name: 'TV', redirectUris: [REDIRECT], scopes: [...SCOPE_NAMES] });
    for (const [name, cap] of [['kid', 'AGE_RATING_7'], ['teen', 'AGE_RATING_13'], ['adult', undefined]] as const) {
      await users.create(name, 'صوت الموسيقى 123');
      if (cap) await users.setMaxAgeRating(name, cap);
      viewers.push({ name, token: (await tokensFor(server, client.clientId, name, 'read')).access_token });
    }
    const random = seededRandom(53).next;
    const pick = (n: number) => 1 + Math.floor(random() * n);
    const idList = (member: string, make: () => string) => JSON.stringify({ [member]: Array.from({ length: 60 }, () => ({ value: make() })) });
    for (let i = 0; i < 12; i++) {
      urls.push(
        { method: 'GET', url: `/v1/video/shows/show-${pick(SHOWS)}` },
        { method: 'GET', url: `/v1/video/movies/movie-${pick(MOVIES)}` },
        { method: 'GET', url: `/v1/video/episodes/ep-${pick(SHOWS)}-${pick(SEASONS_PER_SHOW)}-${pick(EPISODES_PER_SEASON)}` },
        { method: 'GET', url: `/v1/video/seasons/season-${pick(SHOWS)}-${pick(SEASONS_PER_SHOW)}?page_size=5` },
        { method: 'GET', url: `/v1/video/shows/show-${pick(SHOWS)}/soundtrack` },
        { method: 'POST', url: '/v1/video/movies:batchGet', payload: idList('movieIdList', () => `movie-${pick(MOVIES + 10)}`) },
        { method: 'POST', url: '/v1/video/episodes:batchGet', payload: idList('episodeIdList', () => `ep-${pick(SHOWS)}-${pick(SEASONS_PER_SHOW)}-${pick(EPISODES_PER_SEASON)}`) },
        { method: 'POST', url: '/v1/video/shows:batchGet', payload: idList('showIdList', () => `show-${pick(SHOWS + 5)}`) },
      );
    }
    urls.push(
      { method: 'GET', url: '/v1/music/songs/song-ar/appearances?page_size=100' },
      { method: 'GET', url: `/v1/search?q=${encodeURIComponent('فيلم القمر')}&types=movie,show&page_size=50` },
      { method: 'GET', url: '/v1/search?q=quarter%20stories&types=show&page_size=50' },
    );
    for (const viewer of viewers) {
      for (const locale of ['ar', 'en']) {
        for (const request of urls) {
          const res = await send(server.app, viewer.token, locale, request);
          expect(res.statusCode === 200 || res.statusCode === 404, `${request.url} ${res.body.slice(0, 200)}`).toBe(true);
          expected.set(key(viewer.name, locale, request), { status: res.statusCode, body: withoutToken(res.body) });
        }
      }
    }
    // The walk must see capped viewers refused what others are answered, or it proves nothing about caps.
    const differs = urls.filter((request) => expected.get(key('kid', 'en', request))!.body !== expected.get(key('adult', 'en', request))!.body);
    expect(differs.length).toBeGreaterThan(urls.length / 3);
  }, 120_000);
  afterAll(async () => {
    await other?.close();
    await server?.close();
  });

  it('answers every request byte for byte its single-threaded rendering, on both nodes, while imports replace the same titles', async () => {
    let importing = true;
    let imports = 0;
    const churn = (async () => {
      while (importing) {
        const outcome = await importRecords(server.storage, records);
        expect(outcome.errors).toEqual([]);
        imports++;
      }
    })();
    const mismatches: string[] = [];
    let answers = 0;
    const worker = async (seed: number) => {
      const pick = seededRandom(seed).next;
      for (let n = 0; n < REQUESTS_PER_WORKER; n++) {
        const viewer = viewers[Math.floor(pick() * viewers.length)]!;
        const locale = pick() < 0.5 ? 'ar' : 'en';
        const request = urls[Math.floor(pick() * urls.length)]!;
        const app = pick() < 0.5 ? server.app : other.app;
        const res = await send(app, viewer.token, locale, request);
        const want = expected.get(key(viewer.name, locale, request))!;
        const body = res.statusCode === 404 ? res.body.replace(/"requestId":"[^"]+"/, '') : withoutToken(res.body);
        const wanted = want.status === 404 ? want.body.replace(/"requestId":"[^"]+"/, '') : want.body;
        if (res.statusCode !== want.status || body !== wanted) mismatches.push(`${viewer.name} ${locale} ${request.url}: ${res.statusCode} ${body.slice(0, 160)}`);
        answers++;
      }
    };
    await Promise.all(Array.from({ length: WORKERS }, (_, i) => worker(1000 + i)));
    importing = false;
    await churn;
    expect(answers).toBe(WORKERS * REQUESTS_PER_WORKER);
    expect(imports).toBeGreaterThan(0);
    expect(mismatches.slice(0, 3)).toEqual([]);
  }, 180_000);
});
