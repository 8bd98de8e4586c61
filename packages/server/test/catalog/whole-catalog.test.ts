import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BatchGetAlbumsResponse,
  BatchGetArtistsResponse,
  ErrorBody,
  GetAlbumResponse,
  GetAlbumTracksResponse,
  GetArtistDiscographyResponse,
  GetArtistResponse,
  GetArtistTopTracksResponse,
  GetLyricsResponse,
  GetSongResponse,
  ValidationErrorBody,
  type ImportRecord,
} from '@maqam/contract';
import { importNdjsonFile } from '@maqam/server';
import { createAjv } from '../../src/schema-validator.ts';
import { dialects } from '../dialects.ts';
import { writeNdjson } from '../fixtures.ts';
import { startTestServer, type TestServer } from '../harness.ts';

const ajv = createAjv();
const valid = {
  song: ajv.compile(GetSongResponse),
  album: ajv.compile(GetAlbumResponse),
  albums: ajv.compile(BatchGetAlbumsResponse),
  artist: ajv.compile(GetArtistResponse),
  artists: ajv.compile(BatchGetArtistsResponse),
  tracks: ajv.compile(GetAlbumTracksResponse),
  discography: ajv.compile(GetArtistDiscographyResponse),
  top: ajv.compile(GetArtistTopTracksResponse),
  lyrics: ajv.compile(GetLyricsResponse),
  error: ajv.compile(ErrorBody),
  validation: ajv.compile(ValidationErrorBody),
};

const image = (id: string) => [{ url: `https://img.test/${id}.jpg`, width: 300, height: 300 }];

function album(id: string, releaseDate: string, extra: object = {}): ImportRecord {
  return {
    kind: 'album', id, title: { ar: `ألبوم ${id}`, en: `Album ${id}` }, originalLanguage: 'ar', artistIds: ['artist-ar'], releaseDate,
    artwork: image(id), ...extra,
  } as ImportRecord;
}

function track(id: string, albumId: string, discNumber: number, trackNumber: number, popularity: number, extra: object = {}): ImportRecord {
  return {
    kind: 'song', id, title: { ar: `أغنية ${id}`, en: `Song ${id}` }, originalLanguage: 'ar', artistIds: ['artist-ar'], albumId,
    durationMs: 100_000, trackNumber, discNumber, releaseDate: '2015-03-03', genres: ['tarab'], isExplicit: false, isrc: '',
    hasLyrics: true, popularity, artwork: image(id), previewUrl: '', ...extra,
  } as ImportRecord;
}

/**
 * On top of the shared fixture (artist-ar's album-1 holds song-ar, 87, and a
 * withdrawn song): artist-ar's discography with a date tie and every album
 * type, a withdrawn album and artist, a two-disc album with a track-number
 * tie and a withdrawn track, popularity ties, and lyrics of every form.
 */
const EXTRA: ImportRecord[] = [
  {
    kind: 'artist', id: 'artist-gone', name: { ar: 'غائب' }, originalLanguage: 'ar', genres: [], followerCount: 1, monthlyListeners: 1,
    isVerified: false, socialLinks: [], artwork: [], nationality: 'EG', withdrawn: true,
  },
  album('album-single', '2010-05-05', { albumType: 'ALBUM_TYPE_SINGLE', label: 'Rotana', genres: ['arabic-pop'] }),
  album('album-ep', '2010-05-05', { albumType: 'ALBUM_TYPE_EP' }),
  album('album-comp', '1995-01-01', { albumType: 'ALBUM_TYPE_COMPILATION', artistIds: ['artist-en', 'artist-ar'] }),
  album('album-hidden', '2020-01-01', { withdrawn: true }),
  album('album-discs', '2015-03-03', { label: 'Mazzika', genres: ['tarab', 'arabic-pop'] }),
  track('disc-a', 'album-discs', 1, 1, 50),
  track('disc-c', 'album-discs', 1, 2, 90),
  track('disc-b', 'album-discs', 1, 2, 90),
  track('disc-gone', 'album-discs', 1, 3, 99, { withdrawn: true }),
  track('disc-e', 'album-discs', 2, 2, 87),
  track('disc-d', 'album-discs', 2, 1, 10),
  track('song-of-hidden', 'album-hidden', 1, 1, 5),
  { kind: 'lyrics', songId: 'disc-a', language: 'en', lines: ['line one', 'line two'] },
  { kind: 'lyrics', songId: 'disc-b', language: 'ar', lrc: '[00:01.00]أول' },
  // A later record for a song replaces the earlier one.
  { kind: 'lyrics', songId: 'disc-b', language: 'ar', lines: ['بدلًا منها'] },
  // A negative offset shows lines later.
  { kind: 'lyrics', songId: 'disc-c', language: 'ar', lrc: '[offset:-1000]\n[00:01.00]أ\n[00:01.00]ب' },
];

