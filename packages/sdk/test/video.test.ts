// The video side of the SDK (contract section 15) through its public API,
// against the real server listening, over the fixture catalog and a small
// video catalog imported beside it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ImportRecord } from '@maqam/contract';
import { createUsersService, importNdjsonFile } from '@maqam/server';
import { MaqamClient, NotFoundError, type Episode, type FetchLike, type SearchResult, type Show, type SoundtrackTitle, type VideoTitle } from '@maqam/sdk';
import { writeNdjson } from '../../server/test/fixtures.ts';
import type { TestServer } from '../../server/test/harness.ts';
import { listeningServer } from './signed-in.ts';

const image = (id: string) => [{ url: `https://img.test/${id}.jpg`, width: 640, height: 360 }];

/** Season 1's visible episodes: numbers imported out of order, ids whose order is not the numbers' (ep-g is 1, ep-a is 7). */
const SEASON_1 = [5, 2, 7, 1, 3, 6, 4].map((number) => ({ number, id: `ep-${'gfedcba'[number - 1]}` }));

function episode(id: string, seasonId: string, episodeNumber: number, extra: object = {}): ImportRecord {
  return {
    kind: 'episode', id, seasonId, episodeNumber, title: { ar: `الحلقة ${episodeNumber}`, en: `Episode ${episodeNumber}` }, originalLanguage: 'ar',
    durationMs: 2_400_000, airDate: '2010-08-01', artwork: image(id), audioLanguages: ['ar'], subtitleLanguages: ['en', 'fr'], ...extra,
  } as ImportRecord;
}

/**
 * A show of two seasons (season 2 imported first), seven episodes in season 1
 * and a withdrawn eighth, three films (one rated 18) and soundtracks that list
 * the fixture's songs in an order that is neither their ids' nor their titles'.
 */
const VIDEO: ImportRecord[] = [
  {
    kind: 'show', id: 'show-kabeer', title: { ar: 'الكبير أوي', en: 'El Kabeer Awy' }, originalLanguage: 'ar', description: { ar: 'كوميديا صعيدية', en: 'An Upper Egypt comedy' },
    genres: ['comedy'], ageRating: 'AGE_RATING_13', releaseYear: 2010, artwork: image('show-kabeer'),
    cast: [{ id: 'person-1', name: { ar: 'أحمد مكي', en: 'Ahmed Mekky' }, role: 'El Kabeer', isLead: true }, { id: 'person-2', name: { ar: 'دنيا سمير غانم' }, role: 'Hadia' }],
    soundtrack: ['song-fr', 'song-ar', 'song-en'],
  },
  { kind: 'season', id: 'season-2', showId: 'show-kabeer', seasonNumber: 2, title: { ar: 'الموسم الثاني', en: 'Season 2' }, originalLanguage: 'ar', airDate: '2011-08-01' },
  { kind: 'season', id: 'season-1', showId: 'show-kabeer', seasonNumber: 1, title: { ar: 'الموسم الأول', en: 'Season 1' }, originalLanguage: 'ar', airDate: '2010-08-01' },
  ...SEASON_1.map(({ id, number }) => episode(id, 'season-1', number)),
  episode('ep-withdrawn', 'season-1', 8, { withdrawn: true }),
  episode('ep-s2', 'season-2', 1, { creditsStartMs: 2_300_000 }),
  {
    kind: 'movie', id: 'movie-night', title: { ar: 'سوق الليل', en: 'The Night Market' }, originalLanguage: 'ar', genres: ['drama'], ageRating: 'AGE_RATING_ALL',
    releaseDate: '2019-03-14', durationMs: 6_000_000, artwork: image('movie-night'), audioLanguages: ['ar', 'en'], subtitleLanguages: ['en'],
    cast: [{ id: 'person-3', name: { ar: 'منى زكي', en: 'Mona Zaki' }, isLead: true }], soundtrack: ['song-en', 'song-ar'],
  },
  { kind: 'movie', id: 'movie-dark', title: { en: 'Dark Harbour Nights' }, originalLanguage: 'en', ageRating: 'AGE_RATING_18', releaseDate: '2021-10-01', durationMs: 5_400_000, soundtrack: ['song-ar'] },
  { kind: 'movie', id: 'movie-silent', title: { en: 'Harbour Lights' }, originalLanguage: 'en', ageRating: 'AGE_RATING_7', releaseDate: '1931-01-30', durationMs: 5_200_000 },
];

