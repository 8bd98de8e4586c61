import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { buildApp, createUsersService, loadConfig, openStorage } from '@maqam/server';
import { dialects } from '../dialects.ts';
import { startTestServer, type TestServer } from '../harness.ts';
import { spawnServer } from '../outage/spawn-server.ts';
import { libraryUser } from './library-helpers.ts';

const SECRET = 'x'.repeat(40);
/** Past the minute a request may hold its key unanswered (app.ts), so a retry may take an abandoned key over. */
const PAST_THE_LEASE_MS = 2 * 60_000;
const ADDS = 24;
const SONGS = ['song-ar', 'song-en', 'song-fr'];

/**
 * Issue 51, item 1: a write that committed is never applied again by its
 * retry with the same Idempotency-Key, nor answered with a 5xx. The key's
 * answer commits in the write's own transaction, so there is no moment
 * between the commit and the kept answer for a crash or a timeout to fall in.
 */
describe.each(dialects.map((d) => [d.name, d] as const))('writes retried with their Idempotency-Key, on %s', (_name, dialect) => {
  let server: TestServer;
  let token: string;

  beforeAll(async () => {
    server = await startTestServer(dialect);
    token = (await libraryUser(server)).write;
  });
  afterAll(async () => server?.close());

  const headers = (key?: string) => ({ authorization: `Bearer ${token}`, 'content-type': 'application/json', 'accept-language': 'en', ...(key && { 'idempotency-key': key }) });

  /** A node on the test database whose clock stands `aheadMs` later, with these settings: as a node restarted after a crash. */
  async function nodeAt(aheadMs: number, env: Record<string, string> = {}) {
    const config = loadConfig({ DATABASE_URL: server.databaseUrl, MAQAM_SECRET: SECRET, ...env });
    const storage = openStorage(server.databaseUrl, { timeoutMs: config.databaseTimeoutMs });
    const app = await buildApp({ config, storage, logger: false, clock: () => Date.now() + aheadMs });
    return { app, close: async () => { await app.close(); await storage.close(); } };
  }

  it('answers every write of a burst cut by SIGKILL once, when retried after the restart, and applies none twice', async () => {
    const created = await server.app.inject({ method: 'POST', url: '/v1/playlists', headers: headers(), payload: JSON.stringify({ name: 'burst' }) });
    expect(created.statusCode, created.body).toBe(201);
    const playlistId = created.json().playlist.id.value as string;
    const url = `/v1/playlists/${playlistId}/items:batchAdd`;
    const bodyOf = (i: number) => JSON.stringify({ songIdList: [{ value: SONGS[i % SONGS.length] }] });

    const child = await spawnServer({ DATABASE_URL: server.databaseUrl, MAQAM_SECRET: SECRET });
    const answered = new Map<number, { status: number; body: string }>();
    const burst = Array.from({ length: ADDS }, (_, i) => fetch(`${child.url}${url}`, { method: 'POST', headers: headers(`burst-${i}`), body: bodyOf(i) })
      .then(async (res) => answered.set(i, { status: res.status, body: await res.text() }), () => undefined));
    // Killed once some writes have committed, while the others are on their way.
    const count = async () => (await server.app.inject({ method: 'GET', url: `/v1/playlists/${playlistId}/items?page_size=100`, headers: headers() })).json().items.length as number;
    while ((await count()) < 3) await new Promise((resolve) => setImmediate(resolve));
    child.child.kill('SIGKILL');
    await Promise.all(burst);
    await child.stop();

    const restarted = await nodeAt(PAST_THE_LEASE_MS);
    try {
      const retried = await Promise.all(Array.from({ length: ADDS }, (_, i) =>
        restarted.app.inject({ method: 'POST', url, headers: headers(`burst-${i}`), payload: bodyOf(i) })));
      for (const [i, res] of retried.entries()) {
        expect(res.statusCode, res.body).toBe(200);
        const first = answered.get(i);
        // An answer the client saw is the one its retry sees.
        if (first?.status === 200) expect(res.body).toBe(first.body);
      }
      // Each key's entry once: the entries' ids are those the answers name, none more.
      const named = retried.map((res) => res.json().items[0].itemId as string).sort();
      expect(new Set(named).size).toBe(ADDS);
      const items = (await restarted.app.inject({ method: 'GET', url: `/v1/playlists/${playlistId}/items?page_size=100`, headers: headers() })).json().items as { itemId: string }[];
      expect(items.map((item) => item.itemId).sort()).toEqual(named);
    } finally {
      await restarted.close();
    }
  });

  it('replays a refusal with the retry\'s own request id in its body, as in its x-request-id', async () => {
    const send = () => server.app.inject({ method: 'POST', url: '/v1/playlists/nope/items:batchAdd', headers: headers('refused-once'), payload: JSON.stringify({ songIdList: [{ value: 'song-ar' }] }) });
    const first = await send();
    expect(first.statusCode).toBe(404);
    const again = await send();
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.statusCode).toBe(404);
    expect(again.json()).toEqual({ ...first.json(), requestId: again.headers['x-request-id'] });
    expect(again.headers['x-request-id']).not.toBe(first.headers['x-request-id']);
  });

  it.runIf(dialect.name === 'postgres')('answers 503 and changes nothing when the songs cannot be read in time, and its retry applies the write once', async () => {
    const created = await server.app.inject({ method: 'POST', url: '/v1/playlists', headers: headers(), payload: JSON.stringify({ name: 'locked' }) });
    const playlistId = created.json().playlist.id.value as string;
    const version = created.json().playlist.version as string;
    // A node with a cold cache and a short deadline, while another session holds the songs' templates.
    const node = await nodeAt(0, { MAQAM_DB_TIMEOUT_MS: '300' });
    const locker = new pg.Client({ connectionString: server.databaseUrl });
    await locker.connect();
    try {
      const changes = (await node.app.inject({ method: 'GET', url: '/v1/library/changes', headers: headers() })).json().nextCursor as string;
      await locker.query('begin');
      await locker.query('lock table song_templates in access exclusive mode');
      const add = () => node.app.inject({ method: 'POST', url: `/v1/playlists/${playlistId}/items:batchAdd`, headers: headers('locked-add'), payload: JSON.stringify({ songIdList: [{ value: 'song-fr' }] }) });
      const replace = () => node.app.inject({
        method: 'PUT', url: `/v1/playlists/${playlistId}/items`, headers: { ...headers(), 'if-match': `"${version}"` }, payload: JSON.stringify({ songIdList: [{ value: 'song-en' }] }),
      });
      const [added, replaced] = [await add(), await replace()];
      expect(added.statusCode, added.body).toBe(503);
      expect(replaced.statusCode, replaced.body).toBe(503);
      await locker.query('rollback');
      const read = await node.app.inject({ method: 'GET', url: `/v1/playlists/${playlistId}`, headers: headers() });
      expect(read.json().playlist.version).toBe(version);
      expect(read.json().items).toEqual([]);

      const retried = await add();
      expect(retried.statusCode, retried.body).toBe(200);
      expect((await add()).body).toBe(retried.body);
      const after = await node.app.inject({ method: 'GET', url: `/v1/playlists/${playlistId}`, headers: headers() });
      expect(after.json().items.map((item: { song: { id: { value: string } } }) => item.song.id.value)).toEqual(['song-fr']);
      const feed = await node.app.inject({ method: 'GET', url: `/v1/library/changes?cursor=${encodeURIComponent(changes)}`, headers: headers() });
      expect(feed.json().changes.filter((change: { id: string }) => change.id === playlistId)).toHaveLength(1);
    } finally {
      await locker.end();
      await node.close();
    }
  });
});

