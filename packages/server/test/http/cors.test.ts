import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClientsService, openStorage } from '@maqam/server';
import { dialects } from '../dialects.ts';
import { startTestServer, type TestServer } from '../harness.ts';

const APP = 'https://app.example';
const LOOPBACK_APP = 'http://127.0.0.1:5173';
const CONFIGURED = 'https://configured.example';
const UNTRUSTED = 'https://evil.example';
const ALLOW_HEADERS = 'authorization, x-api-key, content-type, accept-language, x-request-id, idempotency-key, if-match, if-none-match';

describe.each(dialects.map((d) => [d.name, d] as const))('CORS on %s (contract section 12)', (_name, dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(dialect, { MAQAM_CORS_ORIGINS: CONFIGURED, MAQAM_PUBLIC_URL: 'https://api.example' });
    await createClientsService(server.storage.db).create({
      name: 'browser app',
      redirectUris: [`${APP}/callback`, `${LOOPBACK_APP}/callback`, 'com.example.app:/callback'],
    });
  });
  afterAll(async () => server?.close());

  const preflight = (url: string, origin: string, method = 'POST') =>
    server.app.inject({ method: 'OPTIONS', url, headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': 'x-api-key, content-type' } });

  it.each([APP, LOOPBACK_APP, CONFIGURED])('answers a preflight from the trusted origin %s', async (origin) => {
    const res = await preflight('/v1/music/songs:batchGet', origin);
    expect(res.statusCode).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe(origin);
    expect(res.headers.vary).toContain('Origin');
    expect(res.headers['access-control-allow-methods']).toBe('POST');
    expect(res.headers['access-control-allow-headers']).toBe(ALLOW_HEADERS);
    expect(res.headers['access-control-max-age']).toBe('600');
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    expect(res.headers['x-request-id']).toMatch(/\S/);
  });

  it('names the methods of the path, on every /v1/ path and /.well-known/ document', async () => {
    expect((await preflight('/v1/music/artists/artist-ar/related', APP, 'GET')).headers['access-control-allow-methods']).toMatch(/^GET(, HEAD)?$/);
    expect((await preflight('/v1/auth/token', APP)).headers['access-control-allow-origin']).toBe(APP);
    expect((await preflight('/v1/auth/token/refresh', APP)).headers['access-control-allow-origin']).toBe(APP);
    const discovery = await preflight('/.well-known/oauth-authorization-server', APP, 'GET');
    expect(discovery.statusCode).toBe(204);
    expect(discovery.headers['access-control-allow-origin']).toBe(APP);
  });

  it('gives an untrusted origin no CORS headers (and a private-use redirect scheme trusts no origin)', async () => {
    for (const origin of [UNTRUSTED, 'null', 'http://app.example']) {
      const res = await preflight('/v1/music/songs:batchGet', origin);
      expect(res.statusCode).toBe(204);
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
      expect(res.headers['access-control-allow-methods']).toBeUndefined();
      const get = await server.call({ method: 'GET', url: '/v1/music/songs/song-ar', headers: { origin } });
      expect(get.statusCode).toBe(200);
      expect(get.headers['access-control-allow-origin']).toBeUndefined();
    }
  });

  it('marks every answer to a trusted origin, errors included, and exposes the headers apps read', async () => {
    const ok = await server.call({ method: 'GET', url: '/v1/music/songs/song-ar', headers: { origin: APP } });
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['access-control-allow-origin']).toBe(APP);
    // Both what the answer varies by: the origin (CORS) and the language.
    expect(String(ok.headers.vary).split(', ').sort()).toEqual(['Accept-Language', 'Origin']);
    expect(String(ok.headers['access-control-expose-headers']).split(', ')).toEqual([
      'x-request-id', 'content-language', 'retry-after', 'www-authenticate', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'idempotent-replayed', 'etag', 'location', 'deprecation', 'sunset',
    ]);
    for (const res of [
      await server.app.inject({ method: 'GET', url: '/v1/music/songs/song-ar', headers: { origin: APP } }), // 401
      await server.call({ method: 'GET', url: '/v1/music/songs/nope', headers: { origin: APP } }), // 404
      await server.call({ method: 'POST', url: '/v1/music/songs:batchGet', headers: { origin: APP, 'content-type': 'application/json' }, payload: '{' }), // 400
    ]) {
      expect(res.statusCode).toBeGreaterThanOrEqual(400);
      expect(res.headers['access-control-allow-origin']).toBe(APP);
      expect(res.headers['access-control-expose-headers']).toContain('x-request-id');
    }
  });

  it('never answers CORS on the sign-in page', async () => {
    const res = await preflight('/v1/auth/authorize', APP);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    const page = await server.app.inject({ method: 'GET', url: '/v1/auth/authorize', headers: { origin: APP } });
    expect(page.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('lets every origin read signed stream URLs, with Range', async () => {
    const res = await server.app.inject({ method: 'OPTIONS', url: '/v1/streaming/hls/token/index.m3u8', headers: { origin: UNTRUSTED, 'access-control-request-method': 'GET', 'access-control-request-headers': 'range' } });
    expect(res.statusCode).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['access-control-allow-headers']).toBe('range');
    const refused = await server.app.inject({ method: 'GET', url: '/v1/streaming/hls/forged/seg000.m4s', headers: { origin: UNTRUSTED } });
    expect(refused.statusCode).toBeGreaterThanOrEqual(400);
    expect(refused.headers['access-control-allow-origin']).toBe('*');
    expect(refused.headers['access-control-expose-headers']).toContain('content-range');
    // Video streams too (the key and segments of a player on another origin), but not AcquireVideoStream itself.
    const video = await server.app.inject({ method: 'GET', url: '/v1/streaming/video/forged/v720/seg00000.ts', headers: { origin: UNTRUSTED } });
    expect(video.headers['access-control-allow-origin']).toBe('*');
    const acquire = await server.app.inject({ method: 'OPTIONS', url: '/v1/streaming/video', headers: { origin: UNTRUSTED, 'access-control-request-method': 'POST' } });
    expect(acquire.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('needs nothing for the server\'s own origin', async () => {
    const res = await server.call({ method: 'GET', url: '/v1/music/songs/song-ar', headers: { origin: 'https://api.example' } });
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });

  // Regression: the clients' origins were kept five seconds, so an app registered by the CLI met CORS refusals
  // for up to five seconds; now they are kept only while the database has certainly not changed.
  it('trusts the origin of a client registered by another process on the very next request', async () => {
    const newcomer = 'https://newcomer.example';
    expect((await preflight('/v1/music/songs:batchGet', newcomer)).headers['access-control-allow-origin']).toBeUndefined();
    const cli = openStorage(server.databaseUrl);
    try {
      await createClientsService(cli.db).create({ name: 'newcomer', redirectUris: [`${newcomer}/callback`] });
    } finally {
      await cli.close();
    }
    expect((await preflight('/v1/music/songs:batchGet', newcomer)).headers['access-control-allow-origin']).toBe(newcomer);
  });
});

describe('MAQAM_CORS_ORIGINS=*', () => {
  it('trusts every origin', async () => {
    const server = await startTestServer(dialects[0]!, { MAQAM_CORS_ORIGINS: '*' });
    try {
      const res = await server.app.inject({ method: 'OPTIONS', url: '/v1/search', headers: { origin: 'https://anyone.example', 'access-control-request-method': 'GET' } });
      expect(res.headers['access-control-allow-origin']).toBe('https://anyone.example');
    } finally {
      await server.close();
    }
  });
});
