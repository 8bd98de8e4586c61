import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../dialects.ts';
import { startTestServer, type TestServer } from '../harness.ts';
import { libraryUser } from '../library/library-helpers.ts';
import { allEntries, caller, importMoreAlbums, songIds } from './playlist-helpers.ts';

/** song-N is on album-N (importMoreAlbums: 2 to 5; here 6 and 7 too). */
const SONGS = ['song-2', 'song-3', 'song-4', 'song-5', 'song-6', 'song-7'];
const MORE = [6, 7].flatMap((n) => [
  { kind: 'album', id: `album-${n}`, title: { en: `Album ${n}` }, originalLanguage: 'en', artistIds: ['artist-ar'], releaseDate: '2001-01-01', artwork: [] },
  {
    kind: 'song', id: `song-${n}`, title: { en: `Song ${n}` }, originalLanguage: 'en', artistIds: ['artist-ar'], albumId: `album-${n}`, durationMs: 100_000,
    trackNumber: 1, discNumber: 1, releaseDate: '2001-01-01', genres: [], isExplicit: false, isrc: '', hasLyrics: false, popularity: 10, artwork: [], previewUrl: '',
  },
]);

/** A small deterministic generator (mulberry32), so a failure is the same on every run. */
function random(seed: number) {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A playlist's cover is the first four distinct albums of its entries, in
 * order (contract section 14). A write works it out before it writes, from
 * the first 64 entries and what it places (playlists.service.ts coverOf), and
 * reads them all only when those do not tell: long runs of one album here
 * make both happen. After each of many adds, moves and removes the cover
 * must be what the entries, as listed, say.
 */
describe.each(dialects.map((d) => [d.name, d] as const))('a playlist\'s cover on %s', (_name, dialect) => {
  let server: TestServer;
  let call: ReturnType<typeof caller>;

  beforeAll(async () => {
    server = await startTestServer(dialect, { MAQAM_PLAYLIST_MAX_ITEMS: '400', MAQAM_RATE_LIMIT: '0' });
    await importMoreAlbums(server, MORE);
    call = caller(server.app, { token: (await libraryUser(server)).write });
  }, 60_000);
  afterAll(async () => server?.close());

  it('counts an album past the first 64 entries before one added after it', async () => {
    const songs = [...Array<string>(10).fill('song-2'), 'song-3', ...Array<string>(60).fill('song-2'), 'song-4'];
    const created = await call('POST', '/v1/playlists', { name: 'past the scan', songIdList: songIds(...songs) });
    expect(created.json().playlist.coverArtwork[0].url).toMatch(/\/mosaics\/album-2\.svg$/);
    const url = `/v1/playlists/${created.json().playlist.id.value}`;
    expect((await call('POST', `${url}/items:batchAdd`, { songIdList: songIds('song-5', 'song-6') })).statusCode).toBe(200);
    expect((await call('GET', url)).json().playlist.coverArtwork[0].url).toMatch(/\/mosaics\/album-2\/album-3\/album-4\/album-5\.svg$/);
  });

  it('is the first four distinct albums of the entries after every write', async () => {
    const next = random(56);
    const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)]!;
    // Seventy entries of one album: the first 64 do not make a mosaic.
    const created = await call('POST', '/v1/playlists', { name: 'runs', songIdList: songIds(...Array<string>(70).fill('song-2')) });
    expect(created.statusCode, created.body).toBe(201);
    const id: string = created.json().playlist.id.value;
    const url = `/v1/playlists/${id}`;
    for (let step = 0; step < 40; step++) {
      const entries = await allEntries(call, id);
      const choice = next();
      let res;
      if (choice < 0.45 || entries.length < 10) {
        // A run of one album, at the end or before an entry.
        const song = pick(SONGS);
        const before = next() < 0.5 ? undefined : pick(entries).itemId;
        res = await call('POST', `${url}/items:batchAdd`, { songIdList: songIds(...Array<string>(1 + Math.floor(next() * 5)).fill(song)), ...(before && { beforeItemId: before }) });
      } else if (choice < 0.75) {
        const moving = [...new Set([pick(entries).itemId, pick(entries).itemId])];
        const others = entries.filter((entry) => !moving.includes(entry.itemId));
        const before = next() < 0.3 ? undefined : pick(others).itemId;
        res = await call('POST', `${url}/items:move`, { itemIds: moving, ...(before && { beforeItemId: before }) });
      } else {
        // Often from the front, where the cover is drawn.
        const from = next() < 0.5 ? entries.slice(0, 8) : entries;
        res = await call('POST', `${url}/items:batchRemove`, { itemIds: [...new Set([pick(from).itemId, pick(from).itemId, pick(from).itemId])] });
      }
      expect(res.statusCode, res.body).toBe(200);
      const after = await allEntries(call, id);
      const albums = [...new Set(after.map((entry) => entry.song!.id.value.replace('song-', 'album-')))];
      const drawn = albums.length >= 4 ? albums.slice(0, 4) : albums.slice(0, 1);
      const cover = (await call('GET', url)).json().playlist.coverArtwork as { url: string }[];
      expect(cover.map((image) => image.url.replace(/^.*\/artwork\/mosaics\//, '')), `step ${step}`).toEqual(drawn.length === 0 ? [] : [`${drawn.join('/')}.svg`]);
    }
  }, 120_000);
});