/**
 * Issue 51, item 4: ReportPlays by a user deleted while it runs answered 500
 * (a foreign-key error) on PostgreSQL. Every write of a user is one of their
 * writes (writeAsUser), which holds the user for its length: it commits
 * before the deletion, or finds the user gone and answers 401.
 */
describe.each(dialects.map((d) => [d.name, d] as const))('writes by a user deleted while they run, on %s', (_name, dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(dialect);
  });
  afterAll(async () => server?.close());

  it('answers each report and save 200 or 401, never 500, and leaves nothing of the user behind', async () => {
    const { user, write } = await libraryUser(server);
    const headers = { authorization: `Bearer ${write}`, 'content-type': 'application/json' };
    const startedAt = new Date(Date.now() - 60_000).toISOString();
    const writes = Array.from({ length: 48 }, (_, i) => server.app.inject(i % 2 === 0
      ? { method: 'POST', url: '/v1/library/history:report', headers, payload: JSON.stringify({ plays: [{ playId: `gone-${i}`, songId: { value: SONGS[i % 3] }, startedAt, msPlayed: 40_000 }] }) }
      : { method: 'POST', url: '/v1/library/saved:batchAdd', headers, payload: JSON.stringify({ songIdList: [{ value: SONGS[i % 3] }] }) }));
    // Deleted while the writes are on their way.
    await new Promise((resolve) => setImmediate(resolve));
    await createUsersService(server.storage.db).delete(user.username);
    const statuses = (await Promise.all(writes)).map((res) => res.statusCode);
    expect(statuses.filter((status) => status !== 200 && status !== 401), JSON.stringify(statuses)).toEqual([]);
    for (const table of ['play_history', 'library_items', 'library_changes'] as const) {
      expect(await server.storage.db.selectFrom(table).select('user_id').where('user_id', '=', user.id).execute()).toEqual([]);
    }
  });
});
