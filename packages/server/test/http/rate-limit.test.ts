import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import type { FastifyInstance } from 'fastify';
import { buildApp, loadConfig } from '@maqam/server';
import { dialects } from '../dialects.ts';
import { batchGet, ids, startTestServer, type TestServer } from '../harness.ts';

const REDIS_URL = process.env.MAQAM_TEST_REDIS ?? 'redis://127.0.0.1:6379';

async function redisReachable(): Promise<boolean> {
  const client = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false, connectTimeout: 2000 });
  client.on('error', () => {});
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}
const redisUp = await redisReachable();
if (!redisUp) {
  if (process.env.MAQAM_REQUIRE_REDIS === '1') throw new Error(`MAQAM_REQUIRE_REDIS=1 but Redis at ${REDIS_URL} does not answer`);
  process.stderr.write(`\n*** Redis at ${REDIS_URL} is not reachable: SKIPPING the shared rate-limit tests ***\n\n`);
}

const related = (app: FastifyInstance, key: string, query = '') =>
  app.inject({ method: 'GET', url: `/v1/music/artists/artist-ar/related${query}`, headers: { 'x-api-key': key, 'accept-language': 'en' } });

describe('rate limits per credential (MAQAM_RATE_LIMIT=3, in memory)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(dialects[0]!, { MAQAM_RATE_LIMIT: '3' });
  });
  afterAll(async () => server?.close());

  it('counts calls per key, says so in headers, and answers the fourth with 429 and Retry-After', async () => {
    const { key } = await server.keys.create({ name: 'limited' });
    const before = Date.now();
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await related(server.app, key));
    const after = Date.now();
    expect(answers.map((res) => res.statusCode)).toEqual([200, 200, 200]);
    expect(answers.map((res) => res.headers['x-ratelimit-limit'])).toEqual(['3', '3', '3']);
    expect(answers.map((res) => res.headers['x-ratelimit-remaining'])).toEqual(['2', '1', '0']);
    // The window opened with the first call, somewhere between before and after.
    const reset = Number(answers[0]!.headers['x-ratelimit-reset']);
    expect(reset).toBeGreaterThanOrEqual(Math.ceil((before + 60_000) / 1000));
    expect(reset).toBeLessThanOrEqual(Math.ceil((after + 60_000) / 1000));
    expect(answers.map((res) => Number(res.headers['x-ratelimit-reset']))).toEqual([reset, reset, reset]);
    const limited = await related(server.app, key);
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toMatchObject({ code: 'ERROR_CODE_RATE_LIMITED', message: expect.stringMatching(/retry after \d+ s/) });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(limited.headers['x-ratelimit-remaining']).toBe('0');
  });

  it('counts a batch of 100 ids as one call, and keeps the headers on error answers', async () => {
    const { key } = await server.keys.create({ name: 'batch' });
    const full = await batchGet(server, ids(...Array.from({ length: 100 }, (_, i) => `s-${i}`)), { 'x-api-key': key });
    expect(full.headers['x-ratelimit-remaining']).toBe('2');
    const invalid = await batchGet(server, { songIdList: [] }, { 'x-api-key': key });
    expect(invalid.statusCode).toBe(400);
    expect(invalid.headers['x-ratelimit-remaining']).toBe('1');
  });

  it('limits each key on its own and does not count requests without valid credentials', async () => {
    const a = await server.keys.create({ name: 'a' });
    const b = await server.keys.create({ name: 'b' });
    for (let i = 0; i < 4; i++) await related(server.app, a.key);
    expect((await related(server.app, a.key)).statusCode).toBe(429);
    expect((await related(server.app, b.key)).statusCode).toBe(200);
    const anonymous = await server.app.inject({ method: 'GET', url: '/v1/music/artists/artist-ar/related' });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.headers['x-ratelimit-limit']).toBeUndefined();
  });
});

describe('MAQAM_RATE_LIMIT=0 turns limits off', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(dialects[0]!, { MAQAM_RATE_LIMIT: '0' });
  });
  afterAll(async () => server?.close());

  it('answers without limit headers however many calls', async () => {
    for (let i = 0; i < 5; i++) {
      const res = await related(server.app, server.apiKey);
      expect(res.statusCode).toBe(200);
      expect(res.headers['x-ratelimit-limit']).toBeUndefined();
    }
  });
});

describe.skipIf(!redisUp)('rate limits shared through Redis across nodes', () => {
  let server: TestServer;
  let second: FastifyInstance;
  beforeAll(async () => {
    server = await startTestServer(dialects[0]!, { MAQAM_RATE_LIMIT: '4', REDIS_URL });
    second = await buildApp({
      config: loadConfig({ DATABASE_URL: server.databaseUrl, MAQAM_SECRET: 'x'.repeat(40), MAQAM_RATE_LIMIT: '4', REDIS_URL }),
      storage: server.storage,
      logger: false,
    });
  });
  afterAll(async () => {
    await second?.close();
    await server?.close();
  });

  it('counts the calls a key makes on every node against one limit', async () => {
    const { key } = await server.keys.create({ name: 'shared' });
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await related(i % 2 === 0 ? server.app : second, key)).statusCode);
    expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
  });

  it('lets requests through, without limit headers, when Redis is unreachable', async () => {
    const isolated = await buildApp({
      config: loadConfig({ DATABASE_URL: server.databaseUrl, MAQAM_SECRET: 'x'.repeat(40), MAQAM_RATE_LIMIT: '1', REDIS_URL: 'redis://127.0.0.1:1' }),
      storage: server.storage,
      logger: false,
    });
    try {
      for (let i = 0; i < 3; i++) {
        const res = await related(isolated, server.apiKey);
        expect(res.statusCode).toBe(200);
        expect(res.headers['x-ratelimit-limit']).toBeUndefined();
      }
    } finally {
      await isolated.close();
    }
  });
});
