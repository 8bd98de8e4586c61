import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildApp, loadConfig } from '@maqam/server';
import { dialects } from '../dialects.ts';
import { batchGet, ids, startTestServer, type TestServer } from '../harness.ts';
import { REDIS_URL, redisUp } from '../redis.ts';

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

/** Regression (issue 8, item 8): the token endpoints gave 120 rapid requests each without a 429 at MAQAM_RATE_LIMIT=30. */
describe('per-address limits on the token endpoints (MAQAM_RATE_LIMIT=30)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(dialects[0]!, { MAQAM_RATE_LIMIT: '30' });
  });
  afterAll(async () => server?.close());

  const post = (url: string, payload: object, remoteAddress: string) =>
    server.app.inject({ method: 'POST', url, remoteAddress, headers: { 'content-type': 'application/json' }, payload: JSON.stringify(payload) });

  it.each([
    ['/v1/auth/token', { grant_type: 'refresh_token', refresh_token: 'mrt_x', client_id: 'c' }],
    ['/v1/auth/token/refresh', { refresh_token: 'mrt_x', client_id: 'c' }],
    ['/v1/auth/token/revoke', { token: 'mat_x' }],
  ])('answers the 31st call a minute from one address to %s with 429, Retry-After and OAuth members', async (url, payload) => {
    const address = `10.9.${url.length}.1`;
    const answers = [];
    for (let i = 0; i < 31; i++) answers.push(await post(url, payload, address));
    expect(answers.slice(0, 30).every((res) => res.statusCode !== 429)).toBe(true);
    expect(answers.map((res) => res.headers['x-ratelimit-remaining'])).toEqual([...Array.from({ length: 30 }, (_, i) => String(29 - i)), '0']);
    const limited = answers[30]!;
    expect(limited.statusCode).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(limited.json()).toMatchObject({ code: 'ERROR_CODE_RATE_LIMITED', error: expect.any(String), requestId: expect.any(String) });
    // Another address has its own budget.
    expect((await post(url, payload, '10.9.99.1')).statusCode).not.toBe(429);
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

  it('keeps the counts of two deployments that share one Redis apart', async () => {
    const other = await startTestServer(dialects[0]!, { MAQAM_RATE_LIMIT: '4', REDIS_URL });
    try {
      const revoke = (app: FastifyInstance) => app.inject({
        method: 'POST', url: '/v1/auth/token/revoke', remoteAddress: '10.7.0.1',
        headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ token: 'mat_x' }),
      });
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) statuses.push((await revoke(server.app)).statusCode);
      expect(statuses.slice(4)).toEqual([429]);
      // The same address on another deployment (another database) has its own budget.
      const elsewhere = await revoke(other.app);
      expect(elsewhere.statusCode).not.toBe(429);
      expect(elsewhere.headers['x-ratelimit-remaining']).toBe('3');
    } finally {
      await other.close();
    }
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
