import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../dialects.ts';
import { startTestServer, type TestServer } from '../harness.ts';
import { openSignIn, PASSWORD, pkce, REDIRECT, seedAccounts } from './oauth-helpers.ts';

/**
 * Regression (issue 8, item 5): the failure count was read, the password
 * checked, and only then the count raised, so 100 parallel wrong passwords
 * were all checked and 30 parallel attempts found the right one.
 */
describe.each(dialects.map((d) => [d.name, d] as const))('sign-in limits under concurrency on %s', (_name, dialect) => {
  let server: TestServer;
  let accounts: Awaited<ReturnType<typeof seedAccounts>>;
  beforeAll(async () => {
    server = await startTestServer(dialect);
    accounts = await seedAccounts(server);
  });
  afterAll(async () => server?.close());

  async function form() {
    const { challenge } = pkce();
    return openSignIn(server, {
      response_type: 'code',
      client_id: accounts.client.clientId,
      redirect_uri: REDIRECT,
      scope: 'read',
      state: 's',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
  }

  function attempt(page: Awaited<ReturnType<typeof form>>, username: string, password: string, remoteAddress: string) {
    return server.app.inject({
      method: 'POST',
      url: '/v1/auth/authorize',
      remoteAddress,
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: page.cookie },
      payload: new URLSearchParams({ ...page.hidden, username, password, decision: 'allow' }).toString(),
    });
  }

  it('checks at most five of 100 parallel wrong passwords for one username', async () => {
    const { user } = await seedAccounts(server);
    const page = await form();
    // Each from its own address, so only the per-username limit applies.
    const answers = await Promise.all(Array.from({ length: 100 }, (_, i) => attempt(page, user.username, `wrong-${i}`, `10.1.${i >> 8}.${i & 255}`)));
    const checked = answers.filter((res) => res.statusCode === 200);
    expect(checked.length).toBe(5);
    expect(checked.every((res) => res.body.includes('The username or password is not correct'))).toBe(true);
    expect(answers.filter((res) => res.statusCode === 429).length).toBe(95);
  });

  it('issues no code to the right password sent among 30 parallel attempts after the wrong ones', async () => {
    const { user } = await seedAccounts(server);
    const page = await form();
    const passwords = [...Array.from({ length: 29 }, (_, i) => `wrong-${i}`), PASSWORD];
    const answers = await Promise.all(passwords.map((password, i) => attempt(page, user.username, password, `10.2.0.${i}`)));
    expect(answers.filter((res) => res.statusCode === 302)).toEqual([]);
    expect(answers.filter((res) => res.statusCode === 200).length).toBe(5);
  });

  it('checks at most twenty parallel attempts from one address, whatever the usernames', async () => {
    const page = await form();
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => attempt(page, `nobody-${i}`, 'wrong', '10.3.0.1')));
    expect(answers.filter((res) => res.statusCode === 200).length).toBe(20);
    expect(answers.filter((res) => res.statusCode === 429).length).toBe(20);
  });

  it('does not count a right password against the limits', async () => {
    const { user } = await seedAccounts(server);
    for (let round = 0; round < 8; round++) {
      const res = await attempt(await form(), user.username, PASSWORD, '10.4.0.1');
      expect(res.statusCode, res.body.slice(0, 200)).toBe(302);
    }
  });
});
