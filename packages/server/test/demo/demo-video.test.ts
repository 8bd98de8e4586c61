import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SaxesParser } from 'saxes';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CastMemberRecord, EpisodeRecord, ImportRecord, ImportSummary, MovieRecord, SeasonRecord, ShowRecord } from '@maqam/contract';
import { demoCatalogSize, generateDemoCatalog, importNdjsonFile, knownSongs, seedDemoCatalog } from '@maqam/server';
import { dialects } from '../dialects.ts';
import { writeNdjson } from '../fixtures.ts';
import { startTestServer, type TestServer } from '../harness.ts';
// Not exported by the package yet: `maqam serve --demo` would call it on a demo database seeded before the video.
import { seedDemoVideo } from '../../src/import/demo-catalog.ts';

/**
 * The demo's video catalog (issue 53, item 7): what `maqam serve --demo`
 * seeds for the Watch shelves. Curated titles a viewer recognises by kind,
 * a long tail in proportion to the songs, every record importable, every
 * reference after what it references, and artwork the server draws.
 */
const SONGS = 300;
const AGE_RATINGS = ['AGE_RATING_ALL', 'AGE_RATING_7', 'AGE_RATING_13', 'AGE_RATING_16', 'AGE_RATING_18'];

type VideoRecord = ShowRecord | SeasonRecord | EpisodeRecord | MovieRecord;
const isVideo = (record: ImportRecord): record is VideoRecord => ['show', 'season', 'episode', 'movie'].includes(record.kind);
const video = (options: Parameters<typeof generateDemoCatalog>[0]) => [...generateDemoCatalog(options)].filter(isVideo);

