import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildApp, createApiKeysRepo, createApiKeysService, createUsersService, loadConfig, openStorage, type Storage } from '@maqam/server';
import { dialects } from '../dialects.ts';
import { startTestServer, type TestServer } from '../harness.ts';
import { catalogWith, seedAccounts, tokensFor } from '../oauth/oauth-helpers.ts';

/**
 * Credentials are checked without a database read while the database has not
 * changed, and a revocation made anywhere (another node on the same file,
 * another process) is refused on the very next request. Two nodes here: the
 * test server, and a second app on its own connection to the same database.
 */
describe.each(dialects.map((d) => [d.name, d] as const))('credential checks across nodes on %s', (dialectName, dialect) => {
  let server: TestServer;
  let nodeA: { app: FastifyInstance; storage: Storage; keyReads: () => number };
  let nodeB: { app: FastifyInstance; storage: Storage };
  let keyReads = 0;

  const appOn = async (storage: Storage) =>
    buildApp({ config: loadConfig({ DATABASE_URL: server.databaseUrl, MAQAM_SECRET: 'x'.repeat(40) }), storage, logger: false });

  beforeAll(async () => {
    server = await startTestServer(dialect);
    const storageA = openStorage(server.databaseUrl, { logQuery: (sql) => { if (/from "api_keys"/.test(sql)) keyReads++; } });
    nodeA = { app: await appOn(storageA), storage: storageA, keyReads: () => keyReads };
    const storageB = openStorage(server.databaseUrl);
    nodeB = { app: await appOn(storageB), storage: storageB };
  });
  afterAll(async () => {
    for (const node of [nodeA, nodeB]) {
      await node?.app.close();
      await node?.storage.close();
    }
    await server?.close();
  });

  const songOnA = (headers: Record<string, string>) => nodeA.app.inject({ method: 'GET', url: '/v1/music/songs/song-ar', headers });

  it('refuses an API key on the very next request after another node revokes it', async () => {
    const { key, id } = await createApiKeysService(createApiKeysRepo(server.storage.db)).create({ name: 'cross-node' });
    for (let i = 0; i < 10; i++) expect((await songOnA({ 'x-api-key': key })).statusCode).toBe(200);
    if (dialectName === 'sqlite') {
      // A read for the first request, one more after it records the key's use (a write); none for the other eight.
      expect(nodeA.keyReads()).toBe(2);
    }
    await createApiKeysService(createApiKeysRepo(nodeB.storage.db)).revoke(id);
    expect((await songOnA({ 'x-api-key': key })).statusCode).toBe(401);
  });

  it('refuses an access token on the very next request after another node revokes it, or disables its user', async () => {
    const accounts = await seedAccounts(server);
    const first = await tokensFor(server, accounts.client.clientId, accounts.user.username);
    const second = await tokensFor(server, accounts.client.clientId, accounts.user.username);
    for (let i = 0; i < 3; i++) expect((await songOnA({ authorization: `Bearer ${first.access_token}` })).statusCode).toBe(200);
    const revoked = await nodeB.app.inject({ method: 'POST', url: '/v1/auth/token/revoke', headers: { 'content-type': 'application/json' }, payload: { token: first.access_token } });
    expect(revoked.statusCode).toBe(200);
    expect((await songOnA({ authorization: `Bearer ${first.access_token}` })).statusCode).toBe(401);

    expect((await songOnA({ authorization: `Bearer ${second.access_token}` })).statusCode).toBe(200);
    await createUsersService(nodeB.storage.db).disable(accounts.user.username);
    expect((await songOnA({ authorization: `Bearer ${second.access_token}` })).statusCode).toBe(401);
  });

  it('refuses a key revoked through the node\'s own connection on the next request', async () => {
    const keys = createApiKeysService(createApiKeysRepo(nodeA.storage.db));
    const { key, id } = await keys.create({ name: 'same-node' });
    expect((await songOnA({ 'x-api-key': key })).statusCode).toBe(200);
    await keys.revoke(id);
    expect((await songOnA({ 'x-api-key': key })).statusCode).toBe(401);
  });
});
