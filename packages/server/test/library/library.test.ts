import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../dialects.ts';
import { startTestServer, type TestServer } from '../harness.ts';
import { tokensFor } from '../oauth/oauth-helpers.ts';
import { asUser, libraryUser, songIds } from './library-helpers.ts';

const DAY = 24 * 3600 * 1000;

describe.each(dialects.map((d) => [d.name, d] as const))('LibraryService on %s', (_name, dialect) => {
  let server: TestServer;
  let user: Awaited<ReturnType<typeof libraryUser>>;
  let call: ReturnType<typeof asUser>;
  // The server's clock: tests move it.
  let now = Date.parse('2026-11-20T10:00:00.000Z');

  beforeAll(async () => {
    server = await startTestServer(dialect, {}, { clock: () => now });
    user = await libraryUser(server);
    call = asUser(server, user.write);
  }, 60_000);
  afterAll(async () => server?.close());

  it('answers the signed-in user', async () => {
    const res = await call('GET', '/v1/users/me');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ user: { id: user.user.id, username: user.user.username, displayName: user.user.username, createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/) } });
  });

  it('refuses API keys (no user), and tokens without the scope an operation needs', async () => {
    const key = await server.app.inject({ method: 'GET', url: '/v1/library/saved', headers: { 'x-api-key': server.apiKey } });
    expect(key.statusCode).toBe(403);
    expect(key.json()).toMatchObject({ code: 'ERROR_CODE_PERMISSION_DENIED' });
    const readOnly = await asUser(server, user.read)('POST', '/v1/library/saved:batchAdd', { songIdList: songIds('song-ar') });
    expect(readOnly.statusCode).toBe(403);
    expect(readOnly.headers['www-authenticate']).toBe('Bearer error="insufficient_scope", scope="write"');
    const writeOnly = await asUser(server, user.writeOnly)('GET', '/v1/library/saved');
    expect(writeOnly.statusCode).toBe(403);
    expect(writeOnly.headers['www-authenticate']).toBe('Bearer error="insufficient_scope", scope="read"');
    expect((await server.app.inject({ method: 'GET', url: '/v1/users/me' })).statusCode).toBe(401);
  });

  it('saves songs and albums as a set: the first save\'s time stays, unknown and withdrawn ids are per-item NOT_FOUND', async () => {
    const first = await call('POST', '/v1/library/saved:batchAdd', { songIdList: songIds('song-ar', 'song-en', 'song-ar', 'nope', 'song-withdrawn'), albumIdList: songIds('album-1') });
    expect(first.statusCode, first.body).toBe(200);
    const at = new Date(now).toISOString();
    expect(first.json()).toEqual({
      songs: {
        'song-ar': { savedAt: at },
        'song-en': { savedAt: at },
        nope: { error: { code: 'ERROR_CODE_NOT_FOUND', message: 'No song with id "nope".' } },
        'song-withdrawn': { error: { code: 'ERROR_CODE_NOT_FOUND', message: 'No song with id "song-withdrawn".' } },
      },
      albums: { 'album-1': { savedAt: at } },
    });
    expect(Object.keys(first.json().songs)).toEqual(['song-ar', 'song-en', 'nope', 'song-withdrawn']);
    now += 1000;
    const again = await call('POST', '/v1/library/saved:batchAdd', { song_id_list: songIds('song-ar', 'song-fr') });
    expect(again.json().songs).toEqual({ 'song-ar': { savedAt: at }, 'song-fr': { savedAt: new Date(now).toISOString() } });
    const check = await call('POST', '/v1/library/saved:check', { songIdList: songIds('song-ar', 'nope'), albumIdList: songIds('album-1') });
    expect(check.json()).toEqual({ songs: { 'song-ar': { saved: true, savedAt: at }, nope: { saved: false } }, albums: { 'album-1': { saved: true, savedAt: at } } });
  });

  it('lists saved items newest first, then id, rendered as the catalog renders them, in pages bound to the user and types', async () => {
    const page = await call('GET', '/v1/library/saved?page_size=2', undefined, { 'accept-language': 'ar' });
    expect(page.statusCode, page.body).toBe(200);
    expect(page.headers['content-language']).toBe('ar');
    expect(page.headers['cache-control']).toBe('no-store');
    const body = page.json();
    expect(body.items.map((item: { song?: { id: { value: string } }; album?: { id: { value: string } } }) => item.song?.id.value ?? item.album?.id.value)).toEqual(['song-fr', 'album-1']);
    const song = await server.app.inject({ method: 'GET', url: '/v1/music/songs/song-fr', headers: { 'x-api-key': server.apiKey, 'accept-language': 'ar' } });
    expect(body.items[0]).toEqual({ song: song.json().song, savedAt: new Date(now).toISOString() });
    const next = await call('GET', `/v1/library/saved?page_size=2&page_token=${body.nextPageToken}`);
    expect(next.json().items.map((item: { song: { id: { value: string } } }) => item.song.id.value)).toEqual(['song-ar', 'song-en']);
    expect(next.json().nextPageToken).toBe('');
    const songsOnly = await call('GET', '/v1/library/saved?types=song');
    expect(songsOnly.json().items).toHaveLength(3);
    const wrongList = await call('GET', `/v1/library/saved?types=song&page_token=${body.nextPageToken}`);
    expect(wrongList.statusCode).toBe(400);
    expect(wrongList.json().violations[0].field).toBe('page_token');
    const other = await libraryUser(server);
    const stolen = await asUser(server, other.read)('GET', `/v1/library/saved?page_size=2&page_token=${body.nextPageToken}`);
    expect(stolen.statusCode).toBe(400);
    expect((await call('GET', '/v1/library/saved?types=song,video')).json().violations).toEqual([{ field: 'types', description: 'types must be a comma-separated list of song and album.' }]);
  });

  it('removes what is saved, succeeds on what is not, and the feed lists every change once, in commit order', async () => {
    const start = (await call('GET', '/v1/library/changes')).json().nextCursor;
    now += 1000;
    expect((await call('POST', '/v1/library/saved:batchRemove', { songIdList: songIds('song-en', 'nope') })).json()).toEqual({});
    expect((await call('POST', '/v1/library/following/artists:batchAdd', { artistIdList: songIds('artist-ar') })).json())
      .toEqual({ artists: { 'artist-ar': { followedAt: new Date(now).toISOString() } } });
    await call('POST', '/v1/library/following/artists:batchAdd', { artistIdList: songIds('artist-ar') });
    const feed = await call('GET', `/v1/library/changes?cursor=${start}`);
    const at = new Date(now).toISOString();
    expect(feed.json().changes).toEqual([
      { kind: 'song', id: 'song-en', change: 'CHANGE_REMOVED', at },
      { kind: 'artist', id: 'artist-ar', change: 'CHANGE_SAVED', at },
    ]);
    // Written as text: exactly the schema's JSON, members in its order.
    expect(feed.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(feed.body).toBe(`{"changes":[{"kind":"song","id":"song-en","change":"CHANGE_REMOVED","at":"${at}"},` +
      `{"kind":"artist","id":"artist-ar","change":"CHANGE_SAVED","at":"${at}"}],"nextCursor":${JSON.stringify(feed.json().nextCursor)}}`);
    const after = await call('GET', `/v1/library/changes?cursor=${feed.json().nextCursor}`);
    expect(after.json().changes).toEqual([]);
    expect(after.body).toBe(`{"changes":[],"nextCursor":${JSON.stringify(after.json().nextCursor)}}`);
    const following = await call('GET', '/v1/library/following/artists');
    expect(following.json().items.map((item: { artist: { id: { value: string } }; followedAt: string }) => [item.artist.id.value, item.followedAt])).toEqual([['artist-ar', at]]);
    // The checks' answers are written as text: exactly the schema's JSON, ids escaped, each once in the order asked.
    const followCheck = await call('POST', '/v1/library/following/artists:check', { artistIdList: songIds('say "hi"', 'artist-ar', 'say "hi"') });
    expect(followCheck.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(followCheck.body).toBe(`{"artists":{"say \\"hi\\"":{"following":false},"artist-ar":{"following":true,"followedAt":"${at}"}}}`);
    const savedCheck = await call('POST', '/v1/library/saved:check', { songIdList: songIds('song-ar', 'song-en') });
    const savedAt = savedCheck.json().songs['song-ar'].savedAt;
    expect(savedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(savedCheck.body).toBe(`{"songs":{"song-ar":{"saved":true,"savedAt":"${savedAt}"},"song-en":{"saved":false}},"albums":{}}`);
    const other = await libraryUser(server);
    const foreign = await asUser(server, other.read)('GET', `/v1/library/changes?cursor=${start}`);
    expect(foreign.statusCode).toBe(400);
    expect(foreign.json().violations[0].field).toBe('cursor');
  });

  it('refuses a cursor older than 90 days, saying to read the lists again', async () => {
    const cursor = (await call('GET', '/v1/library/changes')).json().nextCursor;
    now += 91 * DAY;
    // A new sign-in: the earlier tokens expired with the move.
    call = asUser(server, (await tokensFor(server, user.clientId, user.user.username, 'read write')).access_token);
    const res = await call('GET', `/v1/library/changes?cursor=${cursor}`);
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toContain('read the lists again');
    expect(res.json().violations[0].field).toBe('cursor');
  });

  it('counts plays of 30 s or half a short song, keeps skips, answers a playId reported again with its first result', async () => {
    const startedAt = new Date(now - 60_000).toISOString();
    const res = await call('POST', '/v1/library/history:report', {
      plays: [
        { playId: 'p-1', songId: { value: 'song-ar' }, startedAt, msPlayed: 30_000, context: { albumId: { value: 'album-1' } } },
        { playId: 'p-2', songId: { value: 'song-en' }, startedAt, msPlayed: 29_999 },
        { playId: 'p-3', songId: { value: 'nope' }, startedAt, msPlayed: 40_000 },
        { playId: 'p-4', songId: { value: 'song-ar' }, startedAt: new Date(now - 31 * DAY).toISOString(), msPlayed: 40_000 },
        { playId: 'p-5', songId: { value: 'song-ar' }, startedAt: new Date(now + 6 * 60_000).toISOString(), msPlayed: 40_000 },
      ],
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().results).toEqual({
      'p-1': { counted: true },
      'p-2': { counted: false },
      'p-3': { error: { code: 'ERROR_CODE_NOT_FOUND', message: 'No song with id "nope".' } },
      'p-4': { error: { code: 'ERROR_CODE_INVALID_REQUEST', message: 'The play "p-4" started more than 30 days ago.' } },
      'p-5': { error: { code: 'ERROR_CODE_INVALID_REQUEST', message: 'The play "p-5" starts more than 5 minutes from now.' } },
    });
    const again = await call('POST', '/v1/library/history:report', { plays: [{ playId: 'p-2', songId: { value: 'song-en' }, startedAt, msPlayed: 200_000 }] });
    expect(again.json().results).toEqual({ 'p-2': { counted: false } });
    const history = await call('GET', '/v1/library/history');
    expect(history.json().entries).toHaveLength(1);
    expect(history.json().entries[0]).toMatchObject({ playId: 'p-1', playedAt: startedAt, msPlayed: 30_000, context: { albumId: { value: 'album-1' } }, song: { id: { value: 'song-ar' } } });
  });

  it('pages plays that share a start time by playId, each once, on into the older ones', async () => {
    const play = (playId: string, at: number) => ({ playId, songId: { value: 'song-ar' }, startedAt: new Date(at).toISOString(), msPlayed: 40_000 });
    const older = Array.from({ length: 25 }, (_, i) => play(`tie-a-${String(i).padStart(2, '0')}`, now - 20_000));
    const newer = Array.from({ length: 10 }, (_, i) => play(`tie-b-${i}`, now - 10_000));
    expect((await call('POST', '/v1/library/history:report', { plays: [...older, ...newer].reverse() })).statusCode).toBe(200);
    const listed: string[] = [];
    for (let token = '', pages = 0; pages < 20; pages++) {
      const page = await call('GET', `/v1/library/history?page_size=7${token ? `&page_token=${token}` : ''}`);
      expect(page.statusCode, page.body).toBe(200);
      listed.push(...(page.json().entries as { playId: string }[]).map((entry) => entry.playId));
      token = page.json().nextPageToken;
      if (!token) break;
    }
    // Newest first, then playId; p-1 (reported a minute back by the test before) comes last.
    expect(listed).toEqual([...newer.map((p) => p.playId), ...older.map((p) => p.playId), 'p-1']);
  });

  it('answers every page size alike: walks that change the size from page to page list the plays of one page of 100', async () => {
    const all = (await call('GET', '/v1/library/history?page_size=100')).json().entries.map((entry: { playId: string }) => entry.playId);
    expect(all.length).toBeGreaterThan(30);
    // More sizes than SQLite keeps prepared for one query (storage/sqlite.ts, withLimitsWritten), each used again.
    for (let first = 1; first <= 40; first += 3) {
      const listed: string[] = [];
      for (let token = '', size = first; ; size = (size % 40) + 1) {
        const page = await call('GET', `/v1/library/history?page_size=${size}${token ? `&page_token=${token}` : ''}`);
        expect(page.statusCode, page.body).toBe(200);
        const entries = page.json().entries as { playId: string }[];
        expect(entries.length).toBe(Math.min(size, all.length - listed.length));
        listed.push(...entries.map((entry) => entry.playId));
        token = page.json().nextPageToken;
        if (!token) break;
      }
      expect(listed).toEqual(all);
    }
  });

  it('refuses bad bodies with a 400 naming the field', async () => {
    const none = await call('POST', '/v1/library/saved:batchAdd', {});
    expect(none.statusCode).toBe(400);
    expect(none.json().violations[0].field).toBe('songIdList');
    const tooMany = await call('POST', '/v1/library/saved:batchAdd', { songIdList: songIds(...Array.from({ length: 60 }, (_, i) => `s${i}`)), albumIdList: songIds(...Array.from({ length: 41 }, (_, i) => `a${i}`)) });
    expect(tooMany.statusCode).toBe(400);
    const badPlay = await call('POST', '/v1/library/history:report', { plays: [{ playId: 'bad id!', songId: { value: 'song-ar' }, startedAt: 'yesterday', msPlayed: -1, context: { albumId: { value: 'a' }, artistId: { value: 'b' } } }] });
    expect(badPlay.statusCode).toBe(400);
    expect(badPlay.json().violations.map((v: { field: string }) => v.field).sort()).toEqual(['plays[0].context', 'plays[0].msPlayed', 'plays[0].playId', 'plays[0].startedAt']);
    // Ids are typed wherever they appear in a body, and a bare one is told the shape it must have (contract section 13).
    const bare = await call('POST', '/v1/library/history:report', {
      plays: [{ playId: 'p-bare', songId: 'song-ar', startedAt: new Date(now).toISOString(), msPlayed: 40_000, context: { playlistId: 'p-1' } }],
    });
    expect(bare.statusCode).toBe(400);
    expect(bare.json().violations).toEqual([
      { field: 'plays[0].songId', description: 'plays[0].songId must be an object such as {"value":"song-1"}.' },
      { field: 'plays[0].context.playlistId', description: 'plays[0].context.playlistId must be an object such as {"value":"playlist-1"}.' },
    ]);
    const bareSave = await call('POST', '/v1/library/saved:batchAdd', { albumIdList: ['album-1'] }, { 'accept-language': 'ar' });
    expect(bareSave.json().violations).toEqual([{ field: 'albumIdList[0]', description: 'يجب أن يكون albumIdList[0] كائنًا مثل {"value":"album-1"}.' }]);
    const nul = await call('POST', '/v1/library/following/artists:batchAdd', { artistIdList: songIds('a\u0000b') });
    expect(nul.statusCode).toBe(400);
    expect(nul.json().violations[0].field).toBe('artistIdList[0].value');
  });
});

describe.each(dialects.map((d) => [d.name, d] as const))('listening history kept MAQAM_HISTORY_DAYS on %s', (_name, dialect) => {
  let server: TestServer;
  let now = Date.parse('2026-11-20T10:00:00.000Z');
  beforeAll(async () => {
    server = await startTestServer(dialect, { MAQAM_HISTORY_DAYS: '2' }, { clock: () => now });
  }, 60_000);
  afterAll(async () => server?.close());

  it('lists plays of the last days only, and forgets older ones of a user who reports more', async () => {
    const user = await libraryUser(server);
    let call = asUser(server, user.write);
    const play = (playId: string, startedAt: number) => ({ playId, songId: { value: 'song-ar' }, startedAt: new Date(startedAt).toISOString(), msPlayed: 40_000 });
    expect((await call('POST', '/v1/library/history:report', { plays: [play('old', now - DAY - 1000), play('new', now - 1000)] })).statusCode).toBe(200);
    const listed = async () => ((await call('GET', '/v1/library/history')).json().entries as { playId: string }[]).map((entry) => entry.playId);
    expect(await listed()).toEqual(['new', 'old']);
    now += DAY + 2000; // "old" started more than two days ago now
    // A new sign-in: the token expired with the move.
    call = asUser(server, (await tokensFor(server, user.clientId, user.user.username, 'read write')).access_token);
    expect(await listed()).toEqual(['new']);
    const kept = async () => (await server.storage.db.selectFrom('play_history').select('play_id').where('user_id', '=', user.user.id).execute()).map((row) => row.play_id).sort();
    expect(await kept()).toEqual(['new', 'old']);
    await call('POST', '/v1/library/history:report', { plays: [play('newer', now - 1000)] });
    // Forgotten off the report's path: the node sweeps the users it wrote for once a minute.
    expect(await kept()).toEqual(['new', 'newer', 'old']);
    await server.app.retention.sweep();
    expect(await kept()).toEqual(['new', 'newer']);
  });

  it('takes an Idempotency-Key as new after its 24 hours, whether its answer was swept yet or not', async () => {
    const user = await libraryUser(server);
    const signIn = async () => asUser(server, (await tokensFor(server, user.clientId, user.user.username, 'read write')).access_token);
    let call = await signIn();
    const key = { 'idempotency-key': 'a-day-old' };
    const save = { songIdList: songIds('song-ar') };
    expect((await call('POST', '/v1/library/saved:batchAdd', save, key)).statusCode).toBe(200);
    expect((await call('POST', '/v1/library/saved:batchAdd', save, key)).headers['idempotent-replayed']).toBe('true');
    expect((await call('POST', '/v1/library/saved:batchRemove', save, key)).statusCode).toBe(409);
    // A day on, not swept yet: the key is free for another request, which is done and kept.
    now += DAY + 1000;
    call = await signIn();
    const removed = await call('POST', '/v1/library/saved:batchRemove', save, key);
    expect([removed.statusCode, removed.headers['idempotent-replayed']]).toEqual([200, undefined]);
    expect((await call('POST', '/v1/library/saved:batchRemove', save, key)).headers['idempotent-replayed']).toBe('true');
    // Another day on, swept (the record is gone): free again.
    now += DAY + 1000;
    call = await signIn();
    const records = () => server.storage.db.selectFrom('idempotency_records').select('key').where('user_id', '=', user.user.id).execute();
    expect(await records()).toEqual([{ key: 'a-day-old' }]);
    await server.app.retention.sweep();
    expect(await records()).toEqual([]);
    const saved = await call('POST', '/v1/library/saved:batchAdd', save, key);
    expect([saved.statusCode, saved.headers['idempotent-replayed']]).toEqual([200, undefined]);
  });
});
