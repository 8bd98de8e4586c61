import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../dialects.ts';
import { startTestServer, type TestServer } from '../harness.ts';
import { importRecords, videoFixtureRecords } from './video-fixtures.ts';

describe.each(dialects.map((d) => [d.name, d] as const))('VideoCatalogService on %s', (_name, dialect) => {
  let server: TestServer;
  const get = async (url: string, locale = 'en') => server.call({ method: 'GET', url, headers: { 'accept-language': locale } });
  const post = async (url: string, body: unknown) => server.call({ method: 'POST', url, payload: body as object, headers: { 'accept-language': 'en' } });

  beforeAll(async () => {
    server = await startTestServer(dialect);
    const outcome = await importRecords(server.storage, videoFixtureRecords());
    expect(outcome.errors).toEqual([]);
    expect(outcome.summary).toMatchObject({ shows: 4, seasons: 4, episodes: 10, movies: 4 });
  }, 60_000);
  afterAll(async () => server?.close());

  it('answers a show with its seasons by number, counting their live episodes, its cast named in the locale', async () => {
    const res = await get('/v1/video/shows/show-drama');
    expect(res.statusCode, res.body).toBe(200);
    const { show } = res.json();
    expect(show).toEqual({
      id: { value: 'show-drama' },
      title: { value: 'Helmeya Nights', originalValue: 'ليالي الحلمية' },
      description: { value: 'A Ramadan drama of an old quarter.', originalValue: 'دراما رمضانية عن حارة قديمة.' },
      genres: ['drama'],
      ageRating: 'AGE_RATING_13',
      originalLanguage: 'ar',
      releaseYear: 2024,
      cast: [
        { id: 'person-1', name: { value: 'Mona Zaki', originalValue: 'منى زكي' }, role: 'نور', profileImageUrl: '', isLead: true },
        { id: 'person-2', name: { value: 'Karim Adel', originalValue: 'Karim Adel' }, role: 'Director', profileImageUrl: '', isLead: false },
      ],
      artwork: [{ url: 'http://127.0.0.1:8080/v1/artwork/show-drama.svg', width: 600, height: 900 }],
      seasons: [
        { id: { value: 'season-drama-1' }, seasonNumber: 1, episodeCount: 5, airDate: '2024-03-11' },
        { id: { value: 'season-drama-2' }, seasonNumber: 2, episodeCount: 2, airDate: '2025-03-01' },
      ],
    });
    expect((await get('/v1/video/shows/show-drama', 'ar')).json().show.title.value).toBe('ليالي الحلمية');
  });

  it('answers a film, an unrated title without ageRating, and 404 for unknown and withdrawn ids', async () => {
    const movie = (await get('/v1/video/movies/movie-all')).json().movie;
    expect(movie).toMatchObject({
      id: { value: 'movie-all' }, ageRating: 'AGE_RATING_ALL', releaseDate: '2023-06-01', durationMs: 5_400_000, creditsStartMs: 5_100_000,
      audioLanguages: ['ar', 'en'], subtitleLanguages: ['en'], cast: [{ id: 'person-1', role: 'سلمى', isLead: true }],
    });
    const unrated = (await get('/v1/video/movies/movie-unrated')).json().movie;
    expect(unrated).not.toHaveProperty('ageRating');
    expect(unrated.audioLanguages).toEqual(['ar']);
    for (const url of ['/v1/video/movies/movie-withdrawn', '/v1/video/movies/nope', '/v1/video/shows/nope', '/v1/video/seasons/nope', '/v1/video/episodes/ep-d1-6']) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(404);
      expect(res.json()).toMatchObject({ code: 'ERROR_CODE_NOT_FOUND' });
    }
  });

  it('answers an episode with its show, season and number; its own rating when it has one', async () => {
    const { episode } = (await get('/v1/video/episodes/ep-d1-3')).json();
    expect(episode).toMatchObject({
      id: { value: 'ep-d1-3' }, showId: { value: 'show-drama' }, seasonId: { value: 'season-drama-1' }, seasonNumber: 1, episodeNumber: 3,
      title: { value: 'Episode 3', originalValue: 'الحلقة 3' }, durationMs: 2_700_000, airDate: '2024-03-13', ageRating: 'AGE_RATING_16',
      guestCast: [], audioLanguages: ['ar'], subtitleLanguages: [], creditsStartMs: 2_580_000,
    });
    expect((await get('/v1/video/episodes/ep-d1-1')).json().episode).not.toHaveProperty('ageRating');
  });

  it('pages a season\'s episodes by number, the season alongside', async () => {
    const seen: string[] = [];
    let token = '';
    for (let page = 0; page < 5; page++) {
      const res = await get(`/v1/video/seasons/season-drama-1?page_size=2${token ? `&page_token=${encodeURIComponent(token)}` : ''}`);
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json();
      expect(body.season).toMatchObject({ id: { value: 'season-drama-1' }, showId: { value: 'show-drama' }, seasonNumber: 1, episodeCount: 5, title: { value: 'Season 1' } });
      seen.push(...body.episodes.map((e: { id: { value: string } }) => e.id.value));
      token = body.nextPageToken;
      if (token === '') break;
    }
    expect(seen).toEqual(['ep-d1-1', 'ep-d1-2', 'ep-d1-3', 'ep-d1-4', 'ep-d1-5']);
  });

  it('batch-gets each kind: every id a key, unknown ones a per-item NOT_FOUND, duplicates once', async () => {
    const cases = [
      ['/v1/video/shows:batchGet', 'showIdList', 'show', ['show-doc', 'nope', 'show-doc']],
      ['/v1/video/seasons:batchGet', 'seasonIdList', 'season', ['season-drama-2', 'nope']],
      ['/v1/video/episodes:batchGet', 'episodeIdList', 'episode', ['ep-d2-1', 'ep-d1-6']],
      ['/v1/video/movies:batchGet', 'movieIdList', 'movie', ['movie-all', 'movie-withdrawn']],
    ] as const;
    for (const [url, member, kind, ids] of cases) {
      const res = await post(url, { [member]: ids.map((value) => ({ value })) });
      expect(res.statusCode, res.body).toBe(200);
      const { results } = res.json();
      expect(Object.keys(results)).toEqual([...new Set(ids)]);
      expect(results[ids[0]]![kind].id.value).toBe(ids[0]);
      expect(results[ids[1]]!.error.code).toBe('ERROR_CODE_NOT_FOUND');
      // The same bytes as Get answers, from the cache or not.
      const single = (await get(`/v1/video/${kind}s/${ids[0]}`)).json();
      if (kind !== 'season') expect(results[ids[0]]).toEqual(single);
    }
    // proto3 JSON's snake_case name.
    const snake = await post('/v1/video/movies:batchGet', { movie_id_list: [{ value: 'movie-all' }] });
    expect(Object.keys(snake.json().results)).toEqual(['movie-all']);
  });

  it('answers soundtracks in listed order (withdrawn songs left out) and a song\'s appearances', async () => {
    const show = (await get('/v1/video/shows/show-drama/soundtrack')).json();
    expect(show.songs.map((s: { id: { value: string } }) => s.id.value)).toEqual(['song-ar', 'song-en', 'song-fr']);
    expect(show.nextPageToken).toBe('');
    const paged = (await get('/v1/video/movies/movie-all/soundtrack?page_size=1')).json();
    expect(paged.songs.map((s: { id: { value: string } }) => s.id.value)).toEqual(['song-fr']);
    const next = (await get(`/v1/video/movies/movie-all/soundtrack?page_size=1&page_token=${encodeURIComponent(paged.nextPageToken)}`)).json();
    expect(next.songs.map((s: { id: { value: string } }) => s.id.value)).toEqual(['song-ar']);
    expect((await get('/v1/video/movies/nope/soundtrack')).statusCode).toBe(404);

    const appearances = (await get('/v1/music/songs/song-ar/appearances')).json();
    expect(appearances.titles.map((t: Record<string, { id: { value: string } }>) => Object.entries(t).map(([k, v]) => `${k}:${v.id.value}`)[0])).toEqual([
      'movie:movie-adult', 'movie:movie-all', 'show:show-adult', 'show:show-drama',
    ]);
    expect(appearances.titles[1].movie.title.value).toBe('Desert Journey');
    expect((await get('/v1/music/songs/nope/appearances')).statusCode).toBe(404);
  });

  it('searches shows and films when types names them, with Arabic forms and transliteration; not by default', async () => {
    const search = async (q: string, types?: string) =>
      (await get(`/v1/search?q=${encodeURIComponent(q)}${types ? `&types=${types}` : ''}`)).json().results.map((r: Record<string, { id: { value: string } }>) => Object.entries(r).map(([k, v]) => `${k}:${v.id.value}`)[0]);
    expect(await search('الصحراء', 'movie')).toEqual(expect.arrayContaining(['movie:movie-all', 'movie:movie-unrated']));
    expect(await search('الصحراء', 'movie')).not.toContain('movie:movie-withdrawn');
    expect(await search('صحراء', 'show,movie')).toEqual(expect.arrayContaining(['movie:movie-all']));
    expect(await search('helmeya', 'show')).toEqual(['show:show-drama']);
    expect(await search('ليالي الحلميه', 'show')).toEqual(['show:show-drama']);
    expect(await search('Mona Zaki', 'movie,show')).toEqual(expect.arrayContaining(['movie:movie-all', 'show:show-drama']));
    expect(await search('desert')).toEqual([]);
    expect((await get('/v1/search?q=desert&types=show,film')).statusCode).toBe(400);
  });

  it('refuses bad references, all of a file\'s problems at once, and writes none of a bad batch', async () => {
    const outcome = await importRecords(server.storage, [
      { kind: 'season', id: 'season-x', showId: 'no-show', seasonNumber: 1, title: { en: 'X' }, originalLanguage: 'en' },
      { kind: 'episode', id: 'ep-x', seasonId: 'no-season', episodeNumber: 1, title: { en: 'X' }, originalLanguage: 'en', durationMs: 1 },
      { kind: 'episode', id: 'ep-y', seasonId: 'season-doc-1', showId: 'show-drama', episodeNumber: 9, title: { en: 'Y' }, originalLanguage: 'en', durationMs: 1 },
      { kind: 'movie', id: 'movie-x', title: { en: 'X' }, originalLanguage: 'en', releaseDate: '2020-02-30', durationMs: -1, ageRating: 'PG', soundtrack: ['no-song'] },
    ]);
    expect(outcome.errors.map((e) => `${e.line}: ${e.message}`)).toEqual([
      '1: references unknown show "no-show"',
      '2: references unknown season "no-season"',
      '3: episode names show "show-drama", but season "season-doc-1" is of show "show-doc"',
      '4: movie ageRating must be one of AGE_RATING_ALL, AGE_RATING_7, AGE_RATING_13, AGE_RATING_16, AGE_RATING_18',
      '4: movie releaseDate must be a real calendar date, YYYY-MM-DD',
      '4: movie durationMs must be >= 0',
      '4: references unknown song "no-song"',
    ]);
    expect((await get('/v1/video/seasons/season-x')).statusCode).toBe(404);
  });
});
