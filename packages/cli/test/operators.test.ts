import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addMedia } from '@maqam/server';
import { dialects } from '../../server/test/dialects.ts';
import { startTestServer, type TestServer } from '../../server/test/harness.ts';
import { catalogWith, PASSWORD, REDIRECT, refresh, seedAccounts, signIn, token } from '../../server/test/oauth/oauth-helpers.ts';
import { ffmpegAvailable } from '../../server/test/system-tools.ts';
import { REDIS_URL, redisUp } from '../../server/test/redis.ts';
import { runCli, runCliJson } from './run-cli.ts';
import { asUser, libraryUser, songIds } from '../../server/test/library/library-helpers.ts';

const haveFfmpeg = ffmpegAvailable('the maqam ledger test');

/**
 * The account commands an operator runs against a live server's database:
 * their effect is checked through the API, on the very next request. On
 * PostgreSQL the server and the CLI share a Redis, so the server checks
 * credentials from memory and learns of the CLI's writes from the write epoch
 * the CLI changes (a CLI that did not would leave the server trusting them).
 */
describe.each(dialects.map((d) => [d.name, d] as const))('operator commands on %s', (name, dialect) => {
  let server: TestServer;
  let env: Record<string, string>;
  let accounts: Awaited<ReturnType<typeof seedAccounts>>;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'maqam-operators-'));
    const redis: Record<string, string> = name === 'postgres' && redisUp ? { REDIS_URL } : {};
    server = await startTestServer(dialect, { MAQAM_MEDIA_DIR: join(dir, 'media'), ...redis });
    env = { DATABASE_URL: server.databaseUrl, LOG_LEVEL: 'silent', ...redis };
    accounts = await seedAccounts(server);
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A user of this test only, made with the CLI. */
  let users = 0;
  const newUser = async (): Promise<{ id: string; username: string }> => runCliJson(env, ['users', 'create', '--username', `listener-${users++}`, '--password', PASSWORD]);
  /** Signs in through the page and redeems the code; throws when the sign-in page refuses. */
  const signInAs = async (username: string, options: { password?: string; clientId?: string; scope?: string } = {}) => {
    const clientId = options.clientId ?? accounts.client.clientId;
    const { code, verifier } = await signIn(server, { clientId, username, password: options.password ?? PASSWORD, scope: options.scope ?? 'read stream' });
    const res = await token(server, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, client_id: clientId, code_verifier: verifier });
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as { access_token: string; refresh_token: string };
  };

  it('users disable ends every sign-in on the next request and refuses new ones; enable lets the user sign in again', async () => {
    const user = await newUser();
    const first = await signInAs(user.username);
    const second = await signInAs(user.username, { clientId: accounts.readOnly.clientId, scope: 'read' });
    expect((await catalogWith(server, first.access_token)).statusCode).toBe(200);

    const listed = await runCliJson(env, ['users', 'list']);
    expect(listed).toContainEqual({ id: user.id, username: user.username, createdAt: expect.any(String), disabledAt: null, activeSignIns: 2 });

    // Any case of the username names the user.
    expect(await runCliJson(env, ['users', 'disable', user.username.toUpperCase()])).toMatchObject({ id: user.id, disabled: true, signInsEnded: 2 });
    expect((await catalogWith(server, first.access_token)).statusCode).toBe(401);
    expect((await catalogWith(server, second.access_token)).statusCode).toBe(401);
    expect((await refresh(server, { grant_type: 'refresh_token', refresh_token: first.refresh_token, client_id: accounts.client.clientId })).statusCode).toBe(401);
    // The sign-in page refuses the right password as it would a wrong one.
    await expect(signInAs(user.username)).rejects.toThrow();
    expect(await runCliJson(env, ['users', 'list'])).toContainEqual(expect.objectContaining({ username: user.username, disabledAt: expect.any(String), activeSignIns: 0 }));

    expect(await runCliJson(env, ['users', 'enable', user.username])).toMatchObject({ disabled: false });
    await signInAs(user.username);
    // What disabling ended stays ended.
    expect((await catalogWith(server, first.access_token)).statusCode).toBe(401);
  });

  it('users set-password takes a new password from stdin and signs the user out everywhere', async () => {
    const user = await newUser();
    const before = await signInAs(user.username);
    const changed = await runCliJson(env, ['users', 'set-password', user.username, '--password-stdin'], 'a brand new password\n');
    expect(changed).toEqual({ id: user.id, username: user.username, passwordChanged: true, signInsEnded: 1 });
    expect((await catalogWith(server, before.access_token)).statusCode).toBe(401);
    await expect(signInAs(user.username)).rejects.toThrow();
    await signInAs(user.username, { password: 'a brand new password' });
    expect((await runCli(env, ['users', 'set-password', user.username, '--password', 'short'])).stderr).toContain('8 to 1024 characters');
    const unknown = await runCli(env, ['users', 'disable', 'nobody-here']);
    expect([unknown.code, unknown.stderr.includes('no user "nobody-here"')]).toEqual([1, true]);
    expect((await runCli(env, ['users', 'disable'])).code).toBe(2);
  });

  it('users delete asks for --yes, then deletes the user with their sign-ins, library, history, change feed and playlists', async () => {
    const library = await libraryUser(server);
    const call = asUser(server, library.write);
    expect((await call('POST', '/v1/library/saved:batchAdd', { songIdList: songIds('song-ar') })).statusCode).toBe(200);
    expect((await call('POST', '/v1/library/following/artists:batchAdd', { artistIdList: songIds('artist-ar') }, { 'idempotency-key': 'k-1' })).statusCode).toBe(200);
    const played = await call('POST', '/v1/library/history:report', { plays: [{ playId: 'p-1', songId: { value: 'song-ar' }, startedAt: new Date(Date.now() - 60_000).toISOString(), msPlayed: 40_000 }] });
    expect(played.statusCode).toBe(200);
    const made = await call('POST', '/v1/playlists', { name: 'public', visibility: 'PLAYLIST_VISIBILITY_PUBLIC', songIdList: songIds('song-ar', 'song-en') });
    expect(made.statusCode).toBe(201);
    const playlistUrl = made.headers.location as string;
    const playlistRows = async () => [
      (await server.storage.db.selectFrom('playlists').select('id').where('owner_id', '=', library.user.id).execute()).length,
      (await server.storage.db.selectFrom('playlist_items').select('item_id').where('playlist_id', '=', made.json().playlist.id.value).execute()).length,
    ];
    expect(await playlistRows()).toEqual([1, 2]);
    expect((await server.call({ method: 'GET', url: playlistUrl })).statusCode).toBe(200);
    const rowsOf = async () => {
      const counts: number[] = [];
      for (const table of ['library_items', 'library_changes', 'library_counters', 'play_history', 'idempotency_records'] as const) {
        counts.push((await server.storage.db.selectFrom(table).select('user_id').where('user_id', '=', library.user.id).execute()).length);
      }
      return counts;
    };
    expect(await rowsOf()).toEqual([2, 3, 1, 1, 1]);

    const unconfirmed = await runCli(env, ['users', 'delete', library.user.username]);
    expect(unconfirmed.code).toBe(2);
    expect(unconfirmed.stderr).toContain('--yes');
    expect((await call('GET', '/v1/users/me')).statusCode).toBe(200);

    expect(await runCliJson(env, ['users', 'delete', library.user.username, '--yes'])).toMatchObject({ id: library.user.id, deleted: true });
    expect((await call('GET', '/v1/users/me')).statusCode).toBe(401);
    expect(await rowsOf()).toEqual([0, 0, 0, 0, 0]);
    expect(await playlistRows()).toEqual([0, 0]);
    // The public playlist answers nowhere: not to an API key, not to another user.
    expect((await server.call({ method: 'GET', url: playlistUrl })).statusCode).toBe(404);
    expect((await asUser(server, (await libraryUser(server)).read)('GET', playlistUrl)).statusCode).toBe(404);
    expect(await runCliJson(env, ['users', 'list'])).not.toContainEqual(expect.objectContaining({ id: library.user.id }));
  });

  it('clients add-redirect-uri registers a URI; clients delete signs out everyone using the client', async () => {
    const client = await runCliJson(env, ['clients', 'create', '--name', 'Doomed', '--redirect-uri', REDIRECT]);
    expect(await runCliJson(env, ['clients', 'add-redirect-uri', client.clientId, 'http://127.0.0.1:4000/cb'])).toEqual({ clientId: client.clientId, redirectUri: 'http://127.0.0.1:4000/cb', added: true });
    expect((await runCliJson(env, ['clients', 'add-redirect-uri', client.clientId, 'http://127.0.0.1:4000/cb'])).added).toBe(false);
    expect((await runCli(env, ['clients', 'add-redirect-uri', client.clientId, 'http://evil.example/cb'])).code).toBe(1);
    expect((await runCliJson(env, ['clients', 'list'])).find((c: { clientId: string }) => c.clientId === client.clientId).redirectUris).toEqual([REDIRECT, 'http://127.0.0.1:4000/cb']);

    const tokens = await signInAs((await newUser()).username, { clientId: client.clientId, scope: 'read' });
    expect((await catalogWith(server, tokens.access_token)).statusCode).toBe(200);
    expect(await runCliJson(env, ['clients', 'delete', client.clientId])).toEqual({ clientId: client.clientId, deleted: true });
    expect((await catalogWith(server, tokens.access_token)).statusCode).toBe(401);
    expect((await refresh(server, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: client.clientId })).statusCode).toBe(401);
    expect((await runCliJson(env, ['clients', 'list'])).map((c: { clientId: string }) => c.clientId)).not.toContain(client.clientId);
    const again = await runCli(env, ['clients', 'delete', client.clientId]);
    expect([again.code, again.stderr.includes(`no client "${client.clientId}"`)]).toEqual([1, true]);
  });

  it('users grant U developer lets U manage keys of their own at once; keys list --owner U shows them; revoke takes the role back', async () => {
    const user = await newUser();
    const client = await runCliJson(env, ['clients', 'create', '--name', 'Dev Portal', '--redirect-uri', REDIRECT, '--scopes', 'read developer']);
    const { access_token: bearer } = await signInAs(user.username, { clientId: client.clientId, scope: 'developer' });
    const dev = (method: 'GET' | 'POST', url: string, body?: unknown) => server.app.inject({
      method, url, headers: { authorization: `Bearer ${bearer}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
    expect((await dev('GET', '/v1/developer/keys')).statusCode).toBe(403);
    expect(await runCliJson(env, ['users', 'grant', user.username, 'developer'])).toEqual({ ...user, roles: ['developer'] });
    const made = await dev('POST', '/v1/developer/keys', { name: 'from the portal' });
    expect(made.statusCode, made.body).toBe(201);
    const owned = await runCliJson(env, ['keys', 'list', '--owner', user.username]);
    expect(owned.map((k: { id: string; owner: string }) => [k.id, k.owner])).toEqual([[made.json().apiKey.id, user.username]]);
    expect((await runCli(env, ['keys', 'list', '--owner', user.username])).stdout).toMatch(new RegExp(`${made.json().apiKey.id}\\s+active\\s+from the portal\\s+${user.username}`));
    expect((await runCliJson(env, ['keys', 'list'])).find((k: { name: string }) => k.name === 'test').owner).toBeNull();
    const nobody = await runCli(env, ['keys', 'list', '--owner', 'nobody-at-all']);
    expect([nobody.code, nobody.stderr]).toEqual([1, expect.stringContaining('no user "nobody-at-all"')]);
    expect(await runCliJson(env, ['users', 'revoke', user.username, 'developer'])).toEqual({ ...user, roles: [] });
    expect((await dev('GET', '/v1/developer/keys')).statusCode).toBe(403);
    const wrong = await runCli(env, ['users', 'grant', user.username, 'admin']);
    expect([wrong.code, wrong.stderr]).toEqual([1, expect.stringContaining('the role must be one of developer')]);
  });

  it('keys list shows when each key was last used', async () => {
    const unused = await runCliJson(env, ['keys', 'create', '--name', 'never used']);
    const res = await server.call({ method: 'GET', url: '/v1/music/artists/artist-ar' });
    expect(res.statusCode).toBe(200);
    // The use is written after the answer, without holding it up.
    await expect.poll(async () => (await runCliJson(env, ['keys', 'list'])).find((k: { name: string }) => k.name === 'test').lastUsedAt, { timeout: 15_000 })
      .toEqual(expect.stringMatching(/^\d{4}-\d\d-\d\dT/));
    expect((await runCliJson(env, ['keys', 'list'])).find((k: { id: string }) => k.id === unused.id).lastUsedAt).toBeNull();
    expect((await runCli(env, ['keys', 'list'])).stdout).toMatch(/last used[\s\S]*never used.*never\s*$/m);
  });

  it.skipIf(!haveFfmpeg)('ledger counts billed streams by day, song and client', async () => {
    const wav = join(dir, 'tone.wav');
    const made = spawnSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', '-f', 'lavfi', '-i', 'sine=frequency=440:duration=3', '-ac', '2', wav]);
    expect(made.status, made.stderr?.toString()).toBe(0);
    await addMedia(server.storage.db, join(dir, 'media'), 'song-ar', wav);
    await addMedia(server.storage.db, join(dir, 'media'), 'song-en', wav);
    expect((await runCliJson(env, ['ledger'])).groups).toEqual([]);

    const { access_token } = await signInAs((await newUser()).username);
    const acquire = (songId: string) => server.app.inject({
      method: 'POST', url: '/v1/streaming/music', headers: { authorization: `Bearer ${access_token}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ songId: { value: songId } }),
    });
    for (const songId of ['song-ar', 'song-en', 'song-ar']) expect((await acquire(songId)).statusCode).toBe(200);

    const today = new Date().toISOString().slice(0, 10);
    // The second song-ar falls in the first one's billing window: two billed streams.
    expect((await runCliJson(env, ['ledger'])).groups).toEqual([{ key: today, streams: 2, listeners: 1 }]);
    expect((await runCliJson(env, ['ledger', '--by', 'song'])).groups).toEqual([{ key: 'song-ar', streams: 1, listeners: 1 }, { key: 'song-en', streams: 1, listeners: 1 }]);
    expect((await runCliJson(env, ['ledger', '--by', 'client', '--since', '1h'])).groups).toEqual([{ key: accounts.client.clientId, streams: 2, listeners: 1 }]);
    expect((await runCli(env, ['ledger', '--by', 'song'])).stdout).toContain('2 billed streams in 2 songs');
    expect((await runCli(env, ['ledger', '--by', 'artist'])).code).toBe(2);
    expect((await runCli(env, ['ledger', '--since', '30'])).code).toBe(2);
  }, 60_000);
});
