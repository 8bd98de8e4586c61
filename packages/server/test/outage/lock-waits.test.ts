import { DatabaseSync } from 'node:sqlite';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects, type TestDialect } from '../dialects.ts';
import { startTestServer, type TestServer } from '../harness.ts';
import { libraryUser, songIds } from '../library/library-helpers.ts';
import { pause, spawnServer, type ServerProcess } from './spawn-server.ts';

/** The served node's MAQAM_DB_TIMEOUT_MS. */
const TIMEOUT_MS = 1000;
/**
 * Writes of one user at once, each waiting for the lock. Fewer than a
 * PostgreSQL node's pooled connections (10): there each waiting write holds
 * one, and with all of them held a read waits for one too.
 */
const WRITES = 4;
/**
 * How long the other process holds its lock at most: past every write's
 * timeout, and well short of the writes' timeouts end to end. A node that
 * made its waiting writes take turns (each waited its timeout on the event
 * loop, issue 51) had some of them still waiting at the release.
 */
const HELD_AT_MOST_MS = 3 * TIMEOUT_MS;

interface HeldLock {
  release(): Promise<void>;
}

/**
 * Another process's lock on what a library write of `userId` needs: SQLite's
 * write lock (BEGIN IMMEDIATE, as any `maqam` CLI write takes it), or on
 * PostgreSQL the user's counter row, from a session of its own. The served
 * node runs in a process of its own, so this one's event loop stays free.
 */
async function holdLock(dialect: TestDialect['name'], databaseUrl: string, userId: string): Promise<HeldLock> {
  if (dialect === 'sqlite') {
    const other = new DatabaseSync(databaseUrl.slice('sqlite:'.length));
    other.exec('BEGIN IMMEDIATE');
    return {
      release: async () => {
        other.exec('ROLLBACK');
        other.close();
      },
    };
  }
  const other = new pg.Client({ connectionString: databaseUrl });
  await other.connect();
  await other.query('BEGIN');
  const { rowCount } = await other.query('SELECT 1 FROM library_counters WHERE user_id = $1 FOR UPDATE', [userId]);
  expect(rowCount).toBe(1);
  return {
    release: async () => {
      await other.query('ROLLBACK');
      await other.end();
    },
  };
}

/**
 * Regression (issue 51, item 3): while another process held SQLite's write
 * lock, the node waited for it with SQLite's busy handler, on the event loop:
 * reads and /healthz waited as long as the lock was held, and the writes took
 * turns waiting, so only the first answered 503 within MAQAM_DB_TIMEOUT_MS
 * (contract section 8). Through HTTP on a `maqam serve` process of its own.
 */
describe.each(dialects.map((d) => [d.name, d] as const))('a lock held by another process, on %s', (_name, dialect) => {
  let setup: TestServer;
  let node: ServerProcess;
  let user: Awaited<ReturnType<typeof libraryUser>>;
  /** A playlist of the user's: reading it is a read transaction (one snapshot), which takes no lock. */
  let playlistPath: string;

  beforeAll(async () => {
    setup = await startTestServer(dialect, { MAQAM_RATE_LIMIT: '0' });
    user = await libraryUser(setup);
    // The user's first write makes their counter row, the one PostgreSQL's other session locks.
    const first = await setup.app.inject({
      method: 'POST', url: '/v1/library/saved:batchAdd',
      headers: { authorization: `Bearer ${user.write}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ songIdList: songIds('song-en') }),
    });
    expect(first.statusCode).toBe(200);
    const playlist = await setup.app.inject({
      method: 'POST', url: '/v1/playlists',
      headers: { authorization: `Bearer ${user.write}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ name: 'سهرة' }),
    });
    expect(playlist.statusCode).toBe(201);
    playlistPath = playlist.headers.location as string;
    node = await spawnServer({ DATABASE_URL: setup.databaseUrl, MAQAM_DB_TIMEOUT_MS: String(TIMEOUT_MS), MAQAM_RATE_LIMIT: '0' });
  }, 60_000);

  afterAll(async () => {
    await node?.stop();
    await setup?.close();
  });

  const save = () => fetch(`${node.url}/v1/library/saved:batchAdd`, {
    method: 'POST',
    headers: { authorization: `Bearer ${user.write}`, 'content-type': 'application/json', 'accept-language': 'en' },
    body: JSON.stringify({ songIdList: songIds('song-ar') }),
  });

  const read = (path: string) => fetch(`${node.url}${path}`, { headers: { authorization: `Bearer ${user.read}` } });

  it('answers reads and /healthz while writes wait, and every waiting write 503 with Retry-After before the lock is released', async () => {
    // Warm: the node has read the key and the token once, so the reads below are the requests themselves.
    expect((await fetch(`${node.url}/v1/music/songs/song-ar`, { headers: { 'x-api-key': setup.apiKey } })).status).toBe(200);
    expect((await read('/v1/library/saved?kinds=song')).status).toBe(200);
    expect((await read(playlistPath)).status).toBe(200);

    const lock = await holdLock(dialect.name, setup.databaseUrl, user.user.id);
    let released = false;
    const releasing = new Promise<void>((resolve, reject) => {
      setTimeout(() => {
        released = true;
        lock.release().then(resolve, reject);
      }, HELD_AT_MOST_MS);
    });
    let writesAnswered = 0;
    const writes = Array.from({ length: WRITES }, async () => {
      const res = await save();
      writesAnswered++;
      return { status: res.status, retryAfter: res.headers.get('retry-after'), code: ((await res.json()) as { code?: string }).code, whileHeld: !released };
    });
    // Sent after the writes: each answers while every write still waits for the lock.
    const answeredWhileWritesWait = (request: Promise<Response>) =>
      request.then(async (res) => ({ status: res.status, writesAnswered, whileHeld: !released, body: await res.text() }));
    const others = await Promise.all([
      answeredWhileWritesWait(fetch(`${node.url}/healthz`)),
      answeredWhileWritesWait(fetch(`${node.url}/v1/music/songs/song-ar`, { headers: { 'x-api-key': setup.apiKey } })),
      answeredWhileWritesWait(fetch(`${node.url}/v1/music/songs/song-fr`, { headers: { 'x-api-key': setup.apiKey } })),
      answeredWhileWritesWait(read('/v1/library/saved?kinds=song')),
      answeredWhileWritesWait(read(playlistPath)),
    ]);
    for (const other of others) expect(other, other.body.slice(0, 200)).toMatchObject({ status: 200, writesAnswered: 0, whileHeld: true });

    const answers = await Promise.all(writes);
    expect(answers).toEqual(Array.from({ length: WRITES }, () => ({ status: 503, retryAfter: '1', code: 'ERROR_CODE_UNAVAILABLE', whileHeld: true })));
    await releasing;

    // The lock was what they waited for: gone, the same write is saved.
    expect((await save()).status).toBe(200);
  }, 30_000);

  it('saves a write that waited, once the lock is released within its timeout', async () => {
    const lock = await holdLock(dialect.name, setup.databaseUrl, user.user.id);
    let answered = false;
    let released = false;
    const write = save().then((res) => {
      answered = true;
      return { status: res.status, afterRelease: released };
    });
    try {
      // A read answered while the write waits, and a while longer (a quarter of the timeout) for the write to have
      // found the lock held: a write that gave up at once (a read transaction's refused upgrade) would have answered.
      expect((await read('/v1/library/saved?kinds=song')).status).toBe(200);
      await pause(TIMEOUT_MS / 4);
      expect(answered).toBe(false);
    } finally {
      released = true;
      await lock.release();
    }
    expect(await write).toEqual({ status: 200, afterRelease: true });
  }, 30_000);
});