describe('the demo\'s video records', () => {
  const records = video({ songs: SONGS, knownArtists: true });
  const shows = records.filter((r): r is ShowRecord => r.kind === 'show');
  const seasons = records.filter((r): r is SeasonRecord => r.kind === 'season');
  const episodes = records.filter((r): r is EpisodeRecord => r.kind === 'episode');
  const movies = records.filter((r): r is MovieRecord => r.kind === 'movie');
  const byId = new Map(records.map((r) => [r.id, r]));

  it('has a Ramadan drama of several seasons, numbered 1..n, one episode an evening from the first of Ramadan', () => {
    const drama = shows.find((show) => show.genres?.includes('ramadan') && show.id === 'show-beit-al-karma')!;
    expect(drama.title).toEqual({ ar: 'بيت الكرمة', en: 'The House of the Vine' });
    const its = seasons.filter((season) => season.showId === drama.id);
    expect(its.map((season) => season.seasonNumber)).toEqual([1, 2, 3]);
    expect(its.map((season) => season.airDate)).toEqual(['2021-04-13', '2022-04-02', '2023-03-23']);
    for (const season of its) {
      const numbered = episodes.filter((episode) => episode.seasonId === season.id);
      expect(numbered.map((episode) => episode.episodeNumber)).toEqual(numbered.map((_, i) => i + 1));
      expect(numbered.length).toBeGreaterThanOrEqual(15);
      const day = (date: string) => Date.parse(`${date}T00:00:00Z`) / 86_400_000;
      expect(numbered.map((episode) => day(episode.airDate!) - day(season.airDate!))).toEqual(numbered.map((_, i) => i));
    }
  });

  it('has a Gulf comedy, documentary series, a cartoon, a thriller and at least six films', () => {
    expect(shows.find((show) => show.genres?.includes('khaleeji') && show.genres.includes('comedy'))?.title.ar).toBe('ديوانية بو صالح');
    expect(shows.filter((show) => show.genres?.includes('documentary')).length).toBeGreaterThanOrEqual(2);
    expect(shows.some((show) => show.genres?.includes('kids'))).toBe(true);
    expect(shows.some((show) => show.genres?.includes('thriller'))).toBe(true);
    expect(movies.filter((movie) => movie.id.startsWith('movie-') && !/^movie-\d+$/.test(movie.id)).length).toBeGreaterThanOrEqual(6);
  });

  it('titles every show, season, episode and film in Arabic and English', () => {
    for (const record of records) {
      expect(Object.keys(record.title).sort(), record.id).toEqual(['ar', 'en']);
      expect(record.description && Object.keys(record.description).sort(), record.id).toEqual(['ar', 'en']);
    }
  });

  it('rates titles from AGE_RATING_ALL to AGE_RATING_18, leaves one unrated, and rates an episode above its show', () => {
    const ratings = new Set([...shows, ...movies].map((title) => title.ageRating ?? 'unrated'));
    expect([...ratings].sort()).toEqual([...AGE_RATINGS, 'unrated'].sort());
    expect(movies.find((movie) => movie.id === 'movie-najmat-al-sabah')!.ageRating).toBeUndefined();
    const above = episodes.filter((episode) => {
      const show = byId.get(episode.showId!) as ShowRecord;
      return episode.ageRating !== undefined && AGE_RATINGS.indexOf(episode.ageRating) > AGE_RATINGS.indexOf(show.ageRating ?? 'AGE_RATING_18');
    });
    expect(above.map((episode) => episode.id)).toContain('episode-thill-al-madina-2-5');
  });

  it('casts every title with a lead and a director, each with a drawn portrait', () => {
    for (const title of [...shows, ...movies]) {
      const cast = title.cast as CastMemberRecord[];
      expect(cast.some((member) => member.isLead), title.id).toBe(true);
      expect(cast.some((member) => member.role === 'إخراج' || member.role === 'Director'), title.id).toBe(true);
      for (const member of cast) {
        expect(member.profileImageUrl).toBe(`/artwork/people/${member.id}.svg`);
        expect(member.role).not.toBe('');
      }
    }
    const rooftops = movies.find((movie) => movie.id === 'movie-sutouh-al-qahira')!;
    expect(rooftops.cast!.find((member) => member.isLead)).toMatchObject({ name: { ar: 'ياسمينة فوزي', en: 'Yasmina Fawzy' }, role: 'ملك' });
  });

  it('gives durations, credits inside them, air dates and languages to every episode and film', () => {
    for (const title of [...episodes, ...movies]) {
      expect(title.durationMs, title.id).toBeGreaterThan(60_000);
      expect(title.creditsStartMs, title.id).toBeGreaterThan(title.durationMs * 0.8);
      expect(title.creditsStartMs, title.id).toBeLessThan(title.durationMs);
      expect(title.audioLanguages!.length, title.id).toBeGreaterThan(0);
      expect(title.subtitleLanguages!.length, title.id).toBeGreaterThan(0);
    }
    for (const episode of episodes) expect(episode.airDate, episode.id).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const pearl = movies.find((movie) => movie.id === 'movie-the-pearl-diver')!;
    expect([pearl.originalLanguage, pearl.audioLanguages]).toEqual(['en', ['en', 'ar']]);
  });

  it('lists the known artists\' songs in the curated soundtracks', () => {
    const known = new Set(knownSongs().map((song) => song.id));
    const curated = [...shows, ...movies].filter((title) => !/^(show|movie)-\d+$/.test(title.id));
    for (const title of curated) {
      expect(title.soundtrack!.length, title.id).toBeGreaterThan(0);
      for (const songId of title.soundtrack!) expect(known.has(songId), `${title.id} ${songId}`).toBe(true);
    }
    expect(shows.find((show) => show.id === 'show-hikayat-al-tarab')!.soundtrack).toContain('song-umm-kulthum-enta-omri');
  });

  it.each([true, false])('lists every record after what it references (known artists: %s)', (knownArtists) => {
    const seen = new Set<string>();
    for (const record of generateDemoCatalog({ songs: SONGS, knownArtists })) {
      const references = record.kind === 'season' ? [`show:${record.showId}`]
        : record.kind === 'episode' ? [`season:${record.seasonId}`, `show:${record.showId}`]
        : record.kind === 'show' || record.kind === 'movie' ? (record.soundtrack ?? []).map((id) => `song:${id}`)
        : [];
      for (const reference of references) expect(seen.has(reference), `${record.kind} ${'id' in record ? record.id : ''} -> ${reference}`).toBe(true);
      if ('id' in record) seen.add(`${record.kind}:${record.id}`);
    }
  });

  it('is the same for the same seed, and leaves the music as it was', () => {
    expect(video({ songs: SONGS, knownArtists: true, seed: 4 })).toEqual(video({ songs: SONGS, knownArtists: true, seed: 4 }));
    expect(video({ songs: SONGS, seed: 4 })).not.toEqual(video({ songs: SONGS, seed: 5 }));
    const music = (withVideo: boolean) => [...generateDemoCatalog({ songs: SONGS, seed: 4, video: withVideo })].filter((record) => !isVideo(record));
    expect(music(true)).toEqual(music(false));
    expect([...generateDemoCatalog({ songs: SONGS, video: false })].some(isVideo)).toBe(false);
  });

  it('scales its long tail with the songs, as demoCatalogSize says', () => {
    for (const songs of [SONGS, 5_000]) {
      const size = demoCatalogSize(songs);
      const generated = video({ songs });
      expect(generated.filter((r) => r.kind === 'show').length, String(songs)).toBe(size.shows);
      expect(generated.filter((r) => r.kind === 'movie').length, String(songs)).toBe(size.movies);
    }
    expect(demoCatalogSize(50_000)).toMatchObject({ shows: 106, movies: 209 });
    expect(demoCatalogSize(1_000_000).shows - 6).toBe(2_000);
  });
});

