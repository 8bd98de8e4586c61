import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CompiledQuery } from 'kysely';
import { createApiKeysRepo, createApiKeysService, createClientsService, createUsersService } from '@maqam/server';
import { authorizeUrl, pkce, REDIRECT } from '../oauth/oauth-helpers.ts';
import { dialects } from '../dialects.ts';
import { startTestServer, type TestServer } from '../harness.ts';
import { developer, withKey } from './developer-helpers.ts';

const KEY_FORMAT = /^mk_[a-z0-9]{12}_[A-Za-z0-9_-]{43}[0-9A-Za-z]{6}$/;

/** Contract section 16: every DeveloperService operation, on each dialect. */
describe.each(dialects)('DeveloperService on $name', (dialect) => {
  let server: TestServer;
  let now = Date.parse('2026-03-01T10:00:00Z');
  beforeAll(async () => {
    server = await startTestServer(dialect, { MAQAM_RATE_LIMIT: '50' }, { clock: () => now });
  });
  afterAll(async () => server?.close());

  it('creates a key shown once, in the checksummed format, that reads the catalog at once', async () => {
    const dev = await developer(server);
    const res = await dev.call('POST', '/v1/developer/keys', { name: 'my app' });
    expect(res.statusCode, res.body).toBe(201);
    const { apiKey, secret } = res.json();
    expect(secret).toMatch(KEY_FORMAT);
    expect(secret.startsWith(apiKey.keyPrefix)).toBe(true);
    expect(apiKey).toEqual({
      id: expect.any(String), name: 'my app', keyPrefix: `mk_${apiKey.id}_`, status: 'API_KEY_STATUS_ACTIVE', scopes: ['catalog', 'video', 'playlists'],
      rateLimitPerMinute: 50, createdAt: new Date(now).toISOString(), lastUsedAt: null, expiresAt: null,
    });
    expect(res.headers['cache-control']).toBe('no-store');
    expect((await withKey(server.app, secret)).statusCode).toBe(200);
    // Never shown again.
    const got = await dev.call('GET', `/v1/developer/keys/${apiKey.id}`);
    expect(got.statusCode).toBe(200);
    expect(got.body).not.toContain(secret.slice(16));
  });

  it('lists a developer\'s own keys in pages, gets, renames and limits them', async () => {
    const dev = await developer(server);
    const other = await developer(server);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      now += 1000;
      ids.push((await dev.call('POST', '/v1/developer/keys', { name: `k${i}`, scopes: ['catalog'], rateLimitPerMinute: 10 })).json().apiKey.id);
    }
    await other.call('POST', '/v1/developer/keys', { name: 'theirs' });
    const seen: string[] = [];
    let token = '';
    do {
      const page = await dev.call('GET', `/v1/developer/keys?page_size=2${token ? `&page_token=${encodeURIComponent(token)}` : ''}`);
      expect(page.statusCode, page.body).toBe(200);
      seen.push(...page.json().apiKeys.map((k: { id: string }) => k.id));
      token = page.json().nextPageToken;
    } while (token);
    expect(seen).toEqual(ids);
    // Another developer's page token is refused: tokens are bound to their developer.
    const first = (await dev.call('GET', '/v1/developer/keys?page_size=2')).json().nextPageToken;
    expect((await other.call('GET', `/v1/developer/keys?page_token=${encodeURIComponent(first)}`)).statusCode).toBe(400);

    const renamed = await dev.call('PATCH', `/v1/developer/keys/${ids[0]}`, { name: 'renamed', rate_limit_per_minute: 5 });
    expect(renamed.statusCode, renamed.body).toBe(200);
    expect(renamed.json().apiKey).toMatchObject({ name: 'renamed', rateLimitPerMinute: 5, scopes: ['catalog'] });
    expect((await dev.call('GET', `/v1/developer/keys/${ids[0]}`)).json().apiKey.name).toBe('renamed');
    // A key's own limit is at most the server's.
    const tooHigh = await dev.call('PATCH', `/v1/developer/keys/${ids[0]}`, { rateLimitPerMinute: 51 });
    expect([tooHigh.statusCode, tooHigh.json().violations[0].field]).toEqual([400, 'rateLimitPerMinute']);
    expect((await dev.call('POST', '/v1/developer/keys', { name: 'x', rateLimitPerMinute: 51 })).statusCode).toBe(400);
    expect((await dev.call('PATCH', `/v1/developer/keys/${ids[0]}`, {})).statusCode).toBe(400);
  });

  it('answers another developer\'s key with the same 404 as an unknown id, for every operation', async () => {
    const dev = await developer(server);
    const other = await developer(server);
    const id = (await dev.call('POST', '/v1/developer/keys', { name: 'mine' })).json().apiKey.id;
    const tries = (keyId: string) => [
      other.call('GET', `/v1/developer/keys/${keyId}`),
      other.call('PATCH', `/v1/developer/keys/${keyId}`, { name: 'stolen' }),
      other.call('POST', `/v1/developer/keys/${keyId}:rotate`, { graceSeconds: 60 }),
      other.call('POST', `/v1/developer/keys/${keyId}:revoke`),
      other.call('GET', `/v1/developer/keys/${keyId}/usage`),
    ];
    const theirs = await Promise.all(tries(id));
    const unknown = await Promise.all(tries('zzzzzzzzzzzz'));
    for (const [i, res] of theirs.entries()) {
      expect(res.statusCode).toBe(404);
      expect(res.json().message.replace(id, '?')).toBe(unknown[i]!.json().message.replace('zzzzzzzzzzzz', '?'));
    }
    expect((await dev.call('GET', `/v1/developer/keys/${id}`)).json().apiKey).toMatchObject({ name: 'mine', status: 'API_KEY_STATUS_ACTIVE' });
  });

  it('needs the developer role and the developer scope', async () => {
    const plain = await developer(server, { granted: false });
    const refused = await plain.call('GET', '/v1/developer/keys');
    expect([refused.statusCode, refused.json().code]).toEqual([403, 'ERROR_CODE_PERMISSION_DENIED']);
    expect(refused.json().message).toContain('developer role');
    await createUsersService(server.storage.db).setRole(plain.user.username, 'developer', true);
    expect((await plain.call('GET', '/v1/developer/keys')).statusCode).toBe(200);
    await createUsersService(server.storage.db).setRole(plain.user.username, 'developer', false);
    expect((await plain.call('GET', '/v1/developer/keys')).statusCode).toBe(403);
    expect((await server.call({ method: 'GET', url: '/v1/developer/keys' })).statusCode).toBe(403);
    expect((await server.app.inject({ method: 'GET', url: '/v1/developer/keys' })).statusCode).toBe(401);
  });

  it('revokes a key once (409 after), refused on the next request', async () => {
    const dev = await developer(server);
    const { apiKey, secret } = (await dev.call('POST', '/v1/developer/keys', { name: 'short-lived' })).json();
    expect((await withKey(server.app, secret)).statusCode).toBe(200);
    const revoked = await dev.call('POST', `/v1/developer/keys/${apiKey.id}:revoke`);
    expect([revoked.statusCode, revoked.json().apiKey.status]).toEqual([200, 'API_KEY_STATUS_REVOKED']);
    expect((await withKey(server.app, secret)).statusCode).toBe(401);
    const again = await dev.call('POST', `/v1/developer/keys/${apiKey.id}:revoke`);
    expect([again.statusCode, again.json().code]).toEqual([409, 'ERROR_CODE_CONFLICT']);
  });

  it('rotates with a grace: both secrets work until it ends, the old one answered with Deprecation and Sunset, then refused', async () => {
    const dev = await developer(server);
    const { apiKey, secret: old } = (await dev.call('POST', '/v1/developer/keys', { name: 'rolling', scopes: ['catalog', 'video'], rateLimitPerMinute: 20 })).json();
    const rotatedAt = now;
    const rotated = await dev.call('POST', `/v1/developer/keys/${apiKey.id}:rotate`, { graceSeconds: 600 });
    expect(rotated.statusCode, rotated.body).toBe(200);
    const fresh = rotated.json();
    expect(fresh.secret).toMatch(KEY_FORMAT);
    expect(fresh.apiKey).toMatchObject({ name: 'rolling', scopes: ['catalog', 'video'], rateLimitPerMinute: 20, status: 'API_KEY_STATUS_ACTIVE' });
    expect((await dev.call('GET', `/v1/developer/keys/${apiKey.id}`)).json().apiKey).toMatchObject({
      status: 'API_KEY_STATUS_ROTATING', expiresAt: new Date(rotatedAt + 600_000).toISOString(),
    });
    const withOld = await withKey(server.app, old);
    expect(withOld.statusCode).toBe(200);
    expect(withOld.headers.deprecation).toBe(`@${Math.floor(rotatedAt / 1000)}`);
    expect(withOld.headers.sunset).toBe(new Date(rotatedAt + 600_000).toUTCString());
    const withNew = await withKey(server.app, fresh.secret);
    expect([withNew.statusCode, withNew.headers.deprecation, withNew.headers.sunset]).toEqual([200, undefined, undefined]);
    // A rotated key is not rotated again.
    expect((await dev.call('POST', `/v1/developer/keys/${apiKey.id}:rotate`, { graceSeconds: 60 })).statusCode).toBe(409);
    now = rotatedAt + 600_000;
    expect((await withKey(server.app, old)).statusCode).toBe(401);
    expect((await withKey(server.app, fresh.secret)).statusCode).toBe(200);
    expect((await dev.call('GET', `/v1/developer/keys/${apiKey.id}`)).json().apiKey.status).toBe('API_KEY_STATUS_EXPIRED');
    expect((await dev.call('POST', `/v1/developer/keys/${apiKey.id}:rotate`, { graceSeconds: 60 })).statusCode).toBe(409);
    expect((await dev.call('POST', `/v1/developer/keys/${apiKey.id}:rotate`, { graceSeconds: -1 })).statusCode).toBe(400);
  });

  it('rotates all or nothing: when the successor cannot be written, the old key is left as it was, and rotates after', async () => {
    const dev = await developer(server);
    const { apiKey, secret } = (await dev.call('POST', '/v1/developer/keys', { name: 'refused-successor' })).json();
    // The database refuses the successor's row (on PostgreSQL as a full disk does, which is a 503).
    const refusal = dialect.name === 'postgres'
      ? [
        `create function refuse_successor() returns trigger language plpgsql as $$ begin raise exception 'refused' using errcode = '53100'; end $$`,
        `create trigger refuse_successor before insert on api_keys for each row when (new.name = 'refused-successor') execute function refuse_successor()`,
      ]
      : [`create trigger refuse_successor before insert on api_keys when new.name = 'refused-successor' begin select raise(abort, 'refused'); end`];
    for (const statement of refusal) await server.storage.db.executeQuery(CompiledQuery.raw(statement));
    try {
      const refused = await dev.call('POST', `/v1/developer/keys/${apiKey.id}:rotate`, { graceSeconds: 600 });
      expect(refused.statusCode).toBeGreaterThanOrEqual(500);
    } finally {
      await server.storage.db.executeQuery(CompiledQuery.raw('drop trigger refuse_successor' + (dialect.name === 'postgres' ? ' on api_keys' : '')));
    }
    // Not marked rotated: still active, without an end, and rotatable.
    expect((await dev.call('GET', `/v1/developer/keys/${apiKey.id}`)).json().apiKey).toMatchObject({ status: 'API_KEY_STATUS_ACTIVE', expiresAt: null });
    expect((await withKey(server.app, secret)).headers.deprecation).toBeUndefined();
    const rotated = await dev.call('POST', `/v1/developer/keys/${apiKey.id}:rotate`, { graceSeconds: 600 });
    expect(rotated.statusCode, rotated.body).toBe(200);
    expect((await withKey(server.app, rotated.json().secret)).statusCode).toBe(200);
  });

  it('refuses a key outside its scopes with a 403 naming the scope', async () => {
    const dev = await developer(server);
    const { secret } = (await dev.call('POST', '/v1/developer/keys', { name: 'music only', scopes: ['catalog'] })).json();
    expect((await withKey(server.app, secret)).statusCode).toBe(200);
    const video = await withKey(server.app, secret, '/v1/video/movies/nope');
    const { secret: videoOnly } = (await dev.call('POST', '/v1/developer/keys', { name: 'video only', scopes: ['video'] })).json();
    const music = await withKey(server.app, videoOnly);
    expect([music.statusCode, music.json().message]).toEqual([403, 'This API key lacks the "catalog" scope; its developer can make a key that has it.']);
    expect(video.statusCode).toBe(403);
    expect(video.json().message).toContain('"video"');
    const playlist = await withKey(server.app, secret, '/v1/playlists/nope');
    expect([playlist.statusCode, playlist.json().message]).toEqual([403, 'This API key lacks the "playlists" scope; its developer can make a key that has it.']);
    const search = await withKey(server.app, secret, '/v1/search?q=x');
    expect(search.statusCode).not.toBe(403);
  });

  it('holds a key to its own limit, and says which limit the 429 is', async () => {
    const dev = await developer(server);
    const { secret } = (await dev.call('POST', '/v1/developer/keys', { name: 'slow', rateLimitPerMinute: 3 })).json();
    for (let i = 0; i < 3; i++) {
      const res = await withKey(server.app, secret);
      expect([res.statusCode, res.headers['x-ratelimit-limit']]).toEqual([200, '3']);
    }
    const limited = await withKey(server.app, secret);
    expect(limited.statusCode).toBe(429);
    expect(limited.json().message).toMatch(/^This API key has spent its own limit of 3 calls a minute; retry after \d+ s\.$/);
    expect(limited.headers['retry-after']).toBeDefined();
    const { secret: fast } = (await dev.call('POST', '/v1/developer/keys', { name: 'fast' })).json();
    for (let i = 0; i < 50; i++) expect((await withKey(server.app, fast)).statusCode).toBe(200);
    const server429 = await withKey(server.app, fast);
    expect([server429.statusCode, server429.headers['x-ratelimit-limit']]).toEqual([429, '50']);
    expect(server429.json().message).toContain('server\'s limit of 50');
    now += 60_000;
  });

  it('counts a key\'s answers per day and operation, written by a flush, never by a request', async () => {
    const dev = await developer(server);
    const { apiKey, secret } = (await dev.call('POST', '/v1/developer/keys', { name: 'counted', scopes: ['catalog'], rateLimitPerMinute: 4 })).json();
    for (let i = 0; i < 3; i++) await withKey(server.app, secret);
    await withKey(server.app, secret, '/v1/music/songs/nope');
    await withKey(server.app, secret); // 429
    await withKey(server.app, secret, '/v1/video/movies/nope'); // 429 counted before the scope? no: the scope refuses first
    const day = new Date(now).toISOString().slice(0, 10);
    const expected = {
      from: '2026-01-01',
      to: '2026-12-31',
      usage: [
        { date: day, operation: 'GetMovie', calls: 1, clientErrors: 1, rateLimited: 0 },
        { date: day, operation: 'GetSong', calls: 5, clientErrors: 2, rateLimited: 1 },
      ],
    };
    // Shown at once from the node's memory, then the same once written; a day outside the range shows none of it.
    const url = `/v1/developer/keys/${apiKey.id}/usage?from=2026-01-01&to=2026-12-31`;
    expect((await dev.call('GET', url)).json()).toEqual(expected);
    await server.app.keyUsage.flush();
    expect(server.app.keyUsage.pending()).toBe(0);
    const usage = await dev.call('GET', url);
    expect(usage.statusCode, usage.body).toBe(200);
    expect(usage.json()).toEqual(expected);
    expect((await dev.call('GET', `/v1/developer/keys/${apiKey.id}/usage?from=2026-01-01&to=2026-01-31`)).json().usage).toEqual([]);
    expect((await dev.call('GET', `/v1/developer/keys/${apiKey.id}/usage?from=2026-02-30`)).statusCode).toBe(400);
    expect((await dev.call('GET', `/v1/developer/keys/${apiKey.id}/usage?from=2026-03-02&to=2026-03-01`)).statusCode).toBe(400);
    expect((await dev.call('GET', `/v1/developer/keys/${apiKey.id}/usage?from=2020-01-01&to=2026-03-01`)).statusCode).toBe(400);
    // lastUsedAt, to the minute.
    await expect.poll(async () => (await dev.call('GET', `/v1/developer/keys/${apiKey.id}`)).json().apiKey.lastUsedAt)
      .toBe(new Date(Math.floor(now / 60_000) * 60_000).toISOString());
    now += 60_000;
  });

  it('counts calls either side of midnight (UTC) on their own days, and a clock set back on the earlier day', async () => {
    const midnight = Date.parse(`${new Date(now).toISOString().slice(0, 10)}T00:00:00Z`) + 24 * 3600 * 1000;
    now = midnight - 60_000;
    const dev = await developer(server);
    const { apiKey, secret } = (await dev.call('POST', '/v1/developer/keys', { name: 'midnight' })).json();
    const days = [midnight - 1, midnight, midnight - 1000, midnight + 1000];
    for (const at of days) {
      now = at;
      expect((await withKey(server.app, secret)).statusCode).toBe(200);
    }
    const usage = (await dev.call('GET', `/v1/developer/keys/${apiKey.id}/usage?from=2026-01-01&to=2026-12-31`)).json().usage as { date: string; calls: number }[];
    expect(usage.map((row) => [row.date, row.calls])).toEqual([[new Date(midnight - 1).toISOString().slice(0, 10), 2], [new Date(midnight).toISOString().slice(0, 10), 2]]);
    now = midnight + 60_000;
  });

  it('revokes a reported key if it is real, always answering 202, and limits reports per address', async () => {
    const dev = await developer(server);
    const { apiKey, secret } = (await dev.call('POST', '/v1/developer/keys', { name: 'leaky' })).json();
    const report = (key: string, remoteAddress = '10.1.2.3') => server.app.inject({
      method: 'POST', url: '/v1/developer/keys:reportLeaked', headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ key }), remoteAddress,
    });
    // A wrong secret for a real id, a bad checksum, garbage: 202 and nothing happens.
    const wrongSecret = `${secret.slice(0, 16)}${'A'.repeat(43)}`;
    for (const fake of [wrongSecret, `${secret.slice(0, -1)}${secret.endsWith('a') ? 'b' : 'a'}`, 'hello']) {
      const res = await report(fake);
      expect([res.statusCode, res.body]).toEqual([202, '{}']);
    }
    expect((await withKey(server.app, secret)).statusCode).toBe(200);
    expect((await report(secret)).statusCode).toBe(202);
    expect((await withKey(server.app, secret)).statusCode).toBe(401);
    expect((await dev.call('GET', `/v1/developer/keys/${apiKey.id}`)).json().apiKey.status).toBe('API_KEY_STATUS_REVOKED');
    expect((await report(secret)).statusCode).toBe(202);
    let limited = 0;
    for (let i = 0; i < 12; i++) if ((await report('nothing', '10.9.9.9')).statusCode === 429) limited++;
    expect(limited).toBe(2);
    expect((await report('nothing', '10.9.9.8')).statusCode).toBe(202);
  });

  it('refuses a key with a bad checksum, and keeps taking a key made before the checksum until it is rotated', async () => {
    const { secret } = (await (await developer(server)).call('POST', '/v1/developer/keys', { name: 'typo' })).json();
    const typo = `${secret.slice(0, 20)}${secret[20] === 'x' ? 'y' : 'x'}${secret.slice(21)}`;
    expect((await withKey(server.app, typo)).statusCode).toBe(401);
    // The harness's key is made by the service; an old-format key is its body without the checksum, stored as format 1.
    const keys = createApiKeysService(createApiKeysRepo(server.storage.db), () => now);
    const legacy = await keys.create({ name: 'from before' });
    await server.storage.db.updateTable('api_keys').set({ format: 1 }).where('id', '=', legacy.id).execute();
    const body = legacy.key.slice(0, -6);
    expect((await withKey(server.app, body)).statusCode).toBe(200);
    expect((await withKey(server.app, legacy.key)).statusCode).toBe(401);
    const rotated = await keys.rotate(legacy.id, 0);
    expect((await withKey(server.app, body)).statusCode).toBe(401);
    expect((await withKey(server.app, rotated.key)).statusCode).toBe(200);
    expect((await withKey(server.app, rotated.key.slice(0, -6))).statusCode).toBe(401);
  });

  it('explains the developer scope on the consent page in Arabic and English', async () => {
    const client = await createClientsService(server.storage.db).create({ name: 'Portal', redirectUris: [REDIRECT], scopes: ['developer'] });
    const page = await server.app.inject({
      method: 'GET',
      url: authorizeUrl({ response_type: 'code', client_id: client.clientId, redirect_uri: REDIRECT, scope: 'developer', state: 's', code_challenge: pkce().challenge, code_challenge_method: 'S256' }),
    });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('إدارة مفاتيح API الخاصة بك كمطوّر');
    expect(page.body).toContain('Manage your developer API keys');
  });

  it('is told in the OpenAPI document under DeveloperService', async () => {
    const doc = (await server.app.inject('/v1/openapi.json')).json();
    const ops = Object.entries(doc.paths as Record<string, Record<string, { operationId: string; tags: string[] }>>)
      .flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => [op.operationId, `${method.toUpperCase()} ${path}`, op.tags[0]]))
      .filter(([, , tag]) => tag === 'DeveloperService');
    expect(Object.fromEntries(ops.map(([id, route]) => [id, route]))).toEqual({
      CreateApiKey: 'POST /v1/developer/keys',
      ListApiKeys: 'GET /v1/developer/keys',
      GetApiKey: 'GET /v1/developer/keys/{key_id}',
      UpdateApiKey: 'PATCH /v1/developer/keys/{key_id}',
      RotateApiKey: 'POST /v1/developer/keys/{key_id}:rotate',
      RevokeApiKey: 'POST /v1/developer/keys/{key_id}:revoke',
      GetApiKeyUsage: 'GET /v1/developer/keys/{key_id}/usage',
      ReportLeakedApiKey: 'POST /v1/developer/keys:reportLeaked',
    });
    expect(doc.components.securitySchemes.oauth2.flows.authorizationCode.scopes.developer).toContain('API keys');
  });
});

