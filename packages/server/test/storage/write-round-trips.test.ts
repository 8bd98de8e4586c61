import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { dialects, type TestDialect } from '../dialects.ts';
import { startTestServer, type TestServer } from '../harness.ts';
import { Redis } from 'ioredis';
import { REDIS_URL, redisUp } from '../redis.ts';
import { libraryUser } from '../library/library-helpers.ts';
import { caller, songIds } from '../playlists/playlist-helpers.ts';
import { importRecords, videoFixtureRecords } from '../video/video-fixtures.ts';
import { startRoundTripCounter, type RoundTripCounter } from './pg-round-trips.ts';

const postgres = dialects.find((d) => d.name === 'postgres');

/**
 * Each write's round trips, the catalog rows it reads cached as a running
 * node has them (they were 10 to 18 before issue 56). A keyed write makes
 * three: the Idempotency-Key's claim (on its own, so that a second request
 * with the key meanwhile is told at once: contract section 14); BEGIN with
 * the user's lock and every read the write needs; its writes, the feed's
 * changes with the counter and the answer kept, and COMMIT
 * (library/user-write.ts, storage/phases.ts). The PUT and DELETE take no key:
 * two. A write that gains a round trip fails here.
 */
const ROUND_TRIPS = {
  SaveItems: 3, RemoveSavedItems: 3, FollowArtists: 3, UnfollowArtists: 3, ReportPlays: 3, ReportProgress: 3, HideContinueWatching: 3,
  CreatePlaylist: 3, UpdatePlaylist: 2, AddPlaylistItems: 3, MovePlaylistItems: 3, RemovePlaylistItems: 3, ReplacePlaylistItems: 2, DeletePlaylist: 2,
  GetPlaylist: 2, GetPlaylistItems: 2,
};

/**
 * Each library read's round trips, a first page and the next. A check is a
 * POST: keyed as the SDK sends it, its key is claimed and its answer kept
 * (contract section 14), around its one read. A catalog read the node has
 * cached makes none.
 */
const READ_ROUND_TRIPS = {
  GetSavedItems: 1, GetSavedItemsNextPage: 1, CheckSavedItems: 3, GetFollowedArtists: 1, CheckFollowedArtists: 3,
  GetHistory: 1, GetLibraryChanges: 1, GetContinueWatching: 1, GetSong: 0, BatchGetSongs: 0,
};

/**
 * Issue 56: a write of sections 13 to 15, sent as the SDK sends it (with an
 * Idempotency-Key), makes at most three round trips to PostgreSQL, counted
 * on the wire by a proxy (a simple query or an extended-protocol Sync is
 * one), on the scale-out configuration (PostgreSQL and Redis). Each write
 * follows another, as an app's do: nothing is left in memory from a read.
 */
