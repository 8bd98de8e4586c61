import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../dialects.ts';
import { startTestServer, type TestServer } from '../harness.ts';
import { asUser, libraryUser, songIds } from './library-helpers.ts';

const postgres = dialects.find((d) => d.name === 'postgres');
const WRITES = 24;

/**
 * Issue 56, item 3: one user's writes take turns on the user's row, and
 * waiting for it must not take the pool from everyone else. A node runs
 * one user's writes one after another (library/user-write.ts), so however
 * many wait, they hold one pooled connection (of 10): other users' reads
 * answer meanwhile, and every queued write is done once the row is free.
 */
describe.runIf(postgres !== undefined)('one user\'s queued writes on PostgreSQL', () => {
  let server: TestServer;
  beforeAll(async () => {
    // Long enough that no queued write gives up while the test holds the row.
    server = await startTestServer(postgres!, { MAQAM_RATE_LIMIT: '0', MAQAM_DB_TIMEOUT_MS: '60000' });
  }, 60_000);
  afterAll(async () => server?.close());

  it('holds one pooled connection while the user\'s row is taken; other users read, and every write is done after', async () => {
    const writer = await libraryUser(server);
    const reader = await libraryUser(server);
    const write = asUser(server, writer.write);
    const read = asUser(server, reader.read);
    expect((await write('POST', '/v1/library/saved:batchAdd', { songIdList: songIds('song-en') })).statusCode).toBe(200);
    expect((await read('GET', '/v1/library/saved')).statusCode).toBe(200);

    // Another session holds the writer's row, as a long write on another node would.
    const holder = new pg.Client({ connectionString: server.databaseUrl });
    await holder.connect();
    // Watched from a session of its own: one inside a transaction sees the activity as it was when it first looked.
    const observer = new pg.Client({ connectionString: server.databaseUrl });
    await observer.connect();
    try {
      await holder.query('begin');
      await holder.query('select 1 from library_counters where user_id = $1 for update', [writer.user.id]);
      // Sent now (an inject starts when awaited), in this order.
      const writes = Array.from({ length: WRITES }, (_, i) =>
        Promise.resolve(write('POST', `/v1/library/saved:${i % 2 === 0 ? 'batchRemove' : 'batchAdd'}`, { songIdList: songIds('song-ar') })));
      const waiting = async () => (await observer.query(
        "select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'")).rows[0].n as number;
      // Until the first has reached the row (a few requests' time; bounded so a broken node fails rather than hangs).
      for (let tries = 0; tries < 400 && (await waiting()) === 0; tries++) await new Promise((resolve) => setTimeout(resolve, 25));
      // One of them waits on the row in PostgreSQL; the rest wait in the node, holding no connection.
      const activity = async () => JSON.stringify((await observer.query("select state, wait_event_type, wait_event, left(query, 60) as q from pg_stat_activity where datname = current_database() and state <> 'idle'")).rows);
      expect(await waiting(), await activity()).toBe(1);
      const reads = await Promise.all(Array.from({ length: 12 }, () => read('GET', '/v1/library/saved')));
      expect(reads.map((res) => res.statusCode)).toEqual(Array(12).fill(200));
      await holder.query('commit');
      const answered = await Promise.all(writes);
      expect(answered.map((res) => res.statusCode)).toEqual(Array(WRITES).fill(200));
    } finally {
      await holder.end();
      await observer.end();
    }
  });

  it('answers 503 to writes that waited their turn past the database timeout, while the one before still waits on the row', async () => {
    const shortServer = await startTestServer(postgres!, { MAQAM_RATE_LIMIT: '0', MAQAM_DB_TIMEOUT_MS: '300' });
    const holder = new pg.Client({ connectionString: shortServer.databaseUrl });
    try {
      const writer = await libraryUser(shortServer);
      const write = asUser(shortServer, writer.write);
      expect((await write('POST', '/v1/library/saved:batchAdd', { songIdList: songIds('song-en') })).statusCode).toBe(200);
      await holder.connect();
      await holder.query('begin');
      await holder.query('select 1 from library_counters where user_id = $1 for update', [writer.user.id]);
      // The test's storage sets no statement timeout: the first write waits on the row for as long as it is held.
      const first = Promise.resolve(write('POST', '/v1/library/saved:batchAdd', { songIdList: songIds('song-ar') }));
      const queued = await Promise.all(Array.from({ length: 5 }, () => write('POST', '/v1/library/saved:batchRemove', { songIdList: songIds('song-en') })));
      // Each gave up waiting for its turn (without the deadline they would wait as long as the first): all answered while it still waits.
      expect(queued.map((res) => [res.statusCode, res.json().code])).toEqual(Array(5).fill([503, 'ERROR_CODE_UNAVAILABLE']));
      await holder.query('commit');
      expect((await first).statusCode).toBe(200);
    } finally {
      await holder.end();
      await shortServer.close();
    }
  });
});