/** A fetch that counts the requests to each path. */
function countingFetch(): { fetchFn: FetchLike; count: (path: string) => number } {
  const counts = new Map<string, number>();
  const fetchFn: FetchLike = (input, init) => {
    const path = new URL(input).pathname;
    counts.set(path, (counts.get(path) ?? 0) + 1);
    return fetch(input, init);
  };
  return { fetchFn, count: (path) => counts.get(path) ?? 0 };
}

const titleId = (title: VideoTitle) => title.show?.id.value ?? title.movie?.id.value;
const resultId = (result: SearchResult) =>
  result.show?.id.value ?? result.movie?.id.value ?? result.song?.id.value ?? result.artist?.id.value ?? result.album?.id.value;

async function all<T>(items: AsyncIterable<T>): Promise<T[]> {
  const seen: T[] = [];
  for await (const item of items) seen.push(item);
  return seen;
}

describe('the SDK\'s video catalog', () => {
  let running: Awaited<ReturnType<typeof listeningServer>>;
  let server: TestServer;
  let maqam: MaqamClient;

  beforeAll(async () => {
    running = await listeningServer('salma');
    ({ server } = running);
    const dir = mkdtempSync(join(tmpdir(), 'maqam-sdk-video-'));
    try {
      const outcome = await importNdjsonFile(server.storage, writeNdjson(dir, 'video.ndjson', VIDEO));
      expect(outcome.errors).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    maqam = new MaqamClient({ baseUrl: running.baseUrl, apiKey: server.apiKey, locale: 'en' });
  });
  afterAll(async () => server?.close());

  it('gets a show with its cast and its seasons by number, in the locale asked for', async () => {
    const show: Show = await maqam.video.shows.get('show-kabeer');
    expect(show.id).toEqual({ value: 'show-kabeer' });
    expect(show.title).toEqual({ value: 'El Kabeer Awy', originalValue: 'الكبير أوي' });
    expect(show.ageRating).toBe('AGE_RATING_13');
    expect(show.releaseYear).toBe(2010);
    expect(show.cast.map((member) => [member.id, member.name.value, member.role, member.isLead])).toEqual([
      ['person-1', 'Ahmed Mekky', 'El Kabeer', true], ['person-2', 'دنيا سمير غانم', 'Hadia', false],
    ]);
    // The withdrawn episode is not counted; season 2 was imported first.
    expect(show.seasons.map((season) => [season.id.value, season.seasonNumber, season.episodeCount])).toEqual([['season-1', 1, 7], ['season-2', 2, 1]]);
    expect((await maqam.video.shows.get('show-kabeer', { locale: 'ar' })).title.value).toBe('الكبير أوي');
  });

  it('answers NotFoundError for an unknown or withdrawn title, and batches each kind with a per-item NOT_FOUND', async () => {
    await expect(maqam.video.shows.get('show-nope')).rejects.toBeInstanceOf(NotFoundError);
    await expect(maqam.video.seasons.get('season-nope')).rejects.toBeInstanceOf(NotFoundError);
    await expect(maqam.video.episodes.get('ep-withdrawn')).rejects.toBeInstanceOf(NotFoundError);
    await expect(maqam.video.movies.get('movie-nope')).rejects.toMatchObject({ code: 'ERROR_CODE_NOT_FOUND', status: 404 });

    const shows = await maqam.video.shows.batchGet(['nope', 'show-kabeer', 'nope']);
    expect([...shows.keys()]).toEqual(['nope', 'show-kabeer']);
    expect(shows.get('show-kabeer')?.show?.title.value).toBe('El Kabeer Awy');
    expect(shows.get('nope')?.error?.code).toBe('ERROR_CODE_NOT_FOUND');

    const seasons = await maqam.video.seasons.batchGet(['season-2', 'season-1', 'season-nope']);
    expect([...seasons].map(([id, result]) => [id, result.season?.seasonNumber ?? result.error?.code])).toEqual([
      ['season-2', 2], ['season-1', 1], ['season-nope', 'ERROR_CODE_NOT_FOUND'],
    ]);
    expect(seasons.get('season-1')?.season).toMatchObject({ showId: { value: 'show-kabeer' }, episodeCount: 7, title: { value: 'Season 1' } });

    const episodes = await maqam.video.episodes.batchGet(['ep-g', 'ep-withdrawn', 'ep-s2']);
    expect([...episodes].map(([id, result]) => [id, result.episode?.episodeNumber ?? result.error?.code])).toEqual([
      ['ep-g', 1], ['ep-withdrawn', 'ERROR_CODE_NOT_FOUND'], ['ep-s2', 1],
    ]);

    const movies = await maqam.video.movies.batchGet(['movie-silent', 'movie-nope', 'movie-night']);
    expect([...movies].map(([id, result]) => [id, result.movie?.title.value ?? result.error?.code])).toEqual([
      ['movie-silent', 'Harbour Lights'], ['movie-nope', 'ERROR_CODE_NOT_FOUND'], ['movie-night', 'The Night Market'],
    ]);
  });

  it('gets an episode and a film with every field the wire carries', async () => {
    const episode: Episode = await maqam.video.episodes.get('ep-s2', { locale: 'ar' });
    expect(episode).toMatchObject({
      id: { value: 'ep-s2' }, showId: { value: 'show-kabeer' }, seasonId: { value: 'season-2' }, seasonNumber: 2, episodeNumber: 1,
      title: { value: 'الحلقة 1', originalValue: 'الحلقة 1' }, durationMs: 2_400_000, airDate: '2010-08-01', creditsStartMs: 2_300_000,
      audioLanguages: ['ar'], subtitleLanguages: ['en', 'fr'], guestCast: [],
    });
    const movie = await maqam.video.movies.get('movie-night');
    expect(movie).toMatchObject({
      id: { value: 'movie-night' }, title: { value: 'The Night Market', originalValue: 'سوق الليل' }, ageRating: 'AGE_RATING_ALL',
      originalLanguage: 'ar', releaseDate: '2019-03-14', durationMs: 6_000_000, audioLanguages: ['ar', 'en'], subtitleLanguages: ['en'],
      genres: ['drama'], artwork: image('movie-night'),
    });
    expect(movie.cast.map((member) => member.name.value)).toEqual(['Mona Zaki']);
  });

  it('reads a season a page at a time, and walks every episode across pages in episode order', async () => {
    const first = await maqam.video.seasons.get('season-1', { pageSize: 3 });
    expect(first.season).toMatchObject({ id: { value: 'season-1' }, seasonNumber: 1, episodeCount: 7 });
    expect(first.items.map((e) => e.episodeNumber)).toEqual([1, 2, 3]);
    expect(first.episodes).toEqual(first.items);
    expect(first.nextPageToken).not.toBe('');
    const second = await maqam.video.seasons.get('season-1', { pageSize: 3, pageToken: first.nextPageToken });
    expect(second.items.map((e) => e.episodeNumber)).toEqual([4, 5, 6]);

    const { fetchFn, count } = countingFetch();
    const counted = new MaqamClient({ baseUrl: running.baseUrl, apiKey: server.apiKey, fetch: fetchFn, locale: 'en' });
    const episodes = await all(counted.video.seasons.episodes('season-1', { pageSize: 2 }));
    expect(episodes.map((e) => [e.episodeNumber, e.id.value])).toEqual(SEASON_1.toSorted((a, b) => a.number - b.number).map(({ number, id }) => [number, id]));
    expect(episodes.every((e) => e.seasonId.value === 'season-1' && e.seasonNumber === 1 && e.title.value === `Episode ${e.episodeNumber}`)).toBe(true);
    expect(count('/v1/video/seasons/season-1')).toBe(4); // 2 + 2 + 2 + 1

    // Started from a page's token, the walk goes on from there.
    expect((await all(maqam.video.seasons.episodes('season-1', { pageSize: 3, pageToken: first.nextPageToken }))).map((e) => e.episodeNumber)).toEqual([4, 5, 6, 7]);
    expect((await all(maqam.video.seasons.episodes('season-2'))).map((e) => e.id.value)).toEqual(['ep-s2']);
  });

  it('lists a soundtrack in the order the title lists it, for a show and for a film', async () => {
    const ids = async (title: SoundtrackTitle, pageSize?: number) => (await all(maqam.video.soundtrack(title, { pageSize }))).map((song) => song.id.value);
    expect(await ids({ showId: 'show-kabeer' }, 1)).toEqual(['song-fr', 'song-ar', 'song-en']);
    expect(await ids({ showId: 'show-kabeer' })).toEqual(['song-fr', 'song-ar', 'song-en']);
    expect(await ids({ movieId: 'movie-night' }, 1)).toEqual(['song-en', 'song-ar']);
    expect(await ids({ movieId: 'movie-silent' })).toEqual([]);

    const page = await maqam.video.listSoundtrack({ showId: 'show-kabeer' }, { pageSize: 2 });
    expect(page.items.map((song) => song.title.value)).toEqual(['الليل', 'Tamally Maak']); // song-fr has no English title: the server's default, Arabic
    expect(page.songs).toEqual(page.items);
    expect(page.nextPageToken).not.toBe('');
    await expect(maqam.video.listSoundtrack({ movieId: 'movie-nope' })).rejects.toBeInstanceOf(NotFoundError);
  });

  it('lists the shows and films whose soundtrack lists a song, across pages', async () => {
    const titles = await all(maqam.songs.appearances('song-ar', { pageSize: 1 }));
    expect(titles.map(titleId).sort()).toEqual(['movie-dark', 'movie-night', 'show-kabeer']);
    expect(titles.every((title) => (title.show === undefined) !== (title.movie === undefined))).toBe(true);
    expect(titles.find((title) => title.show)?.show?.title.value).toBe('El Kabeer Awy');

    const page = await maqam.songs.listAppearances('song-fr');
    expect(page.items.map(titleId)).toEqual(['show-kabeer']);
    expect(page.titles).toEqual(page.items);
    expect(page.nextPageToken).toBe('');
    expect((await maqam.songs.listAppearances('song-withdrawn').catch((e: unknown) => e))).toBeInstanceOf(NotFoundError);
  });

  it('searches shows and films when types names them, and music alone by default', async () => {
    const movies = await all(maqam.searchAll('Harbour', { types: ['movie'] }));
    expect(movies.map(resultId).sort()).toEqual(['movie-dark', 'movie-silent']);
    expect(movies.every((result) => result.movie !== undefined)).toBe(true);

    const shows = (await maqam.search('الكبير', { types: ['show', 'movie'] })).items;
    expect(shows.map(resultId)).toEqual(['show-kabeer']);
    expect(shows[0]?.show?.seasons.length).toBe(2);

    // Arabic script finds the film by its Arabic title, with types mixing music and video.
    const mixed = await all(maqam.searchAll('سوق الليل', { types: ['song', 'movie'] }));
    expect(mixed.map(resultId)).toContain('movie-night');

    // Without types, video is not searched.
    expect((await all(maqam.searchAll('Harbour'))).filter((result) => result.movie || result.show)).toEqual([]);
  });

  it('hides titles rated above a signed-in user\'s cap, everywhere the SDK reads them', async () => {
    await createUsersService(server.storage.db).setMaxAgeRating('salma', 'AGE_RATING_13');
    const capped = await running.signedIn('read');
    expect((await capped.library.me()).maxAgeRating).toBe('AGE_RATING_13');
    expect((await capped.video.shows.get('show-kabeer')).title.value).toBeTruthy();
    await expect(capped.video.movies.get('movie-dark')).rejects.toBeInstanceOf(NotFoundError);
    expect((await capped.video.movies.batchGet(['movie-dark', 'movie-silent'])).get('movie-dark')?.error?.code).toBe('ERROR_CODE_NOT_FOUND');
    expect((await all(capped.searchAll('Harbour', { types: ['movie'] }))).map(resultId)).toEqual(['movie-silent']);
    expect((await all(capped.songs.appearances('song-ar'))).map(titleId).sort()).toEqual(['movie-night', 'show-kabeer']);
    // The API key reads with no cap.
    expect((await maqam.video.movies.get('movie-dark')).ageRating).toBe('AGE_RATING_18');
  });

  it('asserts its arguments before sending anything', async () => {
    await expect(maqam.video.shows.get('')).rejects.toThrow(TypeError);
    await expect(maqam.video.movies.batchGet([''])).rejects.toThrow(TypeError);
    await expect(maqam.video.seasons.get('')).rejects.toThrow(TypeError);
    await expect(maqam.songs.listAppearances('')).rejects.toThrow(TypeError);
    await expect(maqam.video.listSoundtrack({} as SoundtrackTitle)).rejects.toThrow(TypeError);
    await expect(maqam.video.listSoundtrack({ showId: 'show-kabeer', movieId: 'movie-night' } as unknown as SoundtrackTitle)).rejects.toThrow(TypeError);
    await expect(all(maqam.video.soundtrack(undefined as unknown as SoundtrackTitle))).rejects.toThrow(TypeError);
  });
});