describe.each(dialects.map((d) => [d.name, d] as const))('the demo\'s video catalog, seeded on %s', (_name, dialect) => {
  let server: TestServer;
  let summary: ImportSummary;
  const records = video({ songs: SONGS, knownArtists: true });
  const count = (kind: VideoRecord['kind']) => records.filter((r) => r.kind === kind).length;
  beforeAll(async () => {
    server = await startTestServer(dialect);
    // Small batches, so titles and what they reference are written by different transactions.
    summary = await seedDemoCatalog(server.storage, { songs: SONGS, knownArtists: true, batchSize: 500 });
  }, 120_000);
  afterAll(async () => server?.close());

  it('imports every record', async () => {
    expect(summary).toMatchObject({ shows: count('show'), seasons: count('season'), episodes: count('episode'), movies: count('movie') });
    const rows = async (table: 'shows' | 'seasons' | 'episodes' | 'movies') =>
      Number((await server.storage.db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
    expect([await rows('shows'), await rows('seasons'), await rows('episodes'), await rows('movies')])
      .toEqual([count('show'), count('season'), count('episode'), count('movie')]);
  });

  it('stores every soundtrack, each song a song of the catalog', async () => {
    const listed = records.reduce((n, r) => n + ((r.kind === 'show' || r.kind === 'movie') ? new Set(r.soundtrack).size : 0), 0);
    const stored = await server.storage.db.selectFrom('title_songs as t').leftJoin('songs as s', 's.id', 't.song_id').select(['t.song_id', 's.id as found']).execute();
    expect(stored.length).toBe(listed);
    expect(stored.filter((row) => row.found === null)).toEqual([]);
  });

  it('serves the Ramadan drama through GetShow and GetSeason, its pictures resolved against the public URL', async () => {
    const res = await server.call({ method: 'GET', url: '/v1/video/shows/show-beit-al-karma', headers: { 'accept-language': 'en' } });
    expect(res.statusCode, res.body).toBe(200);
    const { show } = res.json();
    expect(show.title.value).toBe('The House of the Vine');
    expect(show.seasons.map((season: { seasonNumber: number; episodeCount: number }) => [season.seasonNumber, season.episodeCount])).toEqual([[1, 30], [2, 30], [3, 15]]);
    expect(show.artwork[0]).toEqual({ url: 'http://127.0.0.1:8080/artwork/shows/show-beit-al-karma.svg', width: 400, height: 600 });
    expect(show.cast[0].profileImageUrl).toBe('http://127.0.0.1:8080/artwork/people/person-farouk-el-adawy.svg');
    const page = (await server.call({ method: 'GET', url: '/v1/video/seasons/season-beit-al-karma-3' })).json();
    expect(page.episodes.map((episode: { episodeNumber: number }) => episode.episodeNumber)).toEqual(Array.from({ length: 15 }, (_, i) => i + 1));
  });

  it('answers a documentary\'s soundtrack with the known artists\' songs, and a song\'s appearances with its titles', async () => {
    const tarab = records.find((r) => r.id === 'show-hikayat-al-tarab') as ShowRecord;
    const soundtrack = (await server.call({ method: 'GET', url: '/v1/video/shows/show-hikayat-al-tarab/soundtrack' })).json();
    expect(soundtrack.songs.map((song: { id: { value: string } }) => song.id.value)).toEqual(tarab.soundtrack);
    const appearances = (await server.call({ method: 'GET', url: '/v1/music/songs/song-fairuz-li-beirut/appearances' })).json();
    const titles = appearances.titles.map((title: { show?: { id: { value: string } }; movie?: { id: { value: string } } }) => (title.show ?? title.movie)!.id.value);
    expect(titles.sort()).toEqual(['movie-layl-al-hamra', 'show-thill-al-madina', ...records
      .filter((r): r is ShowRecord | MovieRecord => (r.kind === 'show' || r.kind === 'movie') && /-\d+$/.test(r.id) && (r.soundtrack ?? []).includes('song-fairuz-li-beirut'))
      .map((r) => r.id)].sort());
  });

  /** Parses as a strict XML parser does; answers the root's viewBox and label. */
  const svg = (xml: string) => {
    const parser = new SaxesParser({ xmlns: true });
    let root: { viewBox: string; label: string } | undefined;
    parser.on('opentag', (tag) => {
      root ??= { viewBox: (tag.attributes.viewBox as { value: string }).value, label: (tag.attributes['aria-label'] as { value: string }).value };
    });
    parser.on('error', (error) => {
      throw error;
    });
    parser.write(xml).close();
    return root!;
  };

  it('draws every kind of video artwork its records name, well-formed and wordless', async () => {
    const drama = records.find((r) => r.id === 'show-beit-al-karma') as ShowRecord;
    const season = records.find((r) => r.id === 'season-beit-al-karma-2') as SeasonRecord;
    const episode = records.find((r) => r.id === 'episode-beit-al-karma-2-17') as EpisodeRecord;
    const film = records.find((r) => r.id === 'movie-the-pearl-diver') as MovieRecord;
    const cases = [
      [drama.artwork![0]!, '0 0 400 600', 'بيت الكرمة'],
      [drama.artwork![1]!, '0 0 640 360', 'بيت الكرمة'],
      [season.artwork![0]!, '0 0 400 600', 'الموسم الثاني: العودة'],
      [episode.artwork![0]!, '0 0 640 360', 'الحلقة ١٧'],
      [film.artwork![0]!, '0 0 400 600', 'The Pearl Diver'],
      [film.artwork![1]!, '0 0 640 360', 'The Pearl Diver'],
      [{ url: film.cast![1]!.profileImageUrl!, width: 300, height: 300 }, '0 0 300 300', 'Claire Whitmore'],
      [{ url: drama.cast![0]!.profileImageUrl!, width: 300, height: 300 }, '0 0 300 300', 'فاروق العدوي'],
    ] as const;
    const bodies = new Set<string>();
    for (const [image, viewBox, label] of cases) {
      const res = await server.app.inject({ method: 'GET', url: image.url });
      expect(res.statusCode, image.url).toBe(200);
      expect(res.headers['content-type']).toBe('image/svg+xml; charset=utf-8');
      expect(res.headers['content-security-policy']).toContain("default-src 'none'");
      expect(res.body).not.toContain('<text');
      expect(svg(res.body), image.url).toEqual({ viewBox, label });
      expect(res.body).toContain(`width="${image.width}" height="${image.height}"`);
      bodies.add(res.body);
    }
    expect(bodies.size).toBe(cases.length);
    // The episodes of a season share their show's colours (its sky) but not their layout.
    const [one, other] = await Promise.all(['episode-beit-al-karma-2-17', 'episode-beit-al-karma-2-18'].map((id) => server.app.inject({ method: 'GET', url: `/artwork/episodes/${id}.svg` })));
    const skyOf = (body: string) => /<linearGradient id="sky".*?<\/linearGradient>/.exec(body)?.[0];
    expect(skyOf(one!.body)).toBeDefined();
    expect(skyOf(one!.body)).toBe(skyOf(other!.body));
    expect(one!.body).not.toBe(other!.body);
  });

  it('draws every title\'s poster of the seeded catalog', async () => {
    for (const record of records.filter((r): r is ShowRecord | MovieRecord => r.kind === 'show' || r.kind === 'movie')) {
      const res = await server.app.inject({ method: 'GET', url: record.artwork![0]!.url });
      expect(res.statusCode, record.id).toBe(200);
    }
  });

  it('answers a picture of nothing, or of a withdrawn title, as not found', async () => {
    for (const url of ['/artwork/shows/show-nope.svg', '/artwork/seasons/nope.svg', '/artwork/episodes/nope.svg', '/artwork/movie-backdrops/nope.svg', '/artwork/people/person-nope.svg', '/artwork/shows/show-beit-al-karma.jpg']) {
      const res = await server.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(404);
      expect(res.json().code, url).toBe('ERROR_CODE_NOT_FOUND');
    }
    const dir = mkdtempSync(join(tmpdir(), 'maqam-demo-video-'));
    try {
      const withdrawn = { ...records.find((r) => r.id === 'show-thill-al-madina') as ShowRecord, withdrawn: true };
      expect((await importNdjsonFile(server.storage, writeNdjson(dir, 'withdraw.ndjson', [withdrawn]))).errors).toEqual([]);
      for (const url of ['/artwork/shows/show-thill-al-madina.svg', '/artwork/seasons/season-thill-al-madina-1.svg', '/artwork/episodes/episode-thill-al-madina-1-1.svg']) {
        expect((await server.app.inject({ method: 'GET', url })).statusCode, url).toBe(404);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('finds a person whose id holds LIKE\'s and JSON\'s own characters, and no one by a prefix of an id', async () => {
    const odd = 'person-50%_"x\\y';
    const dir = mkdtempSync(join(tmpdir(), 'maqam-demo-video-'));
    try {
      const film: MovieRecord = {
        kind: 'movie', id: 'movie-odd-cast', title: { en: 'Odd Cast' }, originalLanguage: 'en', releaseDate: '2020-01-01', durationMs: 5_400_000,
        cast: [{ id: odd, name: { en: 'Odd Person' } }, { id: 'person-guest', name: { ar: 'ضيف' }, originalLanguage: 'ar' }],
      };
      expect((await importNdjsonFile(server.storage, writeNdjson(dir, 'odd.ndjson', [film]))).errors).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const res = await server.app.inject({ method: 'GET', url: `/artwork/people/${encodeURIComponent(odd)}.svg` });
    expect(res.statusCode).toBe(200);
    expect(svg(res.body).label).toBe('Odd Person');
    expect(svg((await server.app.inject({ method: 'GET', url: '/artwork/people/person-guest.svg' })).body).label).toBe('ضيف');
    for (const prefix of ['person-50', 'person-50%', 'person-gues']) {
      expect((await server.app.inject({ method: 'GET', url: `/artwork/people/${encodeURIComponent(prefix)}.svg` })).statusCode, prefix).toBe(404);
    }
  });
});

describe('the demo catalog as an NDJSON file (sqlite)', () => {
  let server: TestServer;
  afterAll(async () => server?.close());

  it('passes the import format\'s checks line by line, video and all', async () => {
    server = await startTestServer(dialects[0]!);
    const dir = mkdtempSync(join(tmpdir(), 'maqam-demo-video-'));
    try {
      // seedDemoCatalog hands records to the importer as they are; a file's lines are checked against the contract's schemas.
      const all = [...generateDemoCatalog({ songs: SONGS, knownArtists: true })];
      const outcome = await importNdjsonFile(server.storage, writeNdjson(dir, 'demo.ndjson', all), { batchSize: 400 });
      expect(outcome.errors).toEqual([]);
      const records = all.filter(isVideo);
      expect(outcome.summary).toMatchObject({
        shows: records.filter((r) => r.kind === 'show').length, seasons: records.filter((r) => r.kind === 'season').length,
        episodes: records.filter((r) => r.kind === 'episode').length, movies: records.filter((r) => r.kind === 'movie').length,
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('the video added to a demo catalog seeded before it (sqlite)', () => {
  let server: TestServer;
  afterAll(async () => server?.close());

  it('imports the same video records the whole demo has', async () => {
    server = await startTestServer(dialects[0]!);
    const music = await seedDemoCatalog(server.storage, { songs: SONGS, knownArtists: true, video: false });
    expect(music).toMatchObject({ shows: 0, seasons: 0, episodes: 0, movies: 0 });
    const records = video({ songs: SONGS, knownArtists: true });
    const progress: number[] = [];
    const added = await seedDemoVideo(server.storage, { songs: SONGS, knownArtists: true, batchSize: 100, onProgress: (written, total) => progress.push(written / total) });
    expect(added).toEqual({
      artists: 0, albums: 0, songs: 0, related: 0, lyrics: 0,
      shows: records.filter((r) => r.kind === 'show').length, seasons: records.filter((r) => r.kind === 'season').length,
      episodes: records.filter((r) => r.kind === 'episode').length, movies: records.filter((r) => r.kind === 'movie').length,
    });
    expect(progress.at(-1)).toBe(1);
  }, 60_000);
});