describe.runIf(postgres !== undefined && redisUp)('round trips of each write and read on PostgreSQL', () => {
  let counter: RoundTripCounter;
  let server: TestServer;
  let call: ReturnType<typeof caller>;
  const trips: Record<string, number> = {};

  beforeAll(async () => {
    const proxied: TestDialect = {
      name: 'postgres',
      async create() {
        const database = await postgres!.create();
        const url = new URL(database.url);
        counter = await startRoundTripCounter({ host: url.hostname, port: Number(url.port || 5432) });
        url.port = String(counter.port);
        return { url: url.toString(), drop: async () => { await counter.close(); await database.drop(); } };
      },
    };
    // The catalog's version is polled each second: not in these counts.
    server = await startTestServer(proxied, { MAQAM_RATE_LIMIT: '0', REDIS_URL }, { catalogPollMs: 3_600_000 });
    expect((await importRecords(server.storage, videoFixtureRecords())).errors).toEqual([]);
  }, 60_000);
  afterAll(async () => {
    redis?.disconnect();
    await server?.close();
  });

  let redis: Redis;
  /** The shared write version in Redis (storage/shared-write-version.ts). */
  async function sharedVersion(): Promise<string | null> {
    redis ??= new Redis(REDIS_URL);
    return redis.get(`maqam:write-epoch:${await server.storage.deploymentId()}`);
  }

  /** Sends a write with a fresh Idempotency-Key and answers its status, body and round trips. */
  async function write(name: string, method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE', url: string, body?: unknown, headers: Record<string, string> = {}) {
    // The token checked just before, as an app's steady requests keep it (a node trusts a checked credential for
    // seconds, then reads it again), and what an earlier request left running (a version announcement) finished.
    expect((await call('GET', '/v1/auth/tokeninfo')).statusCode).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 20));
    counter.reset();
    const version = await sharedVersion();
    const res = await call(method, url, body, { 'idempotency-key': randomUUID(), ...headers });
    // A library write leaves the shared write version alone: every node keeps the credentials it checked.
    expect(await sharedVersion(), `${name} changed the shared write version`).toBe(version);
    // The fewest of the passes: a node's own work on a timer (a sweep, a flush) may land inside one write, not in both.
    trips[name] = Math.min(trips[name] ?? Infinity, counter.count());
    if (process.env.SHOW_STATEMENTS) console.log(name, counter.statements());
    expect(res.statusCode, `${name}: ${res.body}`).toBeLessThan(300);
    return res;
  }

  it('counts each write\'s round trips', async () => {
    // Two passes, each as a new user (the same rows to write, so the same statements).
    for (let pass = 0; pass < 2; pass++) {
      call = caller(server.app, { token: (await libraryUser(server)).write });
      await writeEach();
    }
    expect(pick(trips, ROUND_TRIPS)).toEqual(ROUND_TRIPS);
  });

  it('counts each library read\'s round trips, and none for a catalog read the node has cached', async () => {
    for (let pass = 0; pass < 2; pass++) {
      call = caller(server.app, { token: (await libraryUser(server)).write });
      await call('POST', '/v1/library/saved:batchAdd', { songIdList: songIds('song-ar', 'song-en') });
      await call('POST', '/v1/library/following/artists:batchAdd', { artistIdList: songIds('artist-ar') });
      await call('POST', '/v1/library/history:report', { plays: [{ playId: randomUUID(), songId: { value: 'song-ar' }, startedAt: new Date().toISOString(), msPlayed: 45_000 }] });
      await call('POST', '/v1/library/progress:report', { progress: [{ movieId: { value: 'movie-all' }, positionMs: 1_000_000, reportedAt: new Date().toISOString() }] });
      const page = (await write('GetSavedItems', 'GET', '/v1/library/saved?types=song&page_size=1')).json();
      expect(page.nextPageToken).toBeTruthy();
      await write('GetSavedItemsNextPage', 'GET', `/v1/library/saved?types=song&page_size=1&page_token=${page.nextPageToken}`);
      await write('CheckSavedItems', 'POST', '/v1/library/saved:check', { songIdList: songIds('song-ar', 'song-en', 'song-unknown') });
      await write('GetFollowedArtists', 'GET', '/v1/library/following/artists');
      await write('CheckFollowedArtists', 'POST', '/v1/library/following/artists:check', { artistIdList: songIds('artist-ar') });
      await write('GetHistory', 'GET', '/v1/library/history');
      await write('GetLibraryChanges', 'GET', '/v1/library/changes');
      expect((await write('GetContinueWatching', 'GET', '/v1/library/continue-watching')).json().items).toHaveLength(1);
      await write('GetSong', 'GET', '/v1/music/songs/song-ar');
      await write('BatchGetSongs', 'POST', '/v1/music/songs:batchGet', { songIdList: songIds('song-ar', 'song-en') });
    }
    expect(pick(trips, READ_ROUND_TRIPS)).toEqual(READ_ROUND_TRIPS);
  });

  const pick = (all: Record<string, number>, names: object) => Object.fromEntries(Object.keys(names).map((name) => [name, all[name]]));

  async function writeEach() {
    await write('SaveItems', 'POST', '/v1/library/saved:batchAdd', { songIdList: songIds('song-ar', 'song-en') });
    await write('RemoveSavedItems', 'POST', '/v1/library/saved:batchRemove', { songIdList: songIds('song-ar') });
    await write('FollowArtists', 'POST', '/v1/library/following/artists:batchAdd', { artistIdList: songIds('artist-ar') });
    await write('UnfollowArtists', 'POST', '/v1/library/following/artists:batchRemove', { artistIdList: songIds('artist-ar') });
    await write('ReportPlays', 'POST', '/v1/library/history:report', { plays: [{ playId: randomUUID(), songId: { value: 'song-ar' }, startedAt: new Date().toISOString(), msPlayed: 45_000 }] });
    await write('ReportProgress', 'POST', '/v1/library/progress:report', { progress: [{ movieId: { value: 'movie-all' }, positionMs: 1_000_000, reportedAt: new Date().toISOString() }] });
    await write('HideContinueWatching', 'POST', '/v1/library/continue-watching:hide', { movieIdList: [{ value: 'movie-all' }] });
    const created = await write('CreatePlaylist', 'POST', '/v1/playlists', { name: 'Trips', songIdList: songIds('song-ar', 'song-en') });
    const url = `/v1/playlists/${created.json().playlist.id.value}`;
    await write('UpdatePlaylist', 'PATCH', url, { name: 'Trips again' });
    const added = await write('AddPlaylistItems', 'POST', `${url}/items:batchAdd`, { songIdList: songIds('song-ar') });
    const itemId: string = added.json().items[0].itemId;
    await write('MovePlaylistItems', 'POST', `${url}/items:move`, { itemIds: [itemId] });
    await write('RemovePlaylistItems', 'POST', `${url}/items:batchRemove`, { itemIds: [itemId] });
    // A page of a playlist reads on one snapshot: BEGIN, the playlist and its first entries together, then COMMIT.
    await write('GetPlaylist', 'GET', url);
    const version = (await write('GetPlaylistItems', 'GET', `${url}/items`)).json().version;
    await write('ReplacePlaylistItems', 'PUT', `${url}/items`, { songIdList: songIds('song-en') }, { 'if-match': `"${version}"` });
    await write('DeletePlaylist', 'DELETE', url);
  }
});
