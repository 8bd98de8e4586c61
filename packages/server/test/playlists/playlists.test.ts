import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../dialects.ts';
import { startTestServer, type TestServer } from '../harness.ts';
import { libraryUser } from '../library/library-helpers.ts';
import { allEntries, caller, importMoreAlbums, importRecords, songIds, songsOf, type Entry } from './playlist-helpers.ts';

const MAX_ITEMS = 40;
const RFC3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe.each(dialects.map((d) => [d.name, d] as const))('PlaylistService on %s', (_name, dialect) => {
  let server: TestServer;
  let owner: Awaited<ReturnType<typeof libraryUser>>;
  let other: Awaited<ReturnType<typeof libraryUser>>;
  let call: ReturnType<typeof caller>;
  let otherCall: ReturnType<typeof caller>;
  let keyCall: ReturnType<typeof caller>;
  // The server's clock: tests move it.
  let now = Date.parse('2026-11-20T10:00:00.000Z');

  beforeAll(async () => {
    server = await startTestServer(dialect, { MAQAM_PLAYLIST_MAX_ITEMS: String(MAX_ITEMS), MAQAM_RATE_LIMIT: '0' }, { clock: () => now });
    await importMoreAlbums(server, [{
      kind: 'song', id: 'song-soon-gone', title: { en: 'Soon Gone' }, originalLanguage: 'en', artistIds: ['artist-en'], albumId: 'album-1', durationMs: 1000,
      trackNumber: 2, discNumber: 1, releaseDate: '2001-01-01', genres: [], isExplicit: false, isrc: '', hasLyrics: false, popularity: 1, artwork: [], previewUrl: '',
    }]);
    owner = await libraryUser(server);
    other = await libraryUser(server);
    call = caller(server.app, { token: owner.write });
    otherCall = caller(server.app, { token: other.write });
    keyCall = caller(server.app, { apiKey: server.apiKey });
  }, 60_000);
  afterAll(async () => server?.close());

  async function create(body: object, as = call) {
    const res = await as('POST', '/v1/playlists', body);
    expect(res.statusCode, res.body).toBe(201);
    return res.json().playlist as { id: { value: string }; version: string; itemCount: number; coverArtwork: { url: string }[] };
  }

  it('creates a playlist: 201, Location, ETag, the details as written, duplicates as two entries', async () => {
    const res = await call('POST', '/v1/playlists', { name: '  سهرة  ', description: 'للمساء', song_id_list: songIds('song-ar', 'song-en', 'song-ar') });
    expect(res.statusCode, res.body).toBe(201);
    const { playlist } = res.json();
    expect(res.headers.location).toBe(`/v1/playlists/${playlist.id.value}`);
    expect(res.headers.etag).toBe('"1"');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(playlist).toEqual({
      id: { value: expect.stringMatching(/^[A-Za-z0-9_-]{16}$/) },
      name: { value: 'سهرة', originalValue: 'سهرة' },
      description: { value: 'للمساء', originalValue: 'للمساء' },
      visibility: 'PLAYLIST_VISIBILITY_PRIVATE',
      ownerId: owner.user.id,
      ownerName: owner.user.username,
      coverArtwork: [{ url: expect.stringMatching(/\/artwork\/mosaics\/album-1\.svg$/), width: 300, height: 300 }],
      itemCount: 3,
      totalDurationMs: String(3 * 215_000),
      createdAt: new Date(now).toISOString(),
      updatedAt: new Date(now).toISOString(),
      version: '1',
    });
    const read = await call('GET', res.headers.location as string);
    expect(read.statusCode, read.body).toBe(200);
    const items = read.json().items as Entry[];
    expect(songsOf(items)).toEqual(['song-ar', 'song-en', 'song-ar']);
    expect(items.map((item) => item.position)).toEqual([0, 1, 2]);
    expect(new Set(items.map((item) => item.itemId)).size).toBe(3);
    expect(items[0]!.addedAt).toMatch(RFC3339);
    // Each song exactly as the catalog renders it for the request's language.
    const song = await server.call({ method: 'GET', url: '/v1/music/songs/song-ar', headers: { 'accept-language': 'en' } });
    expect(items[0]!.song).toEqual(song.json().song);
  });

  it('refuses a bad playlist whole: names out of bounds once trimmed, unknown or withdrawn songs named by path, bad visibility', async () => {
    const blank = await call('POST', '/v1/playlists', { name: '   ' });
    expect(blank.statusCode).toBe(400);
    expect(blank.json().violations).toEqual([{ field: 'name', description: 'name must be 1 to 100 characters once trimmed.' }]);
    const long = await call('POST', '/v1/playlists', { name: 'ن'.repeat(101), description: 'x'.repeat(301) });
    expect(long.json().violations.map((v: { field: string }) => v.field)).toEqual(['name', 'description']);
    const songs = await call('POST', '/v1/playlists', { name: 'x', songIdList: songIds('song-ar', 'nope', 'song-withdrawn') });
    expect(songs.statusCode).toBe(400);
    expect(songs.json().violations.map((v: { field: string }) => v.field)).toEqual(['songIdList[1].value', 'songIdList[2].value']);
    const visibility = await call('POST', '/v1/playlists', { name: 'x', visibility: 'PLAYLIST_VISIBILITY_FRIENDS' });
    expect(visibility.statusCode).toBe(400);
    expect(visibility.json().violations[0].field).toBe('visibility');
    const mine = await call('GET', '/v1/playlists?page_size=100');
    expect(mine.json().playlists.map((p: { name: { value: string } }) => p.name.value)).not.toContain('x');
  });

  it('lets the owner read and write, anyone read a public one, and nobody else learn a private one exists', async () => {
    const playlist = await create({ name: 'خاصة', songIdList: songIds('song-fr') });
    const url = `/v1/playlists/${playlist.id.value}`;
    for (const [who, as] of [['other user', otherCall], ['API key', keyCall]] as const) {
      expect((await as('GET', url)).statusCode, who).toBe(404);
      expect((await as('GET', `${url}/items`)).statusCode, who).toBe(404);
    }
    const unknown = await otherCall('GET', '/v1/playlists/no-such-playlist');
    const hidden = await otherCall('GET', url);
    expect({ ...hidden.json(), requestId: 0 }).toEqual({ ...unknown.json(), message: unknown.json().message.replace('no-such-playlist', playlist.id.value), requestId: 0 });
    // Writes by another user: private, as unknown (404); public, refused (403).
    expect((await otherCall('PATCH', url, { name: 'mine now' })).statusCode).toBe(404);
    expect((await otherCall('POST', `${url}/items:batchAdd`, { songIdList: songIds('song-ar') })).statusCode).toBe(404);
    expect((await call('PATCH', url, { visibility: 'PLAYLIST_VISIBILITY_PUBLIC' })).statusCode).toBe(200);
    expect((await otherCall('GET', url)).statusCode).toBe(200);
    expect((await keyCall('GET', `${url}/items`)).statusCode).toBe(200);
    for (const [method, path, body] of [
      ['PATCH', url, { name: 'mine now' }],
      ['DELETE', url, undefined],
      ['POST', `${url}/items:batchAdd`, { songIdList: songIds('song-ar') }],
      ['POST', `${url}/items:batchRemove`, { itemIds: ['x'] }],
      ['POST', `${url}/items:move`, { itemIds: ['x'] }],
      ['PUT', `${url}/items`, { songIdList: [] }],
    ] as const) {
      const res = await otherCall(method, path, body, { 'if-match': '"2"' });
      expect(res.statusCode, `${method} ${path}`).toBe(403);
      expect(res.json().code).toBe('ERROR_CODE_PERMISSION_DENIED');
      // An API key has no user to write for; a token without write lacks the scope; no credential is a 401.
      expect((await keyCall(method, path, body)).statusCode).toBe(403);
      const readOnly = await caller(server.app, { token: owner.read })(method, path, body);
      expect(readOnly.statusCode).toBe(403);
      expect(readOnly.headers['www-authenticate']).toBe('Bearer error="insufficient_scope", scope="write"');
      expect((await server.app.inject({ method, url: path })).statusCode).toBe(401);
    }
    expect((await call('GET', url)).json().playlist).toMatchObject({ name: { value: 'خاصة' }, itemCount: 1, version: '2' });
    // GetUserPlaylists is a user's own: an API key has no user.
    expect((await keyCall('GET', '/v1/playlists')).statusCode).toBe(403);
  });

  it('answers reads with the version as ETag and 304 to a matching If-None-Match; writes answer the new version', async () => {
    const playlist = await create({ name: 'versions', songIdList: songIds('song-ar') });
    const url = `/v1/playlists/${playlist.id.value}`;
    const first = await call('GET', url);
    expect(first.headers.etag).toBe('"1"');
    expect(first.headers['cache-control']).toBe('private, no-cache');
    const same = await call('GET', url, undefined, { 'if-none-match': '"1"' });
    expect(same.statusCode).toBe(304);
    expect(same.body).toBe('');
    expect((await call('GET', `${url}/items`, undefined, { 'if-none-match': 'W/"1", "9"' })).statusCode).toBe(304);
    const added = await call('POST', `${url}/items:batchAdd`, { songIdList: songIds('song-en') });
    expect(added.headers.etag).toBe('"2"');
    expect(added.json().version).toBe('2');
    const changed = await call('GET', `${url}/items`, undefined, { 'if-none-match': '"1"' });
    expect(changed.statusCode).toBe(200);
    expect(changed.headers.etag).toBe('"2"');
    expect(changed.json().version).toBe('2');
  });

  it('applies a write with If-Match only to that version: a stale one changes nothing and answers 412 with the current ETag', async () => {
    const playlist = await create({ name: 'preconditions', songIdList: songIds('song-ar') });
    const url = `/v1/playlists/${playlist.id.value}`;
    const ok = await call('PATCH', url, { description: 'one' }, { 'if-match': '"1"' });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.headers.etag).toBe('"2"');
    const stale = await call('POST', `${url}/items:batchAdd`, { songIdList: songIds('song-en') }, { 'if-match': '"1"' });
    expect(stale.statusCode).toBe(412);
    expect(stale.headers.etag).toBe('"2"');
    expect(stale.json()).toMatchObject({ code: 'ERROR_CODE_CONFLICT', message: expect.stringContaining('version 2') });
    const weak = await call('PATCH', url, { name: 'weak' }, { 'if-match': 'W/"2"' });
    expect(weak.statusCode).toBe(412);
    const malformed = await call('PATCH', url, { name: 'bare' }, { 'if-match': '2' });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json().violations[0].field).toBe('If-Match');
    const any = await call('PATCH', url, { name: 'any' }, { 'if-match': '*' });
    expect(any.statusCode).toBe(200);
    const read = await call('GET', url);
    expect(read.json().playlist).toMatchObject({ name: { value: 'any' }, description: { value: 'one' }, itemCount: 1, version: '3' });
    const replace = await call('PUT', `${url}/items`, { songIdList: songIds('song-fr') });
    expect(replace.statusCode).toBe(428);
    expect(replace.json()).toMatchObject({ code: 'ERROR_CODE_INVALID_REQUEST', violations: [{ field: 'If-Match' }] });
    const replaced = await call('PUT', `${url}/items`, { songIdList: songIds('song-fr', 'song-fr') }, { 'if-match': '"3"' });
    expect(replaced.statusCode, replaced.body).toBe(200);
    expect(replaced.json().version).toBe('4');
    expect(replaced.json().items.map((item: Entry) => [item.position, item.song?.id.value])).toEqual([[0, 'song-fr'], [1, 'song-fr']]);
    expect(songsOf(await allEntries(call, playlist.id.value))).toEqual(['song-fr', 'song-fr']);
  });

  it('adds at the end or before an entry, removes and moves entries by id, and keeps count, total and positions', async () => {
    const playlist = await create({ name: 'edits', songIdList: songIds('song-ar', 'song-en') });
    const url = `/v1/playlists/${playlist.id.value}`;
    let entries = await allEntries(call, playlist.id.value);
    const [ar, en] = entries.map((entry) => entry.itemId);
    const added = await call('POST', `${url}/items:batchAdd`, { songIdList: songIds('song-fr', 'song-ar'), before_item_id: en });
    expect(added.statusCode, added.body).toBe(200);
    expect(added.json().items.map((item: Entry) => [item.position, item.song?.id.value])).toEqual([[1, 'song-fr'], [2, 'song-ar']]);
    entries = await allEntries(call, playlist.id.value);
    expect(songsOf(entries)).toEqual(['song-ar', 'song-fr', 'song-ar', 'song-en']);
    expect(entries.map((entry) => entry.position)).toEqual([0, 1, 2, 3]);
    // Removing one entry of a duplicated song leaves the other; one already gone is skipped.
    const secondAr = entries[2]!.itemId;
    const removed = await call('POST', `${url}/items:batchRemove`, { itemIds: [secondAr, secondAr, 'gone'] });
    expect(removed.json()).toEqual({ removed: 1, version: '3' });
    expect((await call('POST', `${url}/items:batchRemove`, { itemIds: [secondAr] })).json()).toEqual({ removed: 0, version: '4' });
    expect(songsOf(await allEntries(call, playlist.id.value))).toEqual(['song-ar', 'song-fr', 'song-en']);
    // Moves: before an entry, in the order given; to the end.
    const fr = entries[1]!.itemId;
    expect((await call('POST', `${url}/items:move`, { itemIds: [en, fr], beforeItemId: ar })).json()).toEqual({ version: '5' });
    expect((await allEntries(call, playlist.id.value)).map((entry) => entry.itemId)).toEqual([en, fr, ar]);
    expect((await call('POST', `${url}/items:move`, { itemIds: [en] })).statusCode).toBe(200);
    expect((await allEntries(call, playlist.id.value)).map((entry) => entry.itemId)).toEqual([fr, ar, en]);
    const read = (await call('GET', url)).json().playlist;
    expect(read).toMatchObject({ itemCount: 3, totalDurationMs: String(3 * 215_000), version: '6' });
    // What cannot be placed changes nothing.
    const missingBefore = await call('POST', `${url}/items:batchAdd`, { songIdList: songIds('song-ar'), beforeItemId: secondAr });
    expect(missingBefore.statusCode).toBe(409);
    expect(missingBefore.json().code).toBe('ERROR_CODE_CONFLICT');
    expect((await call('POST', `${url}/items:move`, { itemIds: [fr, secondAr] })).statusCode).toBe(409);
    const twice = await call('POST', `${url}/items:move`, { itemIds: [fr, fr] });
    expect(twice.json().violations).toEqual([{ field: 'itemIds[1]', description: 'itemIds[1] names an entry already named in itemIds.' }]);
    expect((await call('POST', `${url}/items:move`, { itemIds: [fr], beforeItemId: fr })).json().violations[0].field).toBe('beforeItemId');
    const unknownSong = await call('POST', `${url}/items:batchAdd`, { songIdList: songIds('song-ar', 'song-withdrawn') });
    expect(unknownSong.json().violations).toEqual([{ field: 'songIdList[1].value', description: 'songIdList[1].value names no song in the catalog (unknown or withdrawn).' }]);
    expect((await call('GET', url)).json().playlist).toMatchObject({ itemCount: 3, version: '6' });
    expect((await allEntries(call, playlist.id.value)).map((entry) => entry.itemId)).toEqual([fr, ar, en]);
  });

  it(`holds ${MAX_ITEMS} entries at most, and a user 1,000 playlists: a write past either changes nothing`, async () => {
    const playlist = await create({ name: 'full', songIdList: songIds(...Array.from({ length: MAX_ITEMS - 1 }, () => 'song-ar')) });
    const url = `/v1/playlists/${playlist.id.value}`;
    const over = await call('POST', `${url}/items:batchAdd`, { songIdList: songIds('song-en', 'song-fr') });
    expect(over.statusCode).toBe(400);
    expect(over.json().message).toBe(`A playlist holds ${MAX_ITEMS} entries at most; this one has ${MAX_ITEMS - 1} and the request adds 2. Nothing was changed.`);
    expect((await call('POST', `${url}/items:batchAdd`, { songIdList: songIds('song-en') })).statusCode).toBe(200);
    expect((await call('GET', url)).json().playlist.itemCount).toBe(MAX_ITEMS);
    const tooBig = await call('POST', '/v1/playlists', { name: 'too big', songIdList: songIds(...Array.from({ length: MAX_ITEMS + 1 }, () => 'song-ar')) });
    expect(tooBig.statusCode).toBe(400);

    const many = await libraryUser(server);
    const manyCall = caller(server.app, { token: many.write });
    // 999 made directly (the limit is what is tested), then the 1,000th through the API, then one more.
    await server.storage.db.insertInto('playlists').values(Array.from({ length: 999 }, (_, i) => ({
      id: `bulk-${many.user.id}-${i}`, owner_id: many.user.id, name: `p${i}`, description: '', visibility: 'PLAYLIST_VISIBILITY_PRIVATE' as const,
      created_at: 0, updated_at: 0, version: 1, item_count: 0, total_duration_ms: 0, cover_album_ids: '[]',
    }))).execute();
    expect((await manyCall('POST', '/v1/playlists', { name: 'the 1000th' })).statusCode).toBe(201);
    const past = await manyCall('POST', '/v1/playlists', { name: 'the 1001st' });
    expect(past.statusCode).toBe(400);
    expect(past.json().message).toContain('1000 playlists at most');
    // A 400 is a ValidationError: at least one violation (issue 51).
    expect(past.json().violations).toEqual([{ field: 'body', description: expect.stringContaining('1000 playlists at most') }]);
  });

  it('refuses a name or description that is not Unicode text (a lone surrogate) instead of storing U+FFFD', async () => {
    for (const body of ['{"name":"half \\ud83c"}', '{"name":"ok","description":"\\udc00 alone"}']) {
      const res = await call('POST', '/v1/playlists', body);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().violations[0].description).toContain('surrogate');
    }
    // Bytes that are not UTF-8 would decode to U+FFFD: the body is refused whole, naming it.
    const notUtf8 = Buffer.concat([Buffer.from('{"name":"caf'), Buffer.from([0xe9]), Buffer.from('"}')]);
    const res = await server.app.inject({ method: 'POST', url: '/v1/playlists', headers: { authorization: `Bearer ${owner.write}`, 'content-type': 'application/json', 'accept-language': 'en' }, payload: notUtf8 });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().violations).toEqual([{ field: 'body', description: 'The body is not UTF-8 text; send JSON encoded as UTF-8.' }]);
  });

  it('pages entries with tokens that stay good while the playlist changes: none twice, none that stayed skipped', async () => {
    const songs = Array.from({ length: 30 }, (_, i) => ['song-ar', 'song-en', 'song-fr'][i % 3]!);
    const playlist = await create({ name: 'paging', songIdList: songIds(...songs) });
    const url = `/v1/playlists/${playlist.id.value}`;
    const before = await allEntries(call, playlist.id.value);
    const first = (await call('GET', `${url}/items?page_size=10`)).json();
    expect(first.items.map((item: Entry) => item.position)).toEqual([...Array(10).keys()]);
    // While the walk goes on: an entry it showed moves to the end, one it has not reached moves to the top,
    // one it has not reached is removed, and songs are added at the end and at the top.
    const shownThenMoved = before[3]!.itemId;
    const aheadMovedUp = before[20]!.itemId;
    const aheadRemoved = before[15]!.itemId;
    await call('POST', `${url}/items:move`, { itemIds: [shownThenMoved] });
    await call('POST', `${url}/items:move`, { itemIds: [aheadMovedUp], beforeItemId: before[0]!.itemId });
    await call('POST', `${url}/items:batchRemove`, { itemIds: [aheadRemoved] });
    await call('POST', `${url}/items:batchAdd`, { songIdList: songIds('song-ar') });
    await call('POST', `${url}/items:batchAdd`, { songIdList: songIds('song-en'), beforeItemId: before[12]!.itemId });
    const rest: Entry[] = [];
    let token = first.nextPageToken as string;
    while (token !== '') {
      const page = await call('GET', `${url}/items?page_size=10&page_token=${token}`);
      expect(page.statusCode, page.body).toBe(200);
      rest.push(...page.json().items);
      token = page.json().nextPageToken;
    }
    const walked = [...first.items, ...rest].map((entry: Entry) => entry.itemId);
    expect(new Set(walked).size).toBe(walked.length);
    const stayed = before.map((entry) => entry.itemId).filter((id) => ![shownThenMoved, aheadMovedUp, aheadRemoved].includes(id));
    for (const id of stayed) expect(walked).toContain(id);
    // Positions are where each entry stands now.
    const now = await allEntries(call, playlist.id.value);
    const positionNow = new Map(now.map((entry) => [entry.itemId, entry.position]));
    for (const entry of rest) expect(entry.position).toBe(positionNow.get(entry.itemId));
    expect(now.map((entry) => entry.position)).toEqual([...Array(now.length).keys()]);
    // A token pages only its own playlist.
    const another = await create({ name: 'another', songIdList: songIds('song-ar') });
    const stolen = await call('GET', `/v1/playlists/${another.id.value}/items?page_token=${first.nextPageToken}`);
    expect(stolen.statusCode).toBe(400);
    expect(stolen.json().violations[0].field).toBe('page_token');
  });

  it('keeps the order through many inserts at one spot, and tokens from before go on where they were', async () => {
    const playlist = await create({ name: 'crowded', songIdList: songIds('song-ar', 'song-en', 'song-fr', 'song-ar') });
    const url = `/v1/playlists/${playlist.id.value}`;
    const start = await allEntries(call, playlist.id.value);
    const first = (await call('GET', `${url}/items?page_size=2`)).json();
    const expected = start.map((entry) => entry.itemId);
    // Each insert halves the gap before the third entry: 30 of them outlast any gap.
    for (let i = 0; i < 30; i++) {
      const added = (await call('POST', `${url}/items:batchAdd`, { songIdList: songIds('song-fr'), beforeItemId: start[2]!.itemId })).json();
      expected.splice(expected.indexOf(start[2]!.itemId), 0, added.items[0].itemId);
      expect(added.items[0].position).toBe(expected.indexOf(added.items[0].itemId));
    }
    expect((await allEntries(call, playlist.id.value, 7)).map((entry) => entry.itemId)).toEqual(expected);
    // The walk begun before goes on after the entry it last showed, whatever its key is now; the added ones are new to it.
    const rest = (await call('GET', `${url}/items?page_token=${first.nextPageToken}`)).json();
    expect(rest.items.map((item: Entry) => item.itemId)).toEqual(start.slice(2).map((entry) => entry.itemId));
    expect(rest.items.map((item: Entry) => item.position)).toEqual([32, 33]);
  });

  it('keeps a page token good after its last entry moved away and many entries came where it was (issue 51)', async () => {
    const playlist = await create({ name: 'moved', songIdList: songIds('song-ar', 'song-en', 'song-fr', 'song-ar', 'song-en') });
    const url = `/v1/playlists/${playlist.id.value}`;
    const start = await allEntries(call, playlist.id.value);
    const first = (await call('GET', `${url}/items?page_size=2`)).json();
    // The last entry the page showed moves to the end, and 30 entries go where it was, one at a time: once, that renumbered the playlist.
    expect((await call('POST', `${url}/items:move`, { itemIds: [start[1]!.itemId] })).statusCode).toBe(200);
    for (let i = 0; i < 30; i++) {
      expect((await call('POST', `${url}/items:batchAdd`, { songIdList: songIds('song-fr'), beforeItemId: start[2]!.itemId })).statusCode).toBe(200);
    }
    // The walk goes on with the entries that were after it and stayed, each once; what moved or came since is new to it.
    const rest: Entry[] = [];
    for (let token = first.nextPageToken as string; token !== '';) {
      const page = await call('GET', `${url}/items?page_size=2&page_token=${encodeURIComponent(token)}`);
      expect(page.statusCode, page.body).toBe(200);
      rest.push(...page.json().items);
      token = page.json().nextPageToken;
    }
    expect(rest.map((item) => item.itemId)).toEqual([start[2]!.itemId, start[3]!.itemId, start[4]!.itemId]);
    expect(rest.map((item) => item.position)).toEqual([31, 32, 33]);
  });

  it('keeps keys short when entries go to the top again and again, and bounds what goes between the same two entries', async () => {
    const playlist = await create({ name: 'bumped', songIdList: songIds('song-ar', 'song-en', 'song-fr') });
    const url = `/v1/playlists/${playlist.id.value}`;
    const tokenLength = async () => ((await call('GET', `${url}/items?page_size=1`)).json().nextPageToken as string).length;
    const before = await tokenLength();
    // "Bump to top", a thousand times: the first key takes whole steps down, as appends take them up.
    const order = (await allEntries(call, playlist.id.value)).map((entry) => entry.itemId);
    for (let i = 0; i < 1000; i++) {
      expect((await call('POST', `${url}/items:move`, { itemIds: [order[2]!], beforeItemId: order[0]! })).statusCode).toBe(200);
      order.unshift(order.pop()!);
    }
    expect((await allEntries(call, playlist.id.value)).map((entry) => entry.itemId)).toEqual(order);
    // The token holds the version too (1 then 1,001): a few characters more, where halving the first key made it grow by hundreds.
    expect(await tokenLength()).toBeLessThanOrEqual(before + 8);
    // Two entries moved in turn just before the same one: each move halves the room there, until the write is refused, changing nothing.
    const [a, b, c] = await allEntries(call, playlist.id.value);
    let refused: { statusCode: number; json(): { code: string; message: string } } | undefined;
    for (let i = 0; i < 1000 && refused === undefined; i++) {
      const moved = await call('POST', `${url}/items:move`, { itemIds: [i % 2 === 0 ? a!.itemId : b!.itemId], beforeItemId: c!.itemId });
      if (moved.statusCode !== 200) refused = moved;
    }
    expect(refused?.statusCode).toBe(409);
    expect(refused?.json().message).toContain('one at a time');
    expect((await allEntries(call, playlist.id.value)).map((entry) => entry.itemId).sort()).toEqual([a!.itemId, b!.itemId, c!.itemId].sort());
    // Elsewhere there is room: the end.
    expect((await call('POST', `${url}/items:move`, { itemIds: [a!.itemId] })).statusCode).toBe(200);
  });

  it('keeps an entry whose song was withdrawn in its place, with NOT_FOUND instead of the song', async () => {
    const playlist = await create({ name: 'withdrawn', songIdList: songIds('song-ar', 'song-soon-gone', 'song-en') });
    await importRecords(server, [{
      kind: 'song', id: 'song-soon-gone', title: { en: 'Soon Gone' }, originalLanguage: 'en', artistIds: ['artist-en'], albumId: 'album-1', durationMs: 1000,
      trackNumber: 2, discNumber: 1, releaseDate: '2001-01-01', genres: [], isExplicit: false, isrc: '', hasLyrics: false, popularity: 1, artwork: [], previewUrl: '', withdrawn: true,
    }]);
    const items = (await call('GET', `/v1/playlists/${playlist.id.value}`)).json().items as Entry[];
    expect(items.map((item) => item.position)).toEqual([0, 1, 2]);
    expect(items[1]).toEqual({ itemId: expect.any(String), position: 1, addedAt: expect.stringMatching(RFC3339), error: { code: 'ERROR_CODE_NOT_FOUND', message: 'No song with id "song-soon-gone".' } });
    expect(songsOf(items)).toEqual(['song-ar', '!ERROR_CODE_NOT_FOUND', 'song-en']);
  });

  it('draws its cover from the first four distinct albums, one album\'s cover when there are fewer, none when empty', async () => {
    const empty = await create({ name: 'empty' });
    expect(empty.coverArtwork).toEqual([]);
    const playlist = await create({ name: 'mosaic', songIdList: songIds('song-2', 'song-3', 'song-2') });
    expect(playlist.coverArtwork[0]!.url).toMatch(/\/artwork\/mosaics\/album-2\.svg$/);
    const url = `/v1/playlists/${playlist.id.value}`;
    const added = await call('POST', `${url}/items:batchAdd`, { songIdList: songIds('song-4', 'song-5', 'song-ar') });
    expect(added.statusCode).toBe(200);
    const cover = (await call('GET', url)).json().playlist.coverArtwork[0].url as string;
    expect(cover).toMatch(/\/artwork\/mosaics\/album-2\/album-3\/album-4\/album-5\.svg$/);
    const image = await server.app.inject({ method: 'GET', url: new URL(cover).pathname });
    expect(image.statusCode).toBe(200);
    expect(image.headers['content-type']).toBe('image/svg+xml; charset=utf-8');
    expect(image.headers['cache-control']).toBe('public, max-age=86400');
    expect(image.body.match(/<svg x="/g)).toHaveLength(4);
    expect(image.body).toContain('aria-label="ألبوم 2 · ألبوم 3 · ألبوم 4 · ألبوم 5"');
    expect((await server.app.inject({ method: 'GET', url: new URL(cover).pathname, headers: { 'if-none-match': image.headers.etag as string } })).statusCode).toBe(304);
    // Moving an album's song out of the first four changes the cover's URL.
    const entries = await allEntries(call, playlist.id.value);
    await call('POST', `${url}/items:move`, { itemIds: [entries[0]!.itemId, entries[2]!.itemId] });
    expect((await call('GET', url)).json().playlist.coverArtwork[0].url).toMatch(/\/album-3\/album-4\/album-5\/album-1\.svg$/);
    expect((await server.app.inject({ method: 'GET', url: '/artwork/mosaics/album-2/album-3.svg' })).statusCode).toBe(404);
    expect((await server.app.inject({ method: 'GET', url: '/artwork/mosaics/no-such-album.svg' })).statusCode).toBe(404);
  });

  it('lists the user\'s playlists newest first, and reports each playlist\'s life in the change feed', async () => {
    const fresh = await libraryUser(server);
    const freshCall = caller(server.app, { token: fresh.write });
    const start = (await freshCall('GET', '/v1/library/changes')).json().nextCursor;
    const made: string[] = [];
    for (let i = 0; i < 3; i++) {
      now += 1000;
      made.push((await create({ name: `mine ${i}` }, freshCall)).id.value);
    }
    const page = (await freshCall('GET', '/v1/playlists?page_size=2')).json();
    expect(page.playlists.map((p: { id: { value: string } }) => p.id.value)).toEqual([made[2], made[1]]);
    const next = (await freshCall('GET', `/v1/playlists?page_size=2&page_token=${page.nextPageToken}`)).json();
    expect(next).toEqual({ playlists: [expect.objectContaining({ id: { value: made[0] } })], nextPageToken: '' });
    expect((await freshCall('GET', `/v1/playlists?page_token=${page.nextPageToken}`, undefined, { authorization: `Bearer ${other.read}` })).statusCode).toBe(400);
    await freshCall('POST', `/v1/playlists/${made[0]}/items:batchAdd`, { songIdList: songIds('song-ar') });
    const deleted = await freshCall('DELETE', `/v1/playlists/${made[0]}`);
    expect(deleted.statusCode, deleted.body).toBe(200);
    expect(deleted.json()).toEqual({});
    expect((await freshCall('GET', `/v1/playlists/${made[0]}`)).statusCode).toBe(404);
    expect((await freshCall('DELETE', `/v1/playlists/${made[0]}`)).statusCode).toBe(404);
    const changes = (await freshCall('GET', `/v1/library/changes?cursor=${start}`)).json().changes;
    expect(changes.map((c: { id: string; change: string }) => `${c.change} ${made.indexOf(c.id)}`)).toEqual([
      'CHANGE_SAVED 0', 'CHANGE_SAVED 1', 'CHANGE_SAVED 2', 'CHANGE_UPDATED 0', 'CHANGE_REMOVED 0',
    ]);
    expect(changes.every((c: { kind: string }) => c.kind === 'playlist')).toBe(true);
  });

  it('replays a create retried with its Idempotency-Key, ETag and Location included, and makes one playlist', async () => {
    const fresh = await libraryUser(server);
    const freshCall = caller(server.app, { token: fresh.write });
    const body = { name: 'once', songIdList: songIds('song-ar') };
    const first = await freshCall('POST', '/v1/playlists', body, { 'idempotency-key': 'create-once' });
    const again = await freshCall('POST', '/v1/playlists', body, { 'idempotency-key': 'create-once' });
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(first.body);
    expect([again.headers.etag, again.headers.location]).toEqual([first.headers.etag, first.headers.location]);
    expect((await freshCall('POST', '/v1/playlists', { ...body, name: 'other' }, { 'idempotency-key': 'create-once' })).statusCode).toBe(409);
    expect((await freshCall('GET', '/v1/playlists')).json().playlists).toHaveLength(1);
  });

  it('answers in the request\'s language, and names the If-None-Match or page token at fault', async () => {
    const playlist = await create({ name: 'لغات', songIdList: songIds('song-fr') });
    const url = `/v1/playlists/${playlist.id.value}`;
    const ar = await call('GET', url, undefined, { 'accept-language': 'ar' });
    expect(ar.headers['content-language']).toBe('ar');
    expect(ar.json().items[0].song.title.value).toBe('الليل');
    const notFound = await call('GET', '/v1/playlists/nope', undefined, { 'accept-language': 'ar' });
    expect(notFound.json().message).toBe('لا توجد قائمة تشغيل بالمعرّف "nope".');
    expect((await call('GET', url, undefined, { 'if-none-match': 'garbage' })).json().violations[0].field).toBe('If-None-Match');
    expect((await call('GET', `${url}/items?page_token=forged`)).json().violations[0].field).toBe('page_token');
  });
});
