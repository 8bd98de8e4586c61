import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildApp, formatKey, loadConfig, openStorage, type Storage } from '@maqam/server';
import { dialects } from '../dialects.ts';
import { REDIS_URL, redisUp } from '../redis.ts';
import { startTestServer, type TestServer } from '../harness.ts';
import { asDeveloper, developer, withKey } from './developer-helpers.ts';

const CLIENTS = 32;
const REQUESTS_PER_CLIENT = 8;
const GRACE_SECONDS = 600;

/**
 * Correct under load on two nodes (issue 55): two servers on one database
 * (two connections to one SQLite file, or two pools on one PostgreSQL with a
 * shared Redis, so credentials are kept in memory between writes), one
 * injected clock. Nothing sleeps: the grace ends when the clock is moved.
 */
describe.each(dialects.map((d) => [d.name, d] as const))('developer keys under load on two nodes, %s', (dialectName, dialect) => {
  let server: TestServer;
  let nodeB: { app: FastifyInstance; storage: Storage };
  let now = Date.parse('2026-05-01T12:00:00Z');
  const clock = () => now;
  const shared: Record<string, string> = dialectName === 'postgres' && redisUp ? { REDIS_URL } : {};

  beforeAll(async () => {
    server = await startTestServer(dialect, { MAQAM_RATE_LIMIT: '0', ...shared }, { clock });
    const storage = openStorage(server.databaseUrl, { redisUrl: shared.REDIS_URL });
    nodeB = { app: await buildApp({ config: loadConfig({ DATABASE_URL: server.databaseUrl, MAQAM_SECRET: 'x'.repeat(40), MAQAM_RATE_LIMIT: '0', ...shared }), storage, logger: false, clock }), storage };
  });
  afterAll(async () => {
    await nodeB?.app.close();
    await nodeB?.storage.close();
    await server?.close();
  });

  const nodes = () => [server.app, nodeB.app];
  const usageOf = async (call: ReturnType<typeof asDeveloper>, id: string) =>
    ((await call('GET', `/v1/developer/keys/${id}/usage`)).json().usage as { calls: number; clientErrors: number }[])
      .reduce((sum, row) => sum + row.calls, 0);

  it('32 clients on two nodes while the key is rotated: old or new works until the grace ends, the old never after; usage adds up', async () => {
    const dev = await developer(server);
    const made = (await dev.call('POST', '/v1/developer/keys', { name: 'busy' })).json();
    const oldId: string = made.apiKey.id;
    let fresh: { apiKey: { id: string }; secret: string } | undefined;
    const answered = { old: 0, new: 0 };
    const failures: string[] = [];

    // Before the grace ends: half the clients see the rotation's new key as soon as it is made, the rest keep the old one.
    // Each client goes on until it has made its requests and two more since the rotation answered.
    const client = async (n: number) => {
      let sinceRotation = 0;
      for (let i = 0; (i < REQUESTS_PER_CLIENT || sinceRotation < 2) && !rotationFailed && i < 1000; i++) {
        // A turn of the event loop between requests, as a client across a network gives: the rotation's I/O goes on meanwhile.
        await new Promise((resolve) => setImmediate(resolve));
        if (fresh !== undefined) sinceRotation++;
        const useNew = fresh !== undefined && n % 2 === 0;
        const res = await withKey(nodes()[(n + i) % 2]!, useNew ? fresh!.secret : made.secret);
        if (res.statusCode !== 200) failures.push(`client ${n} request ${i} (${useNew ? 'new' : 'old'}): ${res.statusCode}`);
        else answered[useNew ? 'new' : 'old']++;
      }
    };
    let rotationFailed = '';
    const rotation = (async () => {
      await new Promise((resolve) => setImmediate(resolve));
      const res = await asDeveloper(nodeB.app, dev.token)('POST', `/v1/developer/keys/${oldId}:rotate`, { graceSeconds: GRACE_SECONDS });
      if (res.statusCode === 200) fresh = res.json();
      else rotationFailed = `${res.statusCode} ${res.body}`;
    })();
    await Promise.all([rotation, ...Array.from({ length: CLIENTS }, (_, n) => client(n))]);
    expect(rotationFailed).toBe('');
    expect(failures).toEqual([]);
    // Both secrets were in use at once before the grace ended.
    expect([answered.old > CLIENTS, answered.new > 0]).toEqual([true, true]);

    // The grace's last moment, then its end: the old secret is refused on both nodes, the new one taken.
    now += GRACE_SECONDS * 1000 - 1;
    for (const app of nodes()) expect((await withKey(app, made.secret)).statusCode).toBe(200);
    answered.old += 2;
    now += 1;
    const after = await Promise.all(Array.from({ length: CLIENTS }, async (_, n) => {
      const useNew = n % 2 === 0;
      const res = await withKey(nodes()[n % 2]!, useNew ? fresh!.secret : made.secret);
      if (useNew && res.statusCode === 200) answered.new++;
      return [useNew, res.statusCode] as const;
    }));
    expect(after.filter(([useNew]) => !useNew).map(([, status]) => status)).toEqual(Array(CLIENTS / 2).fill(401));
    expect(after.filter(([useNew]) => useNew).map(([, status]) => status)).toEqual(Array(CLIENTS / 2).fill(200));

    // Counted in memory on each node until a flush: the totals are the requests each key was answered, both nodes together.
    await Promise.all(nodes().map((app) => app.keyUsage.flush()));
    expect(nodes().map((app) => app.keyUsage.pending())).toEqual([0, 0]);
    expect(await usageOf(dev.call, oldId)).toBe(answered.old);
    expect(await usageOf(dev.call, fresh!.apiKey.id)).toBe(answered.new);
  });

  it.runIf(shared.REDIS_URL)('with Redis, shows every node\'s calls on any node once handed on, and a flush on one node writes them all once', async () => {
    const dev = await developer(server);
    const { apiKey, secret } = (await dev.call('POST', '/v1/developer/keys', { name: 'shared' })).json();
    for (let i = 0; i < 6; i++) expect((await withKey(nodes()[i % 2]!, secret)).statusCode).toBe(200);
    // The usage answer on the first node: its own calls at once, the other node's once it has handed them on (each second).
    await nodeB.app.keyUsage.share();
    expect(nodeB.app.keyUsage.pending()).toBe(0);
    expect(await usageOf(dev.call, apiKey.id)).toBe(6);
    // The first node's flush writes its own calls and what Redis holds from the other; nothing is written twice.
    await server.app.keyUsage.flush();
    await nodeB.app.keyUsage.flush();
    expect(await usageOf(dev.call, apiKey.id)).toBe(6);
    expect(await usageOf(asDeveloper(nodeB.app, dev.token), apiKey.id)).toBe(6);
  });

  it('writes what both nodes counted when they flush at once, each having counted the same operations in its own order', async () => {
    const dev = await developer(server);
    const { apiKey, secret } = (await dev.call('POST', '/v1/developer/keys', { name: 'both ways' })).json();
    await Promise.all(nodes().map((app) => app.keyUsage.flush()));
    const urls = ['/v1/music/songs/song-ar', '/v1/music/albums/album-1', '/v1/music/artists/artist-ar', '/v1/music/artists/artist-ar/albums'];
    let sent = 0;
    for (let round = 0; round < 8; round++) {
      // Node A counts the operations in one order, node B in the other, then both flush together: each writes the
      // same rows, which on PostgreSQL lock one another.
      for (const [app, order] of [[server.app, urls], [nodeB.app, [...urls].reverse()]] as const) {
        for (const url of order) {
          expect((await withKey(app, secret, url)).statusCode, url).toBe(200);
          sent++;
        }
      }
      await Promise.all(nodes().map((app) => app.keyUsage.flush()));
      expect(nodes().map((app) => app.keyUsage.pending()), `round ${round}`).toEqual([0, 0]);
    }
    expect(await usageOf(dev.call, apiKey.id)).toBe(sent);
  });

  it('refuses a revoked key, and a reported one, on the very next request on every node', async () => {
    const dev = await developer(server);
    for (const kill of ['revoke', 'report'] as const) {
      const { apiKey, secret } = (await dev.call('POST', '/v1/developer/keys', { name: `to ${kill}` })).json();
      for (let i = 0; i < 3; i++) for (const app of nodes()) expect((await withKey(app, secret)).statusCode).toBe(200);
      if (kill === 'revoke') expect((await asDeveloper(server.app, dev.token)('POST', `/v1/developer/keys/${apiKey.id}:revoke`)).statusCode).toBe(200);
      else {
        const res = await nodeB.app.inject({ method: 'POST', url: '/v1/developer/keys:reportLeaked', headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ key: secret }) });
        expect(res.statusCode).toBe(202);
      }
      for (const app of [nodeB.app, server.app]) expect((await withKey(app, secret)).statusCode).toBe(401);
    }
  });

  it('writes nothing per request: a burst of key requests makes no database write until the flush', async () => {
    const dev = await developer(server);
    const { apiKey, secret } = (await dev.call('POST', '/v1/developer/keys', { name: 'quiet' })).json();
    // Nothing left from the other tests for this node's flush to take from Redis.
    await Promise.all(nodes().map((app) => app.keyUsage.flush()));
    const writes: string[] = [];
    const storage = openStorage(server.databaseUrl, {
      redisUrl: shared.REDIS_URL,
      logQuery: (sql) => { if (/^\s*(insert|update|delete)\b/i.test(sql)) writes.push(sql); },
    });
    const app = await buildApp({ config: loadConfig({ DATABASE_URL: server.databaseUrl, MAQAM_SECRET: 'x'.repeat(40), MAQAM_RATE_LIMIT: '0', ...shared }), storage, logger: false, clock });
    try {
      // The key's first use on this node records its last use (one write, at most once a minute): let it land.
      expect((await withKey(app, secret)).statusCode).toBe(200);
      await expect.poll(() => writes.length).toBe(1);
      writes.length = 0;
      for (let round = 0; round < 10; round++) {
        const answers = await Promise.all(Array.from({ length: 20 }, () => withKey(app, secret)));
        expect(answers.every((res) => res.statusCode === 200)).toBe(true);
      }
      expect(writes).toEqual([]);
      await app.keyUsage.flush();
      // One row a (key, day, operation), whatever the number of requests; every call in it (the burst and the first use).
      expect(writes.length).toBe(1);
      expect(app.keyUsage.pending()).toBe(0);
      expect(await usageOf(dev.call, apiKey.id)).toBe(201);
    } finally {
      await app.close();
      await storage.close();
    }
  });

  it('refuses a key with a bad checksum before any database read; a right one with an unknown id reads as a known one does', async () => {
    const dev = await developer(server);
    const { secret } = (await dev.call('POST', '/v1/developer/keys', { name: 'checked' })).json();
    const reads: string[] = [];
    const storage = openStorage(server.databaseUrl, { redisUrl: shared.REDIS_URL, logQuery: (sql) => { if (/"api_keys"/.test(sql)) reads.push(sql); } });
    const app = await buildApp({ config: loadConfig({ DATABASE_URL: server.databaseUrl, MAQAM_SECRET: 'x'.repeat(40), MAQAM_RATE_LIMIT: '0', ...shared }), storage, logger: false, clock });
    try {
      const last = secret.at(-1) === '0' ? '1' : '0';
      const badChecksum = `${secret.slice(0, -1)}${last}`;
      expect((await withKey(app, badChecksum)).statusCode).toBe(401);
      expect(reads).toEqual([]);
      const unknown = formatKey('zzzzzzzzzzzz', secret.slice(16, 59));
      expect((await withKey(app, unknown)).statusCode).toBe(401);
      expect(reads.length).toBeGreaterThan(0);
    } finally {
      await app.close();
      await storage.close();
    }
  });

  it('loses nothing counted when a node stops cleanly', async () => {
    const dev = await developer(server);
    const { apiKey, secret } = (await dev.call('POST', '/v1/developer/keys', { name: 'stopping' })).json();
    const storage = openStorage(server.databaseUrl, { redisUrl: shared.REDIS_URL });
    const app = await buildApp({ config: loadConfig({ DATABASE_URL: server.databaseUrl, MAQAM_SECRET: 'x'.repeat(40), MAQAM_RATE_LIMIT: '0', ...shared }), storage, logger: false, clock });
    for (let i = 0; i < 7; i++) expect((await withKey(app, secret)).statusCode).toBe(200);
    await app.close();
    await storage.close();
    expect(await usageOf(dev.call, apiKey.id)).toBe(7);
  });
});
