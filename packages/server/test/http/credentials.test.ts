import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../dialects.ts';
import { startTestServer, type TestServer } from '../harness.ts';

/** Both catalog operations take the same credentials; every row runs on each. */
const operations = [
  { name: 'BatchGetSongs', method: 'POST' as const, url: '/v1/music/songs:batchGet', payload: { songIdList: [{ value: 'song-ar' }] }, badPayload: { songIdList: [] } },
  { name: 'GetRelatedArtists', method: 'GET' as const, url: '/v1/music/artists/artist-ar/related', payload: undefined, badPayload: undefined },
];

describe.each(dialects.map((d) => [d.name, d] as const))('credentials on %s (contract section 2)', (_name, dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(dialect);
  });
  afterAll(async () => server?.close());

  describe.each(operations)('$name', (op) => {
    const send = (headers: Record<string, string>, options: { badRequest?: boolean; url?: string } = {}) =>
      server.app.inject({
        method: op.method,
        url: options.url ?? (options.badRequest && op.method === 'GET' ? `${op.url}?page_size=0` : op.url),
        headers: { 'accept-language': 'en', ...(op.method === 'POST' ? { 'content-type': 'application/json' } : {}), ...headers },
        ...(op.method === 'POST' ? { payload: JSON.stringify(options.badRequest ? op.badPayload : op.payload) } : {}),
      });

    it('accepts a valid API key', async () => {
      expect((await send({ 'x-api-key': server.apiKey })).statusCode).toBe(200);
    });

    it('answers neither header with 401 and a Bearer realm challenge', async () => {
      const res = await send({});
      expect(res.statusCode).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Bearer realm="maqam"');
      expect(res.json()).toMatchObject({ code: 'ERROR_CODE_UNAUTHENTICATED', message: expect.stringMatching(/x-api-key/) });
    });

    it('answers both headers with 400 naming Authorization and x-api-key', async () => {
      const res = await send({ authorization: 'Bearer abc', 'x-api-key': server.apiKey });
      expect(res.statusCode).toBe(400);
      expect(res.json().code).toBe('ERROR_CODE_INVALID_REQUEST');
      expect(res.json().violations.map((v: { field: string }) => v.field)).toEqual(['Authorization', 'x-api-key']);
    });

    it.each(['Basic dXNlcjpwYXNz', 'Bearer', 'Bearer  ', 'token abc', 'Bearer a b'])('answers Authorization %j with 400 naming Authorization', async (value) => {
      const res = await send({ authorization: value });
      expect(res.statusCode).toBe(400);
      expect(res.json().violations).toEqual([expect.objectContaining({ field: 'Authorization' })]);
    });

    it('answers an unknown bearer token with 401 invalid_token', async () => {
      const res = await send({ authorization: 'Bearer c29tZS11bmtub3duLXRva2Vu' });
      expect(res.statusCode).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Bearer error="invalid_token"');
      expect(res.json().code).toBe('ERROR_CODE_UNAUTHENTICATED');
    });

    it.each([
      ['malformed', 'not-a-key'],
      ['unknown id', 'mk_aaaaaaaaaaaa_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'],
    ])('answers a %s API key with 401', async (_what, key) => {
      const res = await send({ 'x-api-key': key });
      expect(res.statusCode).toBe(401);
      expect(res.json().code).toBe('ERROR_CODE_UNAUTHENTICATED');
    });

    it('answers a known key id with a wrong secret with 401', async () => {
      const forged = `${server.apiKey.slice(0, 16)}${'A'.repeat(43)}`;
      expect((await send({ 'x-api-key': forged })).statusCode).toBe(401);
    });

    it('checks credentials before validating the request', async () => {
      expect((await send({}, { badRequest: true })).statusCode).toBe(401);
      expect((await send({ 'x-api-key': 'wrong' }, { badRequest: true })).statusCode).toBe(401);
      expect((await send({ 'x-api-key': 'wrong', 'accept-language': 'en;q=9' })).statusCode).toBe(401);
      const both = await send({ authorization: 'Bearer abc', 'x-api-key': 'wrong' }, { badRequest: true });
      expect(both.json().violations.map((v: { field: string }) => v.field)).toEqual(['Authorization', 'x-api-key']);
    });
  });

  describe('API key lifecycle', () => {
    const get = (key: string) =>
      server.app.inject({ method: 'GET', url: '/v1/music/artists/artist-ar/related', headers: { 'x-api-key': key } });

    it('stops accepting a key on the next request after it is revoked', async () => {
      const { id, key } = await server.keys.create({ name: 'to-revoke' });
      expect((await get(key)).statusCode).toBe(200);
      await server.keys.revoke(id);
      expect((await get(key)).statusCode).toBe(401);
      await server.keys.revoke(id); // idempotent
    });

    it('refuses an expired key', async () => {
      const { key } = await server.keys.create({ name: 'expired', expiresAt: Date.now() - 1 });
      expect((await get(key)).statusCode).toBe(401);
    });

    it('keeps the old key valid for the grace period of a rotation, then refuses it', async () => {
      const old = await server.keys.create({ name: 'rotating' });
      const renewed = await server.keys.rotate(old.id, 60);
      expect(renewed.name).toBe('rotating');
      expect((await get(renewed.key)).statusCode).toBe(200);
      expect((await get(old.key)).statusCode).toBe(200);
      const again = await server.keys.rotate(renewed.id, 0);
      expect((await get(renewed.key)).statusCode).toBe(401);
      expect((await get(again.key)).statusCode).toBe(200);
    });

    it('lists keys without secrets and with their status', async () => {
      const list = await server.keys.list();
      expect(list.length).toBeGreaterThan(0);
      expect(JSON.stringify(list)).not.toMatch(/mk_/);
      expect(new Set(list.map((k) => k.status))).toEqual(new Set(['active', 'revoked', 'expired']));
    });
  });
});
