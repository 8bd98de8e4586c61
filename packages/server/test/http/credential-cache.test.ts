import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { connect, createServer, type Server } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { buildApp, createApiKeysRepo, createApiKeysService, createUsersService, loadConfig, openStorage, VERSION_MAX_AGE_MS, type Storage } from '@maqam/server';
import { dialects } from '../dialects.ts';
import { REDIS_URL, redisUp } from '../redis.ts';
import { startTestServer, type TestServer } from '../harness.ts';
import { catalogWith, seedAccounts, tokensFor } from '../oauth/oauth-helpers.ts';
import { libraryUser } from '../library/library-helpers.ts';

/**
 * Credentials are checked without a database read while the database has not
 * changed, and a revocation made anywhere (another node on the same file,
 * another process) is refused on the very next request. Two nodes here: the
 * test server, and a second app on its own connection to the same database.
 * On PostgreSQL the nodes share a Redis, whose shared write version tells them of
 * every write (storage/shared-write-version.ts).
 */
describe.each(dialects.map((d) => [d.name, d] as const))('credential checks across nodes on %s', (dialectName, dialect) => {
  let server: TestServer;
  let nodeA: { app: FastifyInstance; storage: Storage; keyReads: () => number };
  let nodeB: { app: FastifyInstance; storage: Storage };
  let keyReads = 0;
  let tokenReads = 0;
  /** Every statement node A's log was told of. */
  const logged: string[] = [];
  // The time node A's versions age by.
  let nowA = Date.now();
  // PostgreSQL needs the shared Redis to keep credentials in memory; SQLite needs nothing.
  const cachesCredentials = dialectName === 'sqlite' || redisUp;
  const shared = dialectName === 'postgres' && redisUp ? { redisUrl: REDIS_URL } : {};

  const appOn = async (storage: Storage) =>
    buildApp({ config: loadConfig({ DATABASE_URL: server.databaseUrl, MAQAM_SECRET: 'x'.repeat(40) }), storage, logger: false });

  beforeAll(async () => {
    server = await startTestServer(dialect);
    const storageA = openStorage(server.databaseUrl, { ...shared, clock: () => nowA, logQuery: (sql) => {
      logged.push(sql);
      if (/(from|join) "api_keys"/.test(sql)) keyReads++;
      if (/(from|join) "oauth_access_tokens"/.test(sql)) tokenReads++;
    } });
    nodeA = { app: await appOn(storageA), storage: storageA, keyReads: () => keyReads };
    const storageB = openStorage(server.databaseUrl, shared);
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
  /** When the key's last use was recorded: a use is written without holding up its request. */
  const lastUsedAt = async (id: string) =>
    (await server.storage.db.selectFrom('api_keys').select('last_used_at').where('id', '=', id).executeTakeFirstOrThrow()).last_used_at;

  it('refuses an API key on the very next request after another node revokes it', async () => {
    const { key, id } = await createApiKeysService(createApiKeysRepo(server.storage.db)).create({ name: 'cross-node' });
    const readsBefore = nodeA.keyReads();
    expect((await songOnA({ 'x-api-key': key })).statusCode).toBe(200);
    // The first use is recorded without holding up its request: the next requests come once it is written, as
    // they would a moment later in life (a request that overtook the write would find the key unchanged: one read fewer).
    await expect.poll(() => lastUsedAt(id)).not.toBeNull();
    for (let i = 1; i < 10; i++) expect((await songOnA({ 'x-api-key': key })).statusCode).toBe(200);
    // A read for the first request, one more after it records the key's use (a write); none for the other eight.
    expect(nodeA.keyReads() - readsBefore).toBe(cachesCredentials ? 2 : 10);
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

  // A library's writes (every save, follow and play) change nothing a credential is made from: on PostgreSQL they
  // leave the shared write version be, so a node keeps the user's token in memory while the user writes.
  it.runIf(dialectName === 'postgres' && redisUp)('keeps checking an access token from memory while its user\'s library is written, and not after a revocation', async () => {
    const user = await libraryUser(server);
    const onA = (method: 'GET' | 'POST', url: string, body?: unknown) => nodeA.app.inject({
      method, url, headers: { authorization: `Bearer ${user.write}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
    expect((await onA('GET', '/v1/library/saved')).statusCode).toBe(200);
    const before = tokenReads;
    for (const song of ['song-ar', 'song-en', 'song-fr']) {
      expect((await onA('POST', '/v1/library/saved:batchAdd', { songIdList: [{ value: song }] })).statusCode).toBe(200);
      expect((await onA('POST', '/v1/library/history:report', { plays: [{ playId: `p-${song}`, songId: { value: song }, startedAt: new Date().toISOString(), msPlayed: 40_000 }] })).statusCode).toBe(200);
      expect((await onA('GET', '/v1/library/saved')).statusCode).toBe(200);
    }
    expect(tokenReads - before).toBe(0);
    const revoked = await nodeB.app.inject({ method: 'POST', url: '/v1/auth/token/revoke', headers: { 'content-type': 'application/json' }, payload: { token: user.write } });
    expect(revoked.statusCode).toBe(200);
    expect((await onA('GET', '/v1/library/saved')).statusCode).toBe(401);
  });

  it('tells its query log of a user\'s write statement by statement, sent together or not', async () => {
    const { write } = await libraryUser(server);
    logged.length = 0;
    const res = await nodeA.app.inject({
      method: 'POST', url: '/v1/library/saved:batchAdd', headers: { authorization: `Bearer ${write}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ songIdList: [{ value: 'song-ar' }] }),
    });
    expect(res.statusCode, res.body).toBe(200);
    for (const table of ['library_counters', 'library_items', 'library_changes']) expect(logged.some((sql) => sql.includes(`insert into "${table}"`)), table).toBe(true);
  });

  it('refuses an unknown key id with the same statements as a known one with a wrong secret, kept in memory or not', async () => {
    const { key, id } = await createApiKeysService(createApiKeysRepo(server.storage.db)).create({ name: 'timing' });
    const statements: string[] = [];
    const storage = openStorage(server.databaseUrl, { ...shared, logQuery: (sql, parameters) => statements.push(`${sql} ${JSON.stringify(parameters.map((p) => (p === id ? '<id>' : p === 'zzzzzzzzzzzz' ? '<id>' : p)))}`) });
    const app = await appOn(storage);
    try {
      const refusal = async (presented: string) => {
        statements.length = 0;
        const res = await app.inject({ method: 'GET', url: '/v1/music/songs/song-ar', headers: { 'x-api-key': presented } });
        expect(res.statusCode).toBe(401);
        return [...statements];
      };
      const unknown = `mk_zzzzzzzzzzzz_${'A'.repeat(43)}`;
      const wrongSecret = `mk_${id}_${'A'.repeat(43)}`;
      await refusal(unknown); // the node's first request also reads what it reads once (the deployment id)
      const unknownBefore = await refusal(unknown);
      expect(unknownBefore.length).toBeGreaterThan(0);
      expect(await refusal(wrongSecret)).toEqual(unknownBefore);
      // Now the node keeps the key's row in memory: a use, whose write its request does not wait for, then
      // requests once that write has landed, until one reads nothing (on PostgreSQL the write's Redis bump may
      // come a moment after the row, and the next request reads the row again).
      const statementsOfAUse = async () => {
        statements.length = 0;
        expect((await app.inject({ method: 'GET', url: '/v1/music/songs/song-ar', headers: { 'x-api-key': key } })).statusCode).toBe(200);
        return statements.filter((s) => s.includes('"api_keys"'));
      };
      await statementsOfAUse();
      await expect.poll(() => lastUsedAt(id)).not.toBeNull();
      if (cachesCredentials) await expect.poll(statementsOfAUse).toEqual([]);
      else expect(await statementsOfAUse()).not.toEqual([]);
      expect(await refusal(wrongSecret)).toEqual(unknownBefore);
      expect(await refusal(unknown)).toEqual(unknownBefore);
    } finally {
      await app.close();
      await storage.close();
    }
  });

  it('refuses a key revoked through the node\'s own connection on the next request', async () => {
    const keys = createApiKeysService(createApiKeysRepo(nodeA.storage.db));
    const { key, id } = await keys.create({ name: 'same-node' });
    expect((await songOnA({ 'x-api-key': key })).statusCode).toBe(200);
    await keys.revoke(id);
    expect((await songOnA({ 'x-api-key': key })).statusCode).toBe(401);
  });

  it('sees a write made without the shared Redis at once on SQLite, and within VERSION_MAX_AGE_MS on PostgreSQL', async () => {
    const { key, id } = await createApiKeysService(createApiKeysRepo(server.storage.db)).create({ name: 'out-of-band' });
    // The first use is recorded (a write, in the background): the key is kept from the read after that write.
    const readsBefore = nodeA.keyReads();
    await vi.waitFor(async () => {
      expect((await songOnA({ 'x-api-key': key })).statusCode).toBe(200);
      expect(nodeA.keyReads() - readsBefore).toBe(cachesCredentials ? 2 : nodeA.keyReads() - readsBefore);
    });
    // A process that writes without REDIS_URL (psql, a CLI run without it).
    const outsider = openStorage(server.databaseUrl);
    try {
      await createApiKeysService(createApiKeysRepo(outsider.db)).revoke(id);
    } finally {
      await outsider.close();
    }
    if (dialectName === 'postgres' && redisUp) {
      expect((await songOnA({ 'x-api-key': key })).statusCode).toBe(200);
      nowA += VERSION_MAX_AGE_MS;
    }
    expect((await songOnA({ 'x-api-key': key })).statusCode).toBe(401);
  });

  it('answers many concurrent requests on both nodes, each with its own credential\'s answer, before and after revocations', async () => {
    // Tokens of different users, clients and scopes: TokenInfo answers each with its own subject, client and scope.
    const holders: { userId: string; clientId: string; token: string }[] = [];
    for (let i = 0; i < 4; i++) {
      const accounts = await seedAccounts(server);
      for (const [client, scope] of [[accounts.client, 'read stream'], [accounts.readOnly, 'read']] as const) {
        holders.push({ userId: accounts.user.id, clientId: client.clientId, token: (await tokensFor(server, client.clientId, accounts.user.username, scope)).access_token });
      }
    }
    const keysService = createApiKeysService(createApiKeysRepo(server.storage.db));
    const keys = await Promise.all(Array.from({ length: 8 }, (_, i) => keysService.create({ name: `concurrent-${i}` })));
    const songBody = (await nodeB.app.inject({ method: 'GET', url: '/v1/music/songs/song-ar', headers: { 'x-api-key': keys[0]!.key } })).body;
    const nodes = [nodeA.app, nodeB.app];
    // Every answer but expires_in, which moves with the clock.
    const tokenInfo = (body: string) => JSON.stringify({ ...JSON.parse(body), expires_in: 0 });
    const expectedInfo = new Map<string, string>();
    for (const holder of holders) {
      const res = await nodeB.app.inject({ method: 'GET', url: '/v1/auth/tokeninfo', headers: { authorization: `Bearer ${holder.token}` } });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({ sub: holder.userId, client_id: holder.clientId });
      expectedInfo.set(holder.token, tokenInfo(res.body));
    }
    expect(new Set(expectedInfo.values()).size).toBe(holders.length);

    // A refusal's bytes but its request id (which must be the x-request-id header's).
    const withoutRequestId = (res: { body: string; headers: Record<string, unknown> }) => {
      const id = String(res.headers['x-request-id']);
      expect(JSON.parse(res.body).requestId).toBe(id);
      return res.body.replace(JSON.stringify(id), '""');
    };
    const refused = { token: '', key: '' };
    const revokedTokens = new Set<string>();
    const revokedKeys = new Set<string>();
    const burst = async () => {
      const requests = Array.from({ length: 320 }, (_, i) => {
        const app = nodes[i % 2]!;
        if (i % 4 < 2) {
          const { token } = holders[(i >> 2) % holders.length]!;
          return app.inject({ method: 'GET', url: '/v1/auth/tokeninfo', headers: { authorization: `Bearer ${token}` } }).then((res) => ({ res, token }));
        }
        const { key } = keys[(i >> 2) % keys.length]!;
        return app.inject({ method: 'GET', url: '/v1/music/songs/song-ar', headers: { 'x-api-key': key } }).then((res) => ({ res, key }));
      });
      for (const answer of await Promise.all(requests)) {
        const { res } = answer;
        if ('token' in answer) {
          if (revokedTokens.has(answer.token)) {
            expect(res.statusCode).toBe(401);
            expect(withoutRequestId(res)).toBe(refused.token);
          } else {
            expect(res.statusCode, res.body).toBe(200);
            expect(tokenInfo(res.body)).toBe(expectedInfo.get(answer.token));
          }
        } else if (revokedKeys.has(answer.key)) {
          expect(res.statusCode).toBe(401);
          expect(withoutRequestId(res)).toBe(refused.key);
        } else {
          expect(res.statusCode, res.body).toBe(200);
          expect(res.body).toBe(songBody);
        }
      }
    };

    await burst();
    await burst();
    // Half of each revoked through node B, while node A holds them all in memory.
    for (const holder of holders.filter((_, i) => i % 2 === 1)) {
      const res = await nodeB.app.inject({ method: 'POST', url: '/v1/auth/token/revoke', headers: { 'content-type': 'application/json' }, payload: { token: holder.token } });
      expect(res.statusCode).toBe(200);
      revokedTokens.add(holder.token);
    }
    const keysOnB = createApiKeysService(createApiKeysRepo(nodeB.storage.db));
    for (const { key, id } of keys.filter((_, i) => i % 2 === 0)) {
      await keysOnB.revoke(id);
      revokedKeys.add(key);
    }
    refused.token = withoutRequestId(await nodeA.app.inject({ method: 'GET', url: '/v1/auth/tokeninfo', headers: { authorization: `Bearer ${[...revokedTokens][0]}` } }));
    refused.key = withoutRequestId(await nodeA.app.inject({ method: 'GET', url: '/v1/music/songs/song-ar', headers: { 'x-api-key': [...revokedKeys][0]! } }));
    expect(JSON.parse(refused.key)).toMatchObject({ code: 'ERROR_CODE_UNAUTHENTICATED', message: 'مفتاح API غير معروف أو منتهي الصلاحية أو ملغى.' });
    expect(JSON.parse(refused.token)).toMatchObject({ code: 'ERROR_CODE_UNAUTHENTICATED', message: 'رمز الوصول غير معروف أو منتهي الصلاحية أو ملغى.' });
    await burst();
    await burst();
  });
});

describe.skipIf(!redisUp || !dialects.some((d) => d.name === 'postgres'))('credential checks on PostgreSQL when Redis does not answer', () => {
  let server: TestServer;
  let node: { app: FastifyInstance; storage: Storage };
  let other: Storage;
  let keyReads = 0;

  beforeAll(async () => {
    server = await startTestServer(dialects.find((d) => d.name === 'postgres')!);
    const storage = openStorage(server.databaseUrl, { redisUrl: 'redis://127.0.0.1:1', logQuery: (sql) => { if (/(from|join) "api_keys"/.test(sql)) keyReads++; } });
    node = { app: await buildApp({ config: loadConfig({ DATABASE_URL: server.databaseUrl, MAQAM_SECRET: 'x'.repeat(40) }), storage, logger: false }), storage };
    other = openStorage(server.databaseUrl, { redisUrl: REDIS_URL });
  });
  afterAll(async () => {
    await node?.app.close();
    await node?.storage.close();
    await other?.close();
    await server?.close();
  });

  it('reads the key on every request, so a revocation is refused at once', async () => {
    const { key, id } = await createApiKeysService(createApiKeysRepo(server.storage.db)).create({ name: 'no-redis' });
    const song = () => node.app.inject({ method: 'GET', url: '/v1/music/songs/song-ar', headers: { 'x-api-key': key } });
    for (let i = 0; i < 3; i++) expect((await song()).statusCode).toBe(200);
    expect(keyReads).toBe(3);
    await createApiKeysService(createApiKeysRepo(other.db)).revoke(id);
    expect((await song()).statusCode).toBe(401);
  });
});

/**
 * A node asks Redis for the shared write version once for the requests that
 * come while a read is under way (storage/shared-write-version.ts): a request
 * begun after a revocation answered must not take the answer of a read asked
 * before it. Node A reaches Redis through a proxy that holds Redis's answers
 * back, so a read asked before the revocation is still under way after it.
 */
describe.skipIf(!redisUp || !dialects.some((d) => d.name === 'postgres'))('the write version asked once for requests that come together, on PostgreSQL with Redis', () => {
  let server: TestServer;
  let node: { app: FastifyInstance; storage: Storage };
  let other: FastifyInstance;
  let otherStorage: Storage;
  let proxy: Server;
  /** Redis's answers to node A not yet passed on, and whether they are held. */
  const heldAnswers: (() => void)[] = [];
  let holding = false;

  beforeAll(async () => {
    server = await startTestServer(dialects.find((d) => d.name === 'postgres')!);
    const redis = new URL(REDIS_URL);
    proxy = createServer((client) => {
      const upstream = connect(Number(redis.port || 6379), redis.hostname);
      client.on('error', () => upstream.destroy());
      upstream.on('error', () => client.destroy());
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
      client.pipe(upstream);
      upstream.on('data', (chunk: Buffer) => (holding ? heldAnswers.push(() => client.write(chunk)) : client.write(chunk)));
    });
    const port = await new Promise<number>((resolve) => proxy.listen(0, '127.0.0.1', () => resolve((proxy.address() as { port: number }).port)));
    const config = loadConfig({ DATABASE_URL: server.databaseUrl, MAQAM_SECRET: 'x'.repeat(40) });
    const storage = openStorage(server.databaseUrl, { redisUrl: `redis://127.0.0.1:${port}` });
    node = { app: await buildApp({ config, storage, logger: false }), storage };
    otherStorage = openStorage(server.databaseUrl, { redisUrl: REDIS_URL });
    other = await buildApp({ config, storage: otherStorage, logger: false });
  });
  afterAll(async () => {
    holding = false;
    for (const pass of heldAnswers.splice(0)) pass();
    await node?.app.close();
    await node?.storage.close();
    await other?.close();
    await otherStorage?.close();
    proxy?.close();
    await server?.close();
  });

  it('refuses a token on a request begun after another node revoked it, while a read asked before is under way', async () => {
    const accounts = await seedAccounts(server);
    const { access_token: token } = await tokensFor(server, accounts.client.clientId, accounts.user.username, 'read');
    const ask = () => node.app.inject({ method: 'GET', url: '/v1/auth/tokeninfo', headers: { authorization: `Bearer ${token}` } });
    // Kept in memory at the version Redis holds now.
    for (let i = 0; i < 2; i++) expect((await ask()).statusCode).toBe(200);
    holding = true;
    const before = ask();
    // Redis has answered the read asked for it (the version before the revocation): held here.
    await vi.waitFor(() => expect(heldAnswers.length).toBeGreaterThan(0));
    const revoked = await other.inject({ method: 'POST', url: '/v1/auth/token/revoke', headers: { 'content-type': 'application/json' }, payload: { token } });
    expect(revoked.statusCode).toBe(200);
    const after = ask();
    holding = false;
    for (const pass of heldAnswers.splice(0)) pass();
    expect((await before).statusCode).toBe(200);
    expect((await after).statusCode).toBe(401);
  });
});

/**
 * Processes that spell one database's URL differently (127.0.0.1 or
 * localhost, another scheme, a query) are one deployment: what they share in
 * Redis is named after the id the database holds (migration 014), not after
 * the URL's text. Before, a revocation through `localhost` changed a write
 * version no node on `127.0.0.1` watched, and the key kept working for seconds.
 */
describe.skipIf(!redisUp || !dialects.some((d) => d.name === 'postgres'))('one deployment however its URL is spelled, on PostgreSQL with Redis', () => {
  let server: TestServer;
  const nodes: { app: FastifyInstance; storage: Storage }[] = [];
  const spellings: string[] = [];

  beforeAll(async () => {
    server = await startTestServer(dialects.find((d) => d.name === 'postgres')!);
    const url = new URL(server.databaseUrl);
    const other = new URL(server.databaseUrl);
    other.protocol = 'postgresql:';
    other.hostname = url.hostname === 'localhost' ? '127.0.0.1' : 'localhost';
    other.search = '?application_name=maqam-other';
    spellings.push(url.toString(), other.toString());
    for (const databaseUrl of spellings) {
      const storage = openStorage(databaseUrl, { redisUrl: REDIS_URL });
      const config = loadConfig({ DATABASE_URL: databaseUrl, REDIS_URL, MAQAM_SECRET: 'x'.repeat(40), MAQAM_RATE_LIMIT: '6' });
      nodes.push({ app: await buildApp({ config, storage, logger: false }), storage });
    }
  });
  afterAll(async () => {
    for (const node of nodes) {
      await node.app.close();
      await node.storage.close();
    }
    await server?.close();
  });

  const song = (node: { app: FastifyInstance }, key: string) => node.app.inject({ method: 'GET', url: '/v1/music/songs/song-ar', headers: { 'x-api-key': key } });

  it('refuses a key on both nodes on the very next request after a revocation through another spelling of the URL', async () => {
    const { key, id } = await createApiKeysService(createApiKeysRepo(server.storage.db)).create({ name: 'spelled-differently' });
    // Both nodes keep the key in memory (its first use is a write, which the second request's check follows).
    for (const node of nodes) for (let i = 0; i < 2; i++) expect((await song(node, key)).statusCode).toBe(200);
    // An operator's `maqam keys revoke`, run with the spelling neither node nor the key's creator used.
    for (const databaseUrl of spellings.slice().reverse()) {
      const operator = openStorage(databaseUrl, { redisUrl: REDIS_URL });
      try {
        if (databaseUrl === spellings[1]) await createApiKeysService(createApiKeysRepo(operator.db)).revoke(id);
      } finally {
        await operator.close();
      }
    }
    for (const node of nodes) expect((await song(node, key)).statusCode).toBe(401);
  });

  it('counts one credential\'s calls against one limit on both nodes', async () => {
    const { key } = await createApiKeysService(createApiKeysRepo(server.storage.db)).create({ name: 'limited' });
    const remaining: string[] = [];
    for (let i = 0; i < 6; i++) {
      const res = await song(nodes[i % 2]!, key);
      expect(res.statusCode).toBe(200);
      remaining.push(String(res.headers['x-ratelimit-remaining']));
    }
    expect(remaining).toEqual(['5', '4', '3', '2', '1', '0']);
    for (const node of nodes) expect((await song(node, key)).statusCode).toBe(429);
  });

  it('names its shared state after the id the database holds, the same for every spelling', async () => {
    const ids = await Promise.all(nodes.map((node) => node.storage.deploymentId()));
    expect(ids[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(ids[1]).toBe(ids[0]);
    expect(await server.storage.deploymentId()).toBe(ids[0]);
  });
});
