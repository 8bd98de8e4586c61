import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClientsService, createUsersService, formatKey, parseKey } from '@maqam/server';
import {
  AuthenticationError, ConflictError, InvalidRequestError, isApiKey, MaqamClient, NetworkError, NotFoundError, type ApiKey, type FetchLike,
} from '@maqam/sdk';
import type { TestServer } from '../../server/test/harness.ts';
import { listeningServer, PASSWORD, signedInClient } from './signed-in.ts';

const REDIRECT_URI = 'http://127.0.0.1:9/portal';
const USER = 'nadia';

/** What a client's fetch sent, and the headers of what came back. */
function recording() {
  const sent: { method: string; url: string; headers: Record<string, string> }[] = [];
  const answers: Headers[] = [];
  const fetchFn: FetchLike = async (input, init) => {
    sent.push({ method: init?.method ?? 'GET', url: input, headers: { ...(init?.headers as Record<string, string>) } });
    const response = await fetch(input, init);
    answers.push(response.headers);
    return response;
  };
  return { sent, answers, fetchFn };
}

/** DeveloperService (contract section 16) through the SDK, against the real server, signed in with the developer scope. */
describe('the SDK\'s developer keys', () => {
  let server: TestServer;
  let baseUrl: string;
  let clientId: string;
  const withKey = (apiKey: string, fetchFn?: FetchLike) => new MaqamClient({ baseUrl, apiKey, locale: 'en', maxRetries: 0, ...(fetchFn && { fetch: fetchFn }) });
  const signedIn = (fetchFn?: FetchLike) => signedInClient({ baseUrl, clientId, redirectUri: REDIRECT_URI, username: USER, password: PASSWORD, scope: 'developer', fetch: fetchFn });

  beforeAll(async () => {
    ({ server, baseUrl } = await listeningServer(USER, { MAQAM_RATE_LIMIT: '1000' }));
    await createUsersService(server.storage.db).setRole(USER, 'developer', true);
    ({ clientId } = await createClientsService(server.storage.db).create({ name: 'Portal', redirectUris: [REDIRECT_URI], scopes: ['read', 'developer'] }));
  });
  afterAll(async () => server?.close());

  it('creates a key whose secret is shown once and reads the catalog at once', async () => {
    const maqam = await signedIn();
    const { apiKey, secret } = await maqam.developer.keys.create({ name: 'my app', scopes: ['catalog'], rateLimitPerMinute: 30 });
    expect(apiKey).toMatchObject({ name: 'my app', status: 'API_KEY_STATUS_ACTIVE', scopes: ['catalog'], rateLimitPerMinute: 30, lastUsedAt: null, expiresAt: null });
    expect(secret.startsWith(apiKey.keyPrefix)).toBe(true);
    expect(isApiKey(secret)).toBe(true);
    expect((await withKey(secret).songs.get('song-ar')).id.value).toBe('song-ar');
    // Never again: neither its read nor the list carries it.
    const again = await maqam.developer.keys.get(apiKey.id);
    expect(again).toMatchObject({ id: apiKey.id, keyPrefix: apiKey.keyPrefix, createdAt: apiKey.createdAt, status: 'API_KEY_STATUS_ACTIVE' });
    expect(JSON.stringify(again)).not.toContain(secret.slice(apiKey.keyPrefix.length));
    const listed: ApiKey[] = [];
    for await (const key of maqam.developer.keys.list()) listed.push(key);
    expect(listed.map((key) => key.id)).toContain(apiKey.id);
    expect(JSON.stringify(listed)).not.toContain(secret.slice(apiKey.keyPrefix.length));
    // A Date is sent as RFC 3339.
    const expiresAt = new Date(Date.now() + 86_400_000);
    expect((await maqam.developer.keys.create({ name: 'short', expiresAt })).apiKey.expiresAt).toBe(expiresAt.toISOString());
  });

  it('lists the developer\'s keys one page at a time and as an iterator, oldest first', async () => {
    const maqam = await signedIn();
    const made: string[] = [];
    for (let i = 0; i < 5; i++) made.push((await maqam.developer.keys.create({ name: `page ${i}` })).apiKey.id);
    const first = await maqam.developer.keys.listPage({ pageSize: 2 });
    expect(first.items).toHaveLength(2);
    expect(first.nextPageToken).not.toBe('');
    const second = await maqam.developer.keys.listPage({ pageSize: 2, pageToken: first.nextPageToken });
    expect(second.items.map((key) => key.id)).not.toContain(first.items[0]!.id);
    const every: string[] = [];
    for await (const key of maqam.developer.keys.list({ pageSize: 2 })) every.push(key.id);
    expect(every.slice(-5)).toEqual(made);
    expect(new Set(every).size).toBe(every.length);
    // From a page on.
    const rest: string[] = [];
    for await (const key of maqam.developer.keys.list({ pageSize: 2, pageToken: first.nextPageToken })) rest.push(key.id);
    expect(rest).toEqual(every.slice(2));
  });

  it('renames a key and changes its limit, refusing one above the server\'s', async () => {
    const maqam = await signedIn();
    const { apiKey } = await maqam.developer.keys.create({ name: 'before' });
    expect(await maqam.developer.keys.update(apiKey.id, { name: 'after' })).toMatchObject({ name: 'after', rateLimitPerMinute: 1000 });
    expect(await maqam.developer.keys.update(apiKey.id, { rateLimitPerMinute: 5 })).toMatchObject({ name: 'after', rateLimitPerMinute: 5 });
    expect(await maqam.developer.keys.get(apiKey.id)).toMatchObject({ name: 'after', rateLimitPerMinute: 5 });
    const tooHigh = await maqam.developer.keys.update(apiKey.id, { rateLimitPerMinute: 1001 }).catch((error) => error);
    expect(tooHigh).toBeInstanceOf(InvalidRequestError);
    expect(tooHigh.violations[0].field).toBe('rateLimitPerMinute');
    await expect(maqam.developer.keys.update(apiKey.id, {})).rejects.toThrow(TypeError);
    await expect(maqam.developer.keys.get('zzzzzzzzzzzz')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('rotates with a grace: both secrets work, the old one answered with Deprecation and Sunset; a rotated key is not rotated again', async () => {
    const maqam = await signedIn();
    const { apiKey, secret: old } = await maqam.developer.keys.create({ name: 'rolling', scopes: ['catalog', 'video'], rateLimitPerMinute: 20 });
    const rotatedAt = Date.now();
    const fresh = await maqam.developer.keys.rotate(apiKey.id, { graceSeconds: 600 });
    expect(fresh.secret).not.toBe(old);
    expect(isApiKey(fresh.secret)).toBe(true);
    expect(fresh.apiKey).toMatchObject({ name: 'rolling', scopes: ['catalog', 'video'], rateLimitPerMinute: 20, status: 'API_KEY_STATUS_ACTIVE' });
    const rotating = await maqam.developer.keys.get(apiKey.id);
    expect(rotating.status).toBe('API_KEY_STATUS_ROTATING');
    expect(Date.parse(rotating.expiresAt!) - rotatedAt).toBeGreaterThanOrEqual(599_000);

    // The SDK hands out bodies; the grace's headers are seen through the client's own fetch.
    const oldCalls = recording();
    expect((await withKey(old, oldCalls.fetchFn).songs.get('song-ar')).id.value).toBe('song-ar');
    expect(oldCalls.answers[0]!.get('deprecation')).toMatch(/^@\d+$/);
    expect(Date.parse(oldCalls.answers[0]!.get('sunset')!)).toBe(Math.floor(Date.parse(rotating.expiresAt!) / 1000) * 1000);
    const newCalls = recording();
    await withKey(fresh.secret, newCalls.fetchFn).songs.get('song-ar');
    expect([newCalls.answers[0]!.get('deprecation'), newCalls.answers[0]!.get('sunset')]).toEqual([null, null]);

    await expect(maqam.developer.keys.rotate(apiKey.id, { graceSeconds: 60 })).rejects.toBeInstanceOf(ConflictError);
    // No grace: the old secret stops at once.
    const { apiKey: second, secret: secondOld } = await maqam.developer.keys.create({ name: 'cut over' });
    const { secret: secondNew } = await maqam.developer.keys.rotate(second.id, { graceSeconds: 0 });
    await expect(withKey(secondOld).songs.get('song-ar')).rejects.toBeInstanceOf(AuthenticationError);
    await withKey(secondNew).songs.get('song-ar');
    await expect(maqam.developer.keys.rotate(second.id, { graceSeconds: 1.5 })).rejects.toThrow(TypeError);
    await expect(maqam.developer.keys.rotate(second.id, { graceSeconds: -1 })).rejects.toBeInstanceOf(InvalidRequestError);
  });

  it('revokes a key, refused on its next request; revoking it again is a ConflictError', async () => {
    const maqam = await signedIn();
    const { apiKey, secret } = await maqam.developer.keys.create({ name: 'short-lived' });
    await withKey(secret).songs.get('song-ar');
    expect((await maqam.developer.keys.revoke(apiKey.id)).status).toBe('API_KEY_STATUS_REVOKED');
    await expect(withKey(secret).songs.get('song-ar')).rejects.toBeInstanceOf(AuthenticationError);
    const again = await maqam.developer.keys.revoke(apiKey.id).catch((error) => error);
    expect(again).toBeInstanceOf(ConflictError);
    expect([again.status, again.code]).toEqual([409, 'ERROR_CODE_CONFLICT']);
  });

  it('sends makes, rotations and revocations once, with no Idempotency-Key (the server keeps none for them)', async () => {
    const calls = recording();
    let failNext = false;
    const maqam = await signedIn(async (input, init) => {
      if (failNext) {
        failNext = false;
        calls.sent.push({ method: init?.method ?? 'GET', url: input, headers: { ...(init?.headers as Record<string, string>) } });
        throw new TypeError('fetch failed');
      }
      return calls.fetchFn(input, init);
    });
    const { apiKey } = await maqam.developer.keys.create({ name: 'once' });
    const before = calls.sent.length;
    failNext = true;
    await expect(maqam.developer.keys.create({ name: 'lost' })).rejects.toBeInstanceOf(NetworkError);
    expect(calls.sent.length - before).toBe(1);
    failNext = true;
    await expect(maqam.developer.keys.rotate(apiKey.id, { graceSeconds: 60 })).rejects.toBeInstanceOf(NetworkError);
    await maqam.developer.keys.revoke(apiKey.id);
    const writes = calls.sent.filter((call) => call.method === 'POST' && call.url.includes('/v1/developer/keys'));
    expect(writes.length).toBeGreaterThanOrEqual(4);
    for (const write of writes) expect(Object.keys(write.headers)).not.toContain('idempotency-key');
    // A rename may be repeated: a network failure is retried.
    const { apiKey: renamed } = await maqam.developer.keys.create({ name: 'x' });
    failNext = true;
    expect((await maqam.developer.keys.update(renamed.id, { name: 'y' })).name).toBe('y');
  });

  it('counts a key\'s calls per day and operation, shown at once and the same once the server has written them', async () => {
    const maqam = await signedIn();
    const { apiKey, secret } = await maqam.developer.keys.create({ name: 'counted', rateLimitPerMinute: 3 });
    const client = withKey(secret);
    for (let i = 0; i < 2; i++) await client.songs.get('song-ar');
    await expect(client.songs.get('nope')).rejects.toBeInstanceOf(NotFoundError);
    await expect(client.songs.get('song-ar')).rejects.toMatchObject({ status: 429 });
    const today = new Date().toISOString().slice(0, 10);
    const counted = [{ date: today, operation: 'GetSong', calls: 4, clientErrors: 2, rateLimited: 1 }];
    expect((await maqam.developer.keys.usage(apiKey.id)).usage).toEqual(counted);
    await server.app.keyUsage.flush();
    const { from, to, usage } = await maqam.developer.keys.usage(apiKey.id, { from: new Date(Date.now() - 86_400_000), to: today });
    expect([from, to]).toEqual([new Date(Date.now() - 86_400_000).toISOString().slice(0, 10), today]);
    expect(usage).toEqual(counted);
    expect((await maqam.developer.keys.usage(apiKey.id)).usage).toEqual(usage);
    await expect(maqam.developer.keys.usage(apiKey.id, { from: '1 March' })).rejects.toThrow(TypeError);
    await expect(maqam.developer.keys.usage(apiKey.id, { from: '2026-02-30' })).rejects.toBeInstanceOf(InvalidRequestError);
  });

  it('reports a leaked key without a credential: a real one is revoked, anything else answered the same', async () => {
    const maqam = await signedIn();
    const { apiKey, secret } = await maqam.developer.keys.create({ name: 'leaky' });
    await withKey(secret).songs.get('song-ar');
    const anyone = recording();
    const stranger = new MaqamClient({ baseUrl, fetch: anyone.fetchFn });
    await expect(stranger.developer.keys.reportLeaked('hello')).resolves.toBeUndefined();
    await expect(stranger.developer.keys.reportLeaked(`${secret.slice(0, -1)}${secret.endsWith('a') ? 'b' : 'a'}`)).resolves.toBeUndefined();
    await withKey(secret).songs.get('song-ar');
    await expect(stranger.developer.keys.reportLeaked(secret)).resolves.toBeUndefined();
    await expect(withKey(secret).songs.get('song-ar')).rejects.toBeInstanceOf(AuthenticationError);
    expect((await maqam.developer.keys.get(apiKey.id)).status).toBe('API_KEY_STATUS_REVOKED');
    // A signed-in client and a client with a key send the report without their credential.
    const signedInCalls = recording();
    const developer = await signedIn(signedInCalls.fetchFn);
    await developer.developer.keys.reportLeaked(secret);
    const { secret: other } = await maqam.developer.keys.create({ name: 'reporter' });
    const keyCalls = recording();
    await withKey(other, keyCalls.fetchFn).developer.keys.reportLeaked(secret);
    for (const sent of [...anyone.sent, signedInCalls.sent.at(-1)!, ...keyCalls.sent]) {
      expect(sent.url).toBe(`${baseUrl}/v1/developer/keys:reportLeaked`);
      expect(Object.keys(sent.headers)).not.toContain('authorization');
      expect(Object.keys(sent.headers)).not.toContain('x-api-key');
    }
    await withKey(other).songs.get('song-ar');
  });

  it('tells a key in the published format with a right checksum, as the server makes and reads them', () => {
    for (let i = 0; i < 200; i++) {
      const key = formatKey(randomBytes(9).toString('hex').slice(0, 12).replace(/[^a-z0-9]/g, '0'), randomBytes(32).toString('base64url').slice(0, 43));
      expect([isApiKey(key), parseKey(key) !== null]).toEqual([true, true]);
      const at = 3 + (i % (key.length - 3));
      const typo = key.slice(0, at) + (key[at] === 'a' ? 'b' : 'a') + key.slice(at + 1);
      expect([isApiKey(typo), parseKey(typo)]).toEqual([false, null]);
    }
    expect(isApiKey(formatKey('abcdefghijkl', 'A'.repeat(43)).slice(0, -6))).toBe(false); // before the checksum
    expect([isApiKey(''), isApiKey(undefined), isApiKey('mk_x')]).toEqual([false, false, false]);
  });
});