/** artist-ar's songs by popularity descending, then id; withdrawn songs left out. */
const TOP_TRACKS = ['disc-b', 'disc-c', 'disc-e', 'song-ar', 'disc-a', 'disc-d', 'song-of-hidden'];
/** album-discs in disc, track, id order; disc-gone is withdrawn. */
const ALBUM_TRACKS = ['disc-a', 'disc-b', 'disc-c', 'disc-d', 'disc-e'];
/** artist-ar's albums by release date descending, then id; album-hidden is withdrawn. */
const DISCOGRAPHY = ['album-discs', 'album-ep', 'album-single', 'album-1', 'album-comp'];

describe.each(dialects.map((d) => [d.name, d] as const))('the rest of MusicCatalogService on %s', (_name, dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(dialect);
    const dir = mkdtempSync(join(tmpdir(), 'maqam-whole-'));
    const outcome = await importNdjsonFile(server.storage, writeNdjson(dir, 'extra.ndjson', EXTRA));
    rmSync(dir, { recursive: true, force: true });
    expect(outcome.errors).toEqual([]);
  });
  afterAll(async () => server?.close());

  const get = (url: string, headers: Record<string, string> = {}) =>
    server.call({ method: 'GET', url, headers: { 'accept-language': 'en', ...headers } });
  const post = (url: string, body: unknown) =>
    server.call({ method: 'POST', url, headers: { 'content-type': 'application/json', 'accept-language': 'en' }, payload: JSON.stringify(body) });
  const idsOf = (items: { id: { value: string } }[]) => items.map((item) => item.id.value);
  const fieldsOf = (res: Awaited<ReturnType<typeof get>>) => {
    expect(res.statusCode).toBe(400);
    expect(valid.validation(res.json())).toBe(true);
    return res.json().violations.map((v: { field: string }) => v.field);
  };
  const notFound = (res: Awaited<ReturnType<typeof get>>) => {
    expect(res.statusCode).toBe(404);
    expect(valid.error(res.json())).toBe(true);
    expect(res.json().code).toBe('ERROR_CODE_NOT_FOUND');
    return res.json().message as string;
  };

  describe('GetSong', () => {
    it('answers the song exactly as BatchGetSongs does, in the locale asked for', async () => {
      for (const locale of ['ar', 'en']) {
        const one = await get('/v1/music/songs/song-ar', { 'accept-language': locale });
        expect(one.statusCode).toBe(200);
        expect(valid.song(one.json())).toBe(true);
        const batch = await post('/v1/music/songs:batchGet', { songIdList: [{ value: 'song-ar' }] });
        const batchLocale = await server.call({
          method: 'POST', url: '/v1/music/songs:batchGet', payload: { songIdList: [{ value: 'song-ar' }] },
          headers: { 'content-type': 'application/json', 'accept-language': locale },
        });
        expect(one.json()).toEqual(batchLocale.json().results['song-ar']);
        if (locale === 'en') expect(one.json()).toEqual(batch.json().results['song-ar']);
      }
      expect((await get('/v1/music/songs/song-ar', { 'accept-language': 'ar' })).json().song.title.value).toBe('تملي معاك');
    });

    it('derives hasLyrics from stored lyrics, not from the song record', async () => {
      expect((await get('/v1/music/songs/song-ar')).json().song.hasLyrics).toBe(true);
      // Its record said hasLyrics: true, but it has no lyrics.
      expect((await get('/v1/music/songs/song-en')).json().song.hasLyrics).toBe(false);
      expect((await get('/v1/music/songs/disc-d')).json().song.hasLyrics).toBe(false);
      expect((await get('/v1/music/songs/disc-a')).json().song.hasLyrics).toBe(true);
    });

    it('serves a song of a withdrawn album, and no withdrawn or unknown song', async () => {
      expect((await get('/v1/music/songs/song-of-hidden')).statusCode).toBe(200);
      expect(notFound(await get('/v1/music/songs/song-withdrawn'))).toBe('No song with id "song-withdrawn".');
      expect(notFound(await get('/v1/music/songs/nope'))).toBe('No song with id "nope".');
    });

    it('needs a credential', async () => {
      const res = await server.app.inject({ method: 'GET', url: '/v1/music/songs/song-ar' });
      expect(res.statusCode).toBe(401);
    });
  });

  describe('GetAlbum and BatchGetAlbums', () => {
    it('answers an album with its type, label, genres and totals over the songs that are not withdrawn', async () => {
      const res = await get('/v1/music/albums/album-discs');
      expect(res.statusCode).toBe(200);
      expect(valid.album(res.json())).toBe(true);
      expect(res.json()).toEqual({
        album: {
          id: { value: 'album-discs' },
          title: { value: 'Album album-discs', originalValue: 'ألبوم album-discs' },
          artists: [{ id: { value: 'artist-ar' }, name: { value: 'Amr Diab', originalValue: 'عمرو دياب' } }],
          albumType: 'ALBUM_TYPE_ALBUM',
          releaseDate: '2015-03-03',
          trackCount: 5,
          totalDurationMs: 500_000,
          genres: ['tarab', 'arabic-pop'],
          artwork: image('album-discs'),
          label: 'Mazzika',
        },
      });
    });

    it('defaults an older album record to ALBUM_TYPE_ALBUM, no label and no genres', async () => {
      const { album: old } = (await get('/v1/music/albums/album-1')).json();
      expect([old.albumType, old.label, old.genres, old.trackCount, old.totalDurationMs]).toEqual(['ALBUM_TYPE_ALBUM', '', [], 3, 645_000]);
    });

    it('answers a withdrawn or unknown album with 404', async () => {
      expect(notFound(await get('/v1/music/albums/album-hidden'))).toBe('No album with id "album-hidden".');
      expect(notFound(await get('/v1/music/albums/nope'))).toBe('No album with id "nope".');
    });

    it('batch-gets like BatchGetSongs: every id a key, duplicates once, per-item NOT_FOUND', async () => {
      const res = await post('/v1/music/albums:batchGet', {
        album_id_list: [{ value: 'album-single' }, { value: 'nope' }, { value: 'album-single' }, { value: 'album-hidden' }],
      });
      expect(res.statusCode).toBe(200);
      expect(valid.albums(res.json())).toBe(true);
      const { results } = res.json();
      expect(Object.keys(results)).toEqual(['album-single', 'nope', 'album-hidden']);
      expect(results['album-single']).toEqual((await get('/v1/music/albums/album-single')).json());
      expect(results.nope).toEqual({ error: { code: 'ERROR_CODE_NOT_FOUND', message: 'No album with id "nope".' } });
      expect(results['album-hidden'].error.code).toBe('ERROR_CODE_NOT_FOUND');
    });

    it('names the failing item of a bad batch', async () => {
      expect(fieldsOf(await post('/v1/music/albums:batchGet', { albumIdList: [{ value: 'a' }, { value: '' }] }))).toEqual(['albumIdList[1].value']);
      expect(fieldsOf(await post('/v1/music/albums:batchGet', { albumIdList: [] }))).toEqual(['albumIdList']);
      const tooMany = { albumIdList: Array.from({ length: 101 }, (_, i) => ({ value: `a${i}` })) };
      expect(fieldsOf(await post('/v1/music/albums:batchGet', tooMany))).toEqual(['albumIdList']);
    });
  });

  describe('GetAlbumTracks', () => {
    it('lists by disc, track and id, leaving out withdrawn songs', async () => {
      const res = await get('/v1/music/albums/album-discs/tracks');
      expect(res.statusCode).toBe(200);
      expect(valid.tracks(res.json())).toBe(true);
      expect(idsOf(res.json().tracks)).toEqual(ALBUM_TRACKS);
      expect(res.json().nextPageToken).toBe('');
      expect(res.json().tracks[0]).toEqual((await get('/v1/music/songs/disc-a')).json().song);
    });

    it('pages to the end through ties, with any spelling of the parameters', async () => {
      const seen: string[] = [];
      let token = '';
      let pages = 0;
      do {
        const query = pages % 2 === 0 ? `page_size=2&page_token=${token}` : `pageSize=2&pageToken=${token}`;
        const res = await get(`/v1/music/albums/album-discs/tracks?${query}`);
        expect(res.statusCode).toBe(200);
        seen.push(...idsOf(res.json().tracks));
        token = res.json().nextPageToken;
        pages++;
      } while (token !== '');
      expect(seen).toEqual(ALBUM_TRACKS);
      expect(pages).toBe(3);
    });

    it('refuses a tampered token, a token of another album and a token of another list', async () => {
      const first = (await get('/v1/music/albums/album-discs/tracks?page_size=2')).json().nextPageToken as string;
      const flipped = first.slice(0, 10) + (first[10] === 'A' ? 'B' : 'A') + first.slice(11);
      expect(fieldsOf(await get(`/v1/music/albums/album-discs/tracks?page_token=${flipped}`))).toEqual(['page_token']);
      expect(fieldsOf(await get(`/v1/music/albums/album-1/tracks?pageToken=${first}`))).toEqual(['pageToken']);
      expect(fieldsOf(await get(`/v1/music/artists/artist-ar/albums?page_token=${first}`))).toEqual(['page_token']);
    });

    it('answers a withdrawn or unknown album with 404, and a bad page size with 400', async () => {
      expect(notFound(await get('/v1/music/albums/album-hidden/tracks'))).toBe('No album with id "album-hidden".');
      expect(notFound(await get('/v1/music/albums/nope/tracks'))).toBe('No album with id "nope".');
      expect(fieldsOf(await get('/v1/music/albums/album-discs/tracks?page_size=101'))).toEqual(['page_size']);
      expect(fieldsOf(await get('/v1/music/albums/album-discs/tracks?page_size=2&limit=3'))).toEqual(['limit']);
    });
  });

  describe('GetArtist and BatchGetArtists', () => {
    it('answers the full profile, localized', async () => {
      const res = await get('/v1/music/artists/artist-ar', { 'accept-language': 'ar' });
      expect(res.statusCode).toBe(200);
      expect(valid.artist(res.json())).toBe(true);
      expect(res.json().artist).toEqual({
        id: { value: 'artist-ar' },
        name: { value: 'عمرو دياب', originalValue: 'عمرو دياب' },
        bio: { value: 'مطرب مصري', originalValue: 'مطرب مصري' },
        genres: ['tarab'],
        followerCount: '12345678901234567',
        monthlyListeners: '42',
        isVerified: true,
        socialLinks: [{ platform: 'instagram', url: 'https://instagram.com/artist-ar' }],
        artwork: image('artist-ar'),
        nationality: 'EG',
      });
    });

    it('answers an artist exactly as GetRelatedArtists lists it', async () => {
      const related = (await get('/v1/music/artists/artist-ar/related?page_size=1')).json().artists[0];
      expect((await get(`/v1/music/artists/${related.id.value}`)).json().artist).toEqual(related);
    });

    it('answers a withdrawn or unknown artist with 404, and leaves it out of every list', async () => {
      expect(notFound(await get('/v1/music/artists/artist-gone'))).toBe('No artist with id "artist-gone".');
      for (const path of ['albums', 'top-tracks', 'related']) {
        expect(notFound(await get(`/v1/music/artists/artist-gone/${path}`))).toBe('No artist with id "artist-gone".');
        expect(notFound(await get(`/v1/music/artists/nope/${path}`))).toBe('No artist with id "nope".');
      }
    });

    it('batch-gets like BatchGetSongs', async () => {
      const res = await post('/v1/music/artists:batchGet', { artistIdList: [{ value: 'artist-en' }, { value: 'artist-gone' }, { value: 'artist-en' }] });
      expect(res.statusCode).toBe(200);
      expect(valid.artists(res.json())).toBe(true);
      expect(Object.keys(res.json().results)).toEqual(['artist-en', 'artist-gone']);
      expect(res.json().results['artist-en']).toEqual((await get('/v1/music/artists/artist-en')).json());
      expect(res.json().results['artist-gone']).toEqual({ error: { code: 'ERROR_CODE_NOT_FOUND', message: 'No artist with id "artist-gone".' } });
      expect(fieldsOf(await post('/v1/music/artists:batchGet', { artistIdList: [{ value: 'x' }, { id: 'y' }] }))).toEqual(['artistIdList[1].value']);
    });
  });

  describe('GetArtistDiscography', () => {
    it('lists the albums crediting the artist, newest first with the id as tiebreak', async () => {
      const res = await get('/v1/music/artists/artist-ar/albums');
      expect(res.statusCode).toBe(200);
      expect(valid.discography(res.json())).toBe(true);
      expect(idsOf(res.json().albums)).toEqual(DISCOGRAPHY);
      expect(res.json().albums[0]).toEqual((await get('/v1/music/albums/album-discs')).json().album);
      // A compilation credits two artists: it is in both discographies.
      expect(idsOf((await get('/v1/music/artists/artist-en/albums')).json().albums)).toEqual(['album-comp']);
    });

    it('filters by album_type, and pages each filter with its own tokens', async () => {
      const single = await get('/v1/music/artists/artist-ar/albums?album_type=ALBUM_TYPE_SINGLE');
      expect(idsOf(single.json().albums)).toEqual(['album-single']);
      const albums = await get('/v1/music/artists/artist-ar/albums?albumType=ALBUM_TYPE_ALBUM&page_size=1');
      expect(idsOf(albums.json().albums)).toEqual(['album-discs']);
      const token = albums.json().nextPageToken;
      const next = await get(`/v1/music/artists/artist-ar/albums?album_type=ALBUM_TYPE_ALBUM&page_size=1&page_token=${token}`);
      expect(idsOf(next.json().albums)).toEqual(['album-1']);
      expect(next.json().nextPageToken).toBe('');
      expect(fieldsOf(await get(`/v1/music/artists/artist-ar/albums?page_size=1&page_token=${token}`))).toEqual(['page_token']);
    });

    it('pages to the end', async () => {
      const seen: string[] = [];
      let token = '';
      do {
        const res = await get(`/v1/music/artists/artist-ar/albums?limit=2&page_token=${token}`);
        seen.push(...idsOf(res.json().albums));
        token = res.json().nextPageToken;
      } while (token !== '');
      expect(seen).toEqual(DISCOGRAPHY);
    });

    it('refuses an album_type that is not one of the four', async () => {
      expect(fieldsOf(await get('/v1/music/artists/artist-ar/albums?album_type=LP'))).toEqual(['album_type']);
      expect(fieldsOf(await get('/v1/music/artists/artist-ar/albums?album_type=ALBUM_TYPE_EP&albumType=ALBUM_TYPE_SINGLE'))).toEqual(['albumType']);
    });

    it('names the allowed values of an enum, and a wrong type in words of the answer\'s language', async () => {
      const lp = await get('/v1/music/artists/artist-ar/albums?album_type=LP');
      expect(lp.json().violations).toEqual([{
        field: 'album_type', description: 'album_type must be one of ALBUM_TYPE_ALBUM, ALBUM_TYPE_SINGLE, ALBUM_TYPE_EP, ALBUM_TYPE_COMPILATION.',
      }]);
      const arabic = await get('/v1/music/artists/artist-ar/albums?page_size=ten', { 'accept-language': 'ar' });
      expect(arabic.headers['content-language']).toBe('ar');
      expect(arabic.json().violations).toEqual([{ field: 'page_size', description: 'يجب أن يكون page_size عددًا صحيحًا.' }]);
      expect((await get('/v1/music/artists/artist-ar/albums?page_size=ten')).json().violations[0].description).toBe('page_size must be a whole number.');
    });
  });

  describe('GetArtistTopTracks', () => {
    it('lists the top 10 by popularity with the id as tiebreak, leaving out withdrawn songs', async () => {
      const res = await get('/v1/music/artists/artist-ar/top-tracks');
      expect(res.statusCode).toBe(200);
      expect(valid.top(res.json())).toBe(true);
      expect(Object.keys(res.json())).toEqual(['tracks']);
      expect(idsOf(res.json().tracks)).toEqual(TOP_TRACKS);
      expect(res.json().tracks[3]).toEqual((await get('/v1/music/songs/song-ar')).json().song);
      // song-ar credits artist-en too.
      expect(idsOf((await get('/v1/music/artists/artist-en/top-tracks')).json().tracks)).toEqual(['song-ar', 'song-en']);
    });

    it('takes a page size of 1 to 50 and no token', async () => {
      expect(idsOf((await get('/v1/music/artists/artist-ar/top-tracks?page_size=3')).json().tracks)).toEqual(TOP_TRACKS.slice(0, 3));
      expect(fieldsOf(await get('/v1/music/artists/artist-ar/top-tracks?page_size=51'))).toEqual(['page_size']);
      expect(fieldsOf(await get('/v1/music/artists/artist-ar/top-tracks?page_size=0'))).toEqual(['page_size']);
    });
  });

  describe('GetLyrics', () => {
    it('answers time-synced lyrics in time order, with the offset applied and metadata ignored', async () => {
      const res = await get('/v1/music/songs/song-ar/lyrics');
      expect(res.statusCode).toBe(200);
      expect(valid.lyrics(res.json())).toBe(true);
      const texts = ['ولو حتى بعيد عني', 'تملي معاك', 'في قلبي هواك', 'ولو حتى بعيد عني'];
      expect(res.json()).toEqual({
        language: 'ar',
        lyrics: { lines: texts },
        // +500 ms shows every line sooner: 5.000 → 4500, 12.50 → 12000, 15.75 → 15250, 20.10 → 19600.
        syncedLyrics: { lines: ['4500', '12000', '15250', '19600'].map((startTimeMs, i) => ({ text: texts[i], startTimeMs })) },
      });
    });

    it('answers plain lyrics without syncedLyrics, and the later of two records', async () => {
      expect((await get('/v1/music/songs/disc-a/lyrics')).json()).toEqual({ language: 'en', lyrics: { lines: ['line one', 'line two'] } });
      expect((await get('/v1/music/songs/disc-b/lyrics')).json()).toEqual({ language: 'ar', lyrics: { lines: ['بدلًا منها'] } });
    });

    it('shows lines later for a negative offset, keeping the order of equal times', async () => {
      expect((await get('/v1/music/songs/disc-c/lyrics')).json().syncedLyrics.lines).toEqual([
        { text: 'أ', startTimeMs: '2000' },
        { text: 'ب', startTimeMs: '2000' },
      ]);
    });

    it('says a song has no lyrics in another message than an unknown song', async () => {
      const none = notFound(await get('/v1/music/songs/disc-d/lyrics'));
      const unknown = notFound(await get('/v1/music/songs/nope/lyrics'));
      expect(none).toBe('The song "disc-d" has no lyrics.');
      expect(unknown).toBe('No song with id "nope".');
      expect(notFound(await get('/v1/music/songs/song-withdrawn/lyrics'))).toBe('No song with id "song-withdrawn".');
      expect(notFound(await get('/v1/music/songs/disc-d/lyrics', { 'accept-language': 'ar' }))).toBe('لا توجد كلمات للأغنية "disc-d".');
    });

    it('answers 200 exactly for the songs whose hasLyrics is true', async () => {
      for (const id of ['song-ar', 'song-en', 'song-fr', 'disc-a', 'disc-b', 'disc-c', 'disc-d', 'disc-e', 'song-of-hidden']) {
        const hasLyrics = (await get(`/v1/music/songs/${id}`)).json().song.hasLyrics;
        expect((await get(`/v1/music/songs/${id}/lyrics`)).statusCode).toBe(hasLyrics ? 200 : 404);
      }
    });
  });

  describe('importing lyrics', () => {
    const importLines = async (records: unknown[]) => {
      const dir = mkdtempSync(join(tmpdir(), 'maqam-lyrics-'));
      try {
        return await importNdjsonFile(server.storage, writeNdjson(dir, 'lyrics.ndjson', records));
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    };

    it('fails a record with a malformed tag or an untimed line, naming the file line and the LRC line', async () => {
      const { errors } = await importLines([
        { kind: 'lyrics', songId: 'disc-d', language: 'ar', lrc: '[00:01.00]ok\n[00:1.00]bad' },
        { kind: 'lyrics', songId: 'disc-d', language: 'ar', lrc: '[ti:x]\n[00:01.00]ok\nno tag here' },
        { kind: 'lyrics', songId: 'disc-d', language: 'ar', lrc: '[00:01.0]one fraction digit' },
        { kind: 'lyrics', songId: 'disc-d', language: 'ar', lrc: '[offset:soon]\n[00:01.00]x' },
        { kind: 'lyrics', songId: 'disc-d', language: 'ar', lrc: '[ar:only metadata]' },
        { kind: 'lyrics', songId: 'disc-d', language: 'ar', lines: ['a'], lrc: '[00:01.00]a' },
        { kind: 'lyrics', songId: 'disc-d', language: 'ar' },
      ]);
      expect(errors).toEqual([
        { line: 1, message: 'lyrics lrc line 2: malformed tag "[00:1.00]"' },
        { line: 2, message: 'lyrics lrc line 3: has no time tag' },
        { line: 3, message: 'lyrics lrc line 1: malformed tag "[00:01.0]"' },
        { line: 4, message: 'lyrics lrc line 1: the offset "soon" is not a whole number of milliseconds' },
        { line: 5, message: 'lyrics lrc line 1: has no timed lines' },
        { line: 6, message: 'lyrics needs exactly one of "lines" and "lrc"' },
        { line: 7, message: 'lyrics needs exactly one of "lines" and "lrc"' },
      ]);
      expect((await get('/v1/music/songs/disc-d/lyrics')).statusCode).toBe(404);
    });

    it('names every problem of every line, and the unknown references, in one pass', async () => {
      const { errors } = await importLines([
        { kind: 'album', id: 'bad-date', title: { en: 'Calendar' }, originalLanguage: 'en', artistIds: ['nobody'], releaseDate: '2024-13-45', artwork: [], albumType: 'ALBUM_TYPE_LP', genres: [], label: '' },
        { kind: 'album', id: 'not-leap', title: { en: 'Leap' }, originalLanguage: 'en', artistIds: ['artist-ar'], releaseDate: '2023-02-29', artwork: [], albumType: 'ALBUM_TYPE_ALBUM', genres: [], label: '' },
        { kind: 'song', id: 'two-problems', title: {}, originalLanguage: 'en', artistIds: ['artist-ar'], albumId: 'bad-date', durationMs: -1, trackNumber: 1, discNumber: 1, releaseDate: '2024-02-29', genres: [], isExplicit: false, isrc: '', popularity: 0, artwork: [], previewUrl: '' },
        { kind: 'song', id: 'unknown-album', title: { en: 'Lost' }, originalLanguage: 'en', artistIds: ['artist-ar', 'ghost'], albumId: 'no-such-album', durationMs: 1000, trackNumber: 1, discNumber: 1, releaseDate: '2024-02-29', genres: [], isExplicit: false, isrc: '', popularity: 0, artwork: [], previewUrl: '' },
      ]);
      expect(errors).toEqual([
        { line: 1, message: 'album releaseDate must be a real calendar date, YYYY-MM-DD' },
        { line: 1, message: 'album albumType must be one of ALBUM_TYPE_ALBUM, ALBUM_TYPE_SINGLE, ALBUM_TYPE_EP, ALBUM_TYPE_COMPILATION' },
        // The album's line did not pass, but it declares the id, so the song is not told the album is unknown; its artist is.
        { line: 1, message: 'references unknown artist "nobody"' },
        { line: 2, message: 'album releaseDate must be a real calendar date, YYYY-MM-DD' },
        { line: 3, message: 'song title must NOT have fewer than 1 properties' },
        { line: 3, message: 'song durationMs must be >= 0' },
        { line: 4, message: 'references unknown artist "ghost"' },
        { line: 4, message: 'references unknown album "no-such-album"' },
      ]);
      expect((await get('/v1/music/songs/unknown-album')).statusCode).toBe(404);
    });

    it('refuses lyrics of an unknown song', async () => {
      const { errors } = await importLines([{ kind: 'lyrics', songId: 'nope', language: 'ar', lines: ['x'] }]);
      expect(errors).toEqual([{ line: 1, message: 'references unknown song "nope"' }]);
    });
  });

  // Last: it changes the catalog the tests above read.
  describe('re-importing', () => {
    it('shows lyrics imported after their song, and an artist renamed without its songs, in every song answer', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'maqam-later-'));
      try {
        expect((await get('/v1/music/songs/disc-d')).json().song.hasLyrics).toBe(false);
        const later: ImportRecord[] = [
          { kind: 'lyrics', songId: 'disc-d', language: 'ar', lines: ['سطر'] },
          {
            kind: 'artist', id: 'artist-en', name: { en: 'Maya Stone (renamed)', ar: 'مايا ستون' }, originalLanguage: 'en', genres: ['pop'],
            followerCount: '1', monthlyListeners: '1', isVerified: false, socialLinks: [], artwork: [], nationality: 'GB',
          },
        ];
        expect((await importNdjsonFile(server.storage, writeNdjson(dir, 'later.ndjson', later))).errors).toEqual([]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
      await expect.poll(async () => (await get('/v1/music/songs/disc-d')).json().song.hasLyrics).toBe(true);
      const batch = (await server.call({ method: 'POST', url: '/v1/music/songs:batchGet', headers: { 'content-type': 'application/json', 'accept-language': 'en' }, payload: { songIdList: [{ value: 'disc-d' }, { value: 'song-en' }] } })).json();
      expect(batch.results['disc-d'].song.hasLyrics).toBe(true);
      expect(batch.results['song-en'].song.artists).toEqual([{ id: { value: 'artist-en' }, name: { value: 'Maya Stone (renamed)', originalValue: 'Maya Stone (renamed)' } }]);
      const inArabic = (await get('/v1/music/songs/song-en', { 'accept-language': 'ar' })).json().song.artists;
      expect(inArabic).toEqual([{ id: { value: 'artist-en' }, name: { value: 'مايا ستون', originalValue: 'Maya Stone (renamed)' } }]);
    });

    it('converges: the same records again change nothing, changed records move every list', async () => {
      const before = await Promise.all(['/v1/music/artists/artist-ar/top-tracks', '/v1/music/artists/artist-ar/albums', '/v1/music/albums/album-discs/tracks'].map(async (url) => (await get(url)).body));
      const dir = mkdtempSync(join(tmpdir(), 'maqam-reimport-'));
      try {
        expect((await importNdjsonFile(server.storage, writeNdjson(dir, 'again.ndjson', EXTRA))).errors).toEqual([]);
        const again = await Promise.all(['/v1/music/artists/artist-ar/top-tracks', '/v1/music/artists/artist-ar/albums', '/v1/music/albums/album-discs/tracks'].map(async (url) => (await get(url)).body));
        expect(again).toEqual(before);

        // disc-e withdrawn, disc-a now credits artist-en and is the most popular, album-ep becomes a single.
        const changed = EXTRA.map((record) => {
          if (record.kind === 'song' && record.id === 'disc-e') return { ...record, withdrawn: true };
          if (record.kind === 'song' && record.id === 'disc-a') return { ...record, artistIds: ['artist-en'], popularity: 100 };
          if (record.kind === 'album' && record.id === 'album-ep') return { ...record, albumType: 'ALBUM_TYPE_SINGLE' as const };
          return record;
        });
        expect((await importNdjsonFile(server.storage, writeNdjson(dir, 'changed.ndjson', changed))).errors).toEqual([]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
      expect(idsOf((await get('/v1/music/artists/artist-ar/top-tracks')).json().tracks)).toEqual(['disc-b', 'disc-c', 'song-ar', 'disc-d', 'song-of-hidden']);
      expect(idsOf((await get('/v1/music/artists/artist-en/top-tracks')).json().tracks)).toEqual(['disc-a', 'song-ar', 'song-en']);
      expect(idsOf((await get('/v1/music/albums/album-discs/tracks')).json().tracks)).toEqual(['disc-a', 'disc-b', 'disc-c', 'disc-d']);
      expect(idsOf((await get('/v1/music/artists/artist-ar/albums?album_type=ALBUM_TYPE_SINGLE')).json().albums)).toEqual(['album-ep', 'album-single']);
      // Rendered items are cached until the node sees the new catalog version (it polls each second).
      await expect.poll(async () => (await get('/v1/music/songs/disc-e')).statusCode).toBe(404);
      expect(notFound(await get('/v1/music/songs/disc-e'))).toBe('No song with id "disc-e".');
      await expect.poll(async () => (await get('/v1/music/albums/album-discs')).json().album.trackCount).toBe(4);
      expect((await get('/v1/music/albums/album-discs')).json().album.totalDurationMs).toBe(400_000);
    });

    it('serves a song titled in hundreds of languages in the one asked for', async () => {
      const title = Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`zz-t${String(i).padStart(3, '0')}`, `title ${i}`]));
      const dir = mkdtempSync(join(tmpdir(), 'maqam-babel-'));
      try {
        const record = { ...(track('babel', 'album-discs', 9, 1, 1) as object), title, originalLanguage: 'zz-t007', artistIds: ['artist-fr'] } as ImportRecord;
        expect((await importNdjsonFile(server.storage, writeNdjson(dir, 'babel.ndjson', [record]))).errors).toEqual([]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
      await expect.poll(async () => (await get('/v1/music/songs/babel', { 'accept-language': 'zz-t250' })).json().song?.title).toEqual({ value: 'title 250', originalValue: 'title 7' });
      expect((await get('/v1/music/songs/babel', { 'accept-language': 'fr' })).json().song.title).toEqual({ value: 'title 7', originalValue: 'title 7' });
    });

    it('keeps hasLyrics for a song re-imported without its lyrics, which an earlier import stored', async () => {
      // The import's reader builds a batch's templates as if only the batch's own lyrics existed; this one's are older.
      const discA = EXTRA.find((record) => record.kind === 'song' && record.id === 'disc-a')!;
      const dir = mkdtempSync(join(tmpdir(), 'maqam-lyrics-kept-'));
      try {
        const renamed = { ...discA, title: { en: 'Disc A, remastered' }, originalLanguage: 'en' } as ImportRecord;
        expect((await importNdjsonFile(server.storage, writeNdjson(dir, 'renamed.ndjson', [renamed]), { readerThread: true })).errors).toEqual([]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
      await expect.poll(async () => (await get('/v1/music/songs/disc-a')).json().song.title.value).toBe('Disc A, remastered');
      expect((await get('/v1/music/songs/disc-a')).json().song.hasLyrics).toBe(true);
      expect((await post('/v1/music/songs:batchGet', { songIdList: [{ value: 'disc-a' }] })).json().results['disc-a'].song.hasLyrics).toBe(true);
    });
  });
});
