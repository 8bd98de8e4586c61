import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../dialects.ts';
import { startTestServer, type TestServer } from '../harness.ts';
import { REDIS_URL, redisUp } from '../redis.ts';
import { developer, withKey } from './developer-helpers.ts';

/**
 * A TCP proxy in front of Redis whose answers can be held back, as a slow
 * network or a stalled Redis holds them: past the client's command timeout
 * the command has run, but the client has heard nothing.
 */
async function lateRedis(target: URL) {
  let holdMs = 0;
  const held = new Set<Promise<void>>();
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(Number(target.port || 6379), target.hostname);
    sockets.add(client).add(upstream);
    client.on('data', (chunk) => upstream.write(chunk));
    upstream.on('data', (chunk) => {
      if (holdMs === 0) return void client.write(chunk);
      const delivered = new Promise<void>((resolve) => setTimeout(() => {
        if (!client.destroyed) client.write(chunk);
        resolve();
      }, holdMs));
      held.add(delivered);
      void delivered.then(() => held.delete(delivered));
    });
    for (const socket of [client, upstream]) socket.on('error', () => {}).on('close', () => { client.destroy(); upstream.destroy(); });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `redis://127.0.0.1:${(server.address() as AddressInfo).port}`,
    /** Holds each answer back this long from now on (0: passes them at once). */
    hold: (ms: number) => void (holdMs = ms),
    /** Every answer held back so far has been passed on. */
    delivered: () => Promise.all([...held]),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * API keys' usage through a Redis whose answers come after the client gave
 * up (keys/redis-usage-tally.ts): a batch handed over then is not counted
 * twice when it is sent again, and counts taken then are not lost.
 */
describe.runIf(redisUp)('usage counts through a Redis that answers late', () => {
  let server: TestServer;
  let redis: Awaited<ReturnType<typeof lateRedis>>;
  let now = Date.parse('2026-06-01T12:00:00Z');
  beforeAll(async () => {
    redis = await lateRedis(new URL(REDIS_URL));
    server = await startTestServer(dialects[0]!, { MAQAM_RATE_LIMIT: '0', REDIS_URL: redis.url }, { clock: () => now });
  });
  afterAll(async () => {
    await server?.close();
    await redis?.close();
  });

  const callsOf = async (dev: Awaited<ReturnType<typeof developer>>, keyId: string) =>
    ((await dev.call('GET', `/v1/developer/keys/${keyId}/usage`)).json().usage as { calls: number }[]).reduce((sum, row) => sum + row.calls, 0);

  it('counts once a batch whose answer came late, sent again under its id', async () => {
    const dev = await developer(server);
    const { apiKey, secret } = (await dev.call('POST', '/v1/developer/keys', { name: 'late hand-over' })).json();
    await server.app.keyUsage.flush();
    for (let i = 0; i < 10; i++) expect((await withKey(server.app, secret)).statusCode).toBe(200);
    redis.hold(2_500); // past the tally's 2 s command timeout: Redis adds the batch, the node hears nothing
    await server.app.keyUsage.share();
    await redis.delivered();
    redis.hold(0);
    await server.app.keyUsage.share();
    await server.app.keyUsage.flush();
    expect(await callsOf(dev, apiKey.id)).toBe(10);
  }, 20_000);

  it('writes counts whose take answered late, once a later flush finds the take abandoned', async () => {
    const dev = await developer(server);
    const { apiKey, secret } = (await dev.call('POST', '/v1/developer/keys', { name: 'late take' })).json();
    for (let i = 0; i < 7; i++) expect((await withKey(server.app, secret)).statusCode).toBe(200);
    await server.app.keyUsage.share();
    redis.hold(2_500); // the take runs in Redis; its answer comes after the node gave up
    await server.app.keyUsage.flush();
    await redis.delivered();
    redis.hold(0);
    await server.app.keyUsage.flush();
    // Kept aside in Redis, not yet written; shown once it is.
    expect(await callsOf(dev, apiKey.id)).toBe(0);
    now += 120_000; // abandoned: the next flush writes it
    await server.app.keyUsage.flush();
    expect(await callsOf(dev, apiKey.id)).toBe(7);
    await server.app.keyUsage.flush();
    expect(await callsOf(dev, apiKey.id)).toBe(7);
  }, 20_000);
});
