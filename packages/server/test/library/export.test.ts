import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UserExport } from '@maqam/contract';
import { createUsersService } from '@maqam/server';
import { createAjv } from '../../src/schema-validator.ts';
import { dialects } from '../dialects.ts';
import { startTestServer, type TestServer } from '../harness.ts';
import { importRecords, videoFixtureRecords } from '../video/video-fixtures.ts';
import { asUser, libraryUser, songIds } from './library-helpers.ts';

const MINUTE = 60_000;
const validExport = createAjv().compile(UserExport);

type Call = ReturnType<typeof asUser>;

/**
 * A person's own data (issue 57, item 3): GET /v1/users/me/export answers one
 * JSON document in the shape the OpenAPI document declares, with every kind
 * of their data named by id and titled in the request's language, and
 * nothing of anyone else's, though two users' rows interleave in every table.
 */
describe.each(dialects.map((d) => [d.name, d] as const))('a user\'s export on %s', (_name, dialect) => {
  let server: TestServer;
  const now = Date.parse('2026-11-28T12:00:00.000Z');
  let alice: Awaited<ReturnType<typeof libraryUser>>;
  let bob: Awaited<ReturnType<typeof libraryUser>>;
  let asAlice: Call;
  let asBob: Call;
  const at = (minutes: number) => new Date(now + minutes * MINUTE).toISOString();
  const ok = async (response: Promise<{ statusCode: number; body: string; json(): any }>) => {
    const res = await response;
    expect(res.statusCode, res.body).toBeLessThan(300);
    return res.json();
  };

  beforeAll(async () => {
    server = await startTestServer(dialect, { MAQAM_RATE_LIMIT: '0' }, { clock: () => now });
    expect((await importRecords(server.storage, videoFixtureRecords())).errors).toEqual([]);
    alice = await libraryUser(server);
    bob = await libraryUser(server);
    asAlice = asUser(server, alice.write);
    asBob = asUser(server, bob.write);
    // Each write of one user between two of the other's, so their rows sit side by side in every table.
    await ok(asAlice('POST', '/v1/library/saved:batchAdd', { songIdList: songIds('song-ar') }));
    await ok(asBob('POST', '/v1/library/saved:batchAdd', { songIdList: songIds('song-fr', 'song-ar'), albumIdList: songIds('album-1') }));
    await ok(asAlice('POST', '/v1/library/saved:batchAdd', { albumIdList: songIds('album-1') }));
    await ok(asBob('POST', '/v1/library/following/artists:batchAdd', { artistIdList: songIds('artist-fr') }));
    await ok(asAlice('POST', '/v1/library/following/artists:batchAdd', { artistIdList: songIds('artist-ar') }));
    for (let i = 0; i < 3; i++) {
      await ok(asAlice('POST', '/v1/library/history:report', { plays: [{ playId: `a-${i}`, songId: { value: 'song-ar' }, startedAt: at(-60 + 2 * i), msPlayed: i === 2 ? 5_000 : 200_000, context: { albumId: { value: 'album-1' } } }] }));
      await ok(asBob('POST', '/v1/library/history:report', { plays: [{ playId: `b-${i}`, songId: { value: 'song-en' }, startedAt: at(-59 + 2 * i), msPlayed: 200_000 }] }));
    }
    const mine = (await ok(asAlice('POST', '/v1/playlists', { name: 'سهرة', description: 'للسهر', songIdList: songIds('song-ar', 'song-en', 'song-ar') }))).playlist;
    await ok(asBob('POST', '/v1/playlists', { name: 'Bob\'s', songIdList: songIds('song-fr') }));
    await ok(asAlice('POST', `/v1/playlists/${mine.id.value}/items:batchAdd`, { songIdList: songIds('song-fr') }));
    await ok(asAlice('POST', '/v1/library/progress:report', { progress: [{ movieId: { value: 'movie-all' }, positionMs: 1_000_000, reportedAt: at(-1) }] }));
    await ok(asBob('POST', '/v1/library/progress:report', { progress: [{ movieId: { value: 'movie-all' }, positionMs: 2_000_000, reportedAt: at(-1) }] }));
  }, 60_000);
  afterAll(async () => server?.close());

  it('answers the user\'s whole data as an attachment, in the declared shape, titled in their language, and nothing of another user', async () => {
    const res = await asUser(server, alice.read)('GET', '/v1/users/me/export');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['content-disposition']).toBe(`attachment; filename="maqam-export-${alice.user.username}-2026-11-28.json"`);
    expect(res.headers['cache-control']).toBe('no-store');
    const document = res.json();
    expect(validExport(document), JSON.stringify(validExport.errors)).toBe(true);
    expect(document.exportedAt).toBe('2026-11-28T12:00:00.000Z');
    expect(document.user).toMatchObject({ id: alice.user.id, username: alice.user.username });
    expect(document.savedSongs).toEqual([{ songId: { value: 'song-ar' }, title: 'Tamally Maak', savedAt: expect.any(String) }]);
    expect(document.savedAlbums).toEqual([{ albumId: { value: 'album-1' }, title: 'Tamally Maak', savedAt: expect.any(String) }]);
    expect(document.followedArtists).toEqual([{ artistId: { value: 'artist-ar' }, name: 'Amr Diab', followedAt: expect.any(String) }]);
    expect(document.plays).toEqual([2, 1, 0].map((i) => ({
      playId: `a-${i}`, songId: { value: 'song-ar' }, title: 'Tamally Maak', startedAt: at(-60 + 2 * i), msPlayed: i === 2 ? 5_000 : 200_000, counted: i !== 2,
      context: { albumId: { value: 'album-1' } },
    })));
    expect(document.playlists).toHaveLength(1);
    expect(document.playlists[0]).toMatchObject({ name: 'سهرة', description: 'للسهر', visibility: 'PLAYLIST_VISIBILITY_PRIVATE', version: '2' });
    expect(document.playlists[0].items.map((item: { position: number; songId: { value: string }; title: string }) => [item.position, item.songId.value, item.title]))
      .toEqual([[0, 'song-ar', 'Tamally Maak'], [1, 'song-en', 'Midnight City'], [2, 'song-ar', 'Tamally Maak'], [3, 'song-fr', 'الليل']]); // no English title: the default locale's before its original French
    expect(document.watchPositions).toEqual([{ movieId: { value: 'movie-all' }, title: 'Desert Journey', positionMs: 1_000_000, updatedAt: expect.any(String), finished: false, hidden: false }]);
    // Bob's ids, plays and playlist are nowhere in it.
    for (const foreign of ['artist-fr', '"b-', 'Bob\'s', '2000000', bob.user.id]) expect(res.body).not.toContain(foreign);
  });

  it('leaves out the positions of titles above the user\'s parental cap, as every list does', async () => {
    await ok(asBob('POST', '/v1/library/progress:report', { progress: [{ movieId: { value: 'movie-adult' }, positionMs: 3_000_000, reportedAt: at(-1) }] }));
    const positions = async () => ((await asUser(server, bob.read)('GET', '/v1/users/me/export')).json().watchPositions as { movieId: { value: string } }[])
      .map((position) => position.movieId.value).sort();
    expect(await positions()).toEqual(['movie-adult', 'movie-all']);
    const users = createUsersService(server.storage.db);
    await users.setMaxAgeRating(bob.user.username, 'AGE_RATING_13');
    expect(await positions()).toEqual(['movie-all']);
    await users.setMaxAgeRating(bob.user.username, 'none');
    expect(await positions()).toEqual(['movie-adult', 'movie-all']);
  });

  it('titles the items in the language the request asks for', async () => {
    const document = (await asUser(server, alice.read)('GET', '/v1/users/me/export', undefined, { 'accept-language': 'ar' })).json();
    expect(document.savedSongs[0].title).toBe('تملي معاك');
    expect(document.followedArtists[0].name).toBe('عمرو دياب');
    expect(document.watchPositions[0].title).toBe('رحلة الصحراء');
  });

  it('is declared in the OpenAPI document with its shape, for a token with scope read and never for an API key', async () => {
    const openapi = (await server.app.inject('/v1/openapi.json')).json();
    const operation = openapi.paths['/v1/users/me/export'].get;
    expect(operation.operationId).toBe('ExportMyData');
    expect(JSON.stringify(operation.responses['200'])).toContain('UserExport');
    expect((await server.call({ method: 'GET', url: '/v1/users/me/export' })).statusCode).toBe(403);
    expect((await asUser(server, alice.writeOnly)('GET', '/v1/users/me/export')).statusCode).toBe(403);
  });
});
