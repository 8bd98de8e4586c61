import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, loadConfig, openStorage } from '@maqam/server';
import { dialects } from '../dialects.ts';
import { startTestServer, type TestServer } from '../harness.ts';
import { asUser, libraryUser, songIds } from './library-helpers.ts';

const postgres = dialects.find((d) => d.name === 'postgres');
/** Past the Idempotency-Key's lease (a minute at this database timeout: app.ts), within the access token's life. */
const LATER_MS = 2 * 60 * 1000;
const DB_TIMEOUT_MS = '5000';

/**
 * A write whose key was taken over while it waited must not commit: on
 * PostgreSQL the answer is kept by the last statement of the write, with the
 * feed's changes (library/user-write.ts), and finding its claim gone there
 * rolls the whole write back. Here the first attempt waits on the user's
 * row while a retry on a node whose clock is past the lease takes its key
 * over; the first then reaches its end, and the write is applied once.
 */
describe.runIf(postgres !== undefined)('a first attempt that outlived its key\'s lease, on PostgreSQL', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(postgres!, { MAQAM_RATE_LIMIT: '0', MAQAM_DB_TIMEOUT_MS: DB_TIMEOUT_MS });
  }, 60_000);
  afterAll(async () => server?.close());

  it('is refused at its end and rolled back; the retry that took the key answers, once', async () => {
    const user = await libraryUser(server);
    const write = asUser(server, user.write);
    const read = asUser(server, user.read);
    const start = (await read('GET', '/v1/library/changes')).json().nextCursor as string;

    const laterStorage = openStorage(server.databaseUrl);
    const later = await buildApp({
      config: loadConfig({ DATABASE_URL: server.databaseUrl, MAQAM_SECRET: 'x'.repeat(40), MAQAM_RATE_LIMIT: '0', MAQAM_DB_TIMEOUT_MS: DB_TIMEOUT_MS }),
      storage: laterStorage, logger: false, clock: () => Date.now() + LATER_MS,
    });
    const holder = new pg.Client({ connectionString: server.databaseUrl });
    const observer = new pg.Client({ connectionString: server.databaseUrl });
    await holder.connect();
    await observer.connect();
    try {
      await holder.query('begin');
      await holder.query('insert into library_counters (user_id, changes) values ($1, 0) on conflict do nothing', [user.user.id]);
      await holder.query('select 1 from library_counters where user_id = $1 for update', [user.user.id]);
      const waiting = async () => (await observer.query(
        "select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'")).rows[0].n as number;
      const untilWaiting = async (n: number) => {
        for (let tries = 0; tries < 400 && (await waiting()) < n; tries++) await new Promise((resolve) => setTimeout(resolve, 25));
        expect(await waiting()).toBe(n);
      };

      const body = { songIdList: songIds('song-ar') };
      const headers = { 'idempotency-key': 'late-first-attempt-1' };
      const first = Promise.resolve(write('POST', '/v1/library/saved:batchAdd', body, headers));
      await untilWaiting(1);
      const retry = Promise.resolve(later.inject({
        method: 'POST', url: '/v1/library/saved:batchAdd', payload: body,
        headers: { authorization: `Bearer ${user.write}`, 'content-type': 'application/json', ...headers },
      }));
      // Unless it answered already (it must wait: its key is taken over, and the user's row is held).
      await Promise.race([untilWaiting(2), retry.then((res) => expect.unreachable(`the retry answered while the row was held: ${res.statusCode} ${res.body}`))]);
      await holder.query('commit');

      const [firstAnswer, retryAnswer] = await Promise.all([first, retry]);
      expect([firstAnswer.statusCode, firstAnswer.json().code]).toEqual([409, 'ERROR_CODE_CONFLICT']);
      expect(retryAnswer.statusCode, retryAnswer.body).toBe(200);
      // The key answers the retry's answer from now on, on either node.
      const replayed = await write('POST', '/v1/library/saved:batchAdd', body, headers);
      expect([replayed.statusCode, replayed.headers['idempotent-replayed'], replayed.body]).toEqual([200, 'true', retryAnswer.body]);

      // Applied once: one saved song, one change in the feed.
      expect((await read('GET', '/v1/library/saved')).json().items.map((item: { song?: { id: { value: string } } }) => item.song?.id.value)).toEqual(['song-ar']);
      const feed = (await read('GET', `/v1/library/changes?cursor=${start}`)).json().changes as { id: string; change: string }[];
      expect(feed.map((change) => [change.id, change.change])).toEqual([['song-ar', 'CHANGE_SAVED']]);
    } finally {
      await holder.end().catch(() => {});
      await observer.end();
      await later.close();
      await laterStorage.close();
    }
  });
});
