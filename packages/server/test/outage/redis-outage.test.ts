import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../dialects.ts';
import { startTestServer, type TestServer } from '../harness.ts';
import { openSignIn, PASSWORD, pkce, REDIRECT, seedAccounts } from '../oauth/oauth-helpers.ts';
import { REDIS_URL, redisUp } from '../redis.ts';
import { TcpProxy } from './tcp-proxy.ts';
import { pause, timeToRecover } from './spawn-server.ts';

/**
 * Regression (issue 8, item 4): with Redis paused every credentialed request
 * hung; with Redis refusing connections every sign-in answered 500. Through a
 * TCP proxy in front of the real Redis: requests and sign-in keep working
 * without waiting on it, failed sign-ins are still limited (counted in the
 * process), and the shared limits and their headers come back with Redis.
 */
describe.runIf(redisUp)('Redis outages', () => {
  let proxy: TcpProxy;
  let server: TestServer;
  let accounts: Awaited<ReturnType<typeof seedAccounts>>;

  beforeAll(async () => {
    const target = new URL(REDIS_URL);
    proxy = await TcpProxy.start(Number(target.port || 6379), target.hostname);
    server = await startTestServer(dialects[0]!, { REDIS_URL: `redis://127.0.0.1:${proxy.port}`, MAQAM_RATE_LIMIT: '1000' });
    accounts = await seedAccounts(server);
  });
  afterAll(async () => {
    await server?.close();
    await proxy?.close();
  });

  const related = () => server.call({ method: 'GET', url: '/v1/music/artists/artist-ar/related?page_size=1' });

  async function signIn(username: string, password: string) {
    const { challenge } = pkce();
    const page = await openSignIn(server, {
      response_type: 'code',
      client_id: accounts.client.clientId,
      redirect_uri: REDIRECT,
      scope: 'read',
      state: 's',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    return server.app.inject({
      method: 'POST',
      url: '/v1/auth/authorize',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: page.cookie },
      payload: new URLSearchParams({ ...page.hidden, username, password, decision: 'allow' }).toString(),
    });
  }

  async function timed<T>(run: () => Promise<T>): Promise<{ value: T; ms: number }> {
    const started = performance.now();
    const value = await run();
    return { value, ms: performance.now() - started };
  }

  it.each([
    ['paused', 'pause'],
    ['cut off', 'cut'],
  ] as const)('answers without waiting on Redis while it is %s, keeps sign-in working and limited, and limits again once it is back', async (_state, outage) => {
    expect((await related()).headers['x-ratelimit-limit']).toBe('1000');
    proxy[outage]();
    try {
      const answers = [];
      for (let i = 0; i < 20; i++) answers.push(await timed(related));
      expect(answers.every(({ value }) => value.statusCode === 200)).toBe(true);
      // One command deadline (250 ms) at most, then none while Redis cools off.
      expect(Math.max(...answers.map((a) => a.ms))).toBeLessThan(1000);
      expect(answers.slice(-5).every(({ value }) => value.headers['x-ratelimit-limit'] === undefined)).toBe(true);

      const { user } = await seedAccounts(server);
      const signedIn = await timed(() => signIn(user.username, PASSWORD));
      expect(signedIn.value.statusCode, signedIn.value.body.slice(0, 300)).toBe(302);
      expect(signedIn.ms).toBeLessThan(2000);
      const failures = [];
      for (let i = 0; i < 6; i++) failures.push((await signIn(user.username, `wrong-${i}`)).statusCode);
      expect(failures).toEqual([200, 200, 200, 200, 200, 429]);
    } finally {
      proxy.restore();
    }
    const recovered = await timeToRecover(async () => {
      const res = await related();
      return res.headers['x-ratelimit-limit'] === '1000' ? 200 : 0;
    });
    expect(recovered).toBeLessThan(2000);
    await pause(50);
  });
});
