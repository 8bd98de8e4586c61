import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, loadConfig, openStorage } from '@maqam/server';
import { dialects } from '../dialects.ts';
import { startTestServer, type TestServer } from '../harness.ts';

/**
 * On PostgreSQL a node prepares its statements once on each connection
 * (storage/postgres.ts). A migration that changes the rows a prepared
 * statement reads makes PostgreSQL refuse that statement on that connection
 * for good ("cached plan must not change result type"): the node answers
 * 503 (try again) and drops the connection, never a 500, and the next
 * requests are answered as before.
 */
describe.runIf(dialects.some((d) => d.name === 'postgres'))('prepared statements on postgres', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(dialects.find((d) => d.name === 'postgres')!);
  });
  afterAll(async () => {
    await server?.close();
  });

  // An unknown key is looked up in api_keys on every request, by a statement that reads every column.
  const unknownKey = `mk_zzzzzzzzzzzz_${'A'.repeat(43)}`;
  const refusal = async () => (await server.call({ method: 'GET', url: '/v1/music/songs/song-ar', headers: { 'x-api-key': unknownKey } })).statusCode;

  const alterApiKeys = async (column: string) => {
    const admin = new pg.Client({ connectionString: server.databaseUrl });
    await admin.connect();
    try {
      await admin.query(`alter table api_keys add column ${column} integer`);
    } finally {
      await admin.end();
    }
  };

  it('answers 503 once a table changed under a prepared statement, drops that connection, and answers as before after it', async () => {
    expect(await refusal()).toBe(401);
    expect(await refusal()).toBe(401);
    await alterApiKeys('added_by_a_later_release');
    // More requests at once than the pool has connections: every pooled connection answers one of them, and
    // each that prepared the statement fails it once and is dropped. Then the node answers as before.
    const statuses = await Promise.all(Array.from({ length: 12 }, refusal));
    for (let i = 0; i < 12; i++) statuses.push(await refusal());
    expect(statuses.every((status) => status === 401 || status === 503)).toBe(true);
    expect(statuses).toContain(503);
    expect(statuses.slice(-3)).toEqual([401, 401, 401]);
    expect((await server.call({ method: 'GET', url: '/v1/music/songs/song-ar' })).statusCode).toBe(200);
  });

  it('prepares nothing with MAQAM_PG_PREPARED_PARAMETERS=0, so the same change meets no refused statement', async () => {
    const config = loadConfig({ DATABASE_URL: server.databaseUrl, MAQAM_SECRET: 'x'.repeat(40), MAQAM_PG_PREPARED_PARAMETERS: '0' });
    const storage = openStorage(server.databaseUrl, { preparedMaxParameters: config.postgresPreparedParameters });
    const app = await buildApp({ config, storage, logger: false });
    try {
      const refusalOnIt = async () => (await app.inject({ method: 'GET', url: '/v1/music/songs/song-ar', headers: { 'x-api-key': unknownKey } })).statusCode;
      expect(await refusalOnIt()).toBe(401);
      expect(await refusalOnIt()).toBe(401);
      await alterApiKeys('added_by_another_release');
      const statuses = await Promise.all(Array.from({ length: 12 }, refusalOnIt));
      for (let i = 0; i < 3; i++) statuses.push(await refusalOnIt());
      expect(statuses).toEqual(Array.from({ length: 15 }, () => 401));
    } finally {
      await app.close();
      await storage.close();
    }
  });
});
