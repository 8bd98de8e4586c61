import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '@maqam/contract';
import { ERRORS, STATUS_OF_CODE, VIOLATIONS } from '@maqam/server';
import { dialects } from '../dialects.ts';
import { startTestServer, type TestServer } from '../harness.ts';

describe('operations endpoints and the error model', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(dialects[0]!);
  });
  afterAll(async () => server?.close());

  it('says counts in the plural form of each language (Arabic has six)', async () => {
    const describe = async (ids: number, locale: string) => {
      const res = await server.call({
        method: 'POST', url: '/v1/music/songs:batchGet', headers: { 'content-type': 'application/json', 'accept-language': locale },
        payload: { songIdList: Array.from({ length: ids }, (_, i) => ({ value: `s${i}` })) },
      });
      return res.json().violations[0].description as string;
    };
    expect(await describe(0, 'ar')).toBe('يجب أن يحتوي songIdList على عنصر واحد على الأقل.');
    expect(await describe(0, 'en')).toBe('songIdList must have at least 1 item.');
    expect(await describe(101, 'ar')).toBe('يجب ألا يحتوي songIdList على أكثر من 100 عنصر.');
    expect(await describe(101, 'en')).toBe('songIdList must have at most 100 items.');
  });

  it('answers /healthz and /readyz', async () => {
    expect((await server.app.inject('/healthz')).json()).toEqual({ status: 'ok' });
    expect((await server.app.inject('/readyz')).json()).toEqual({ status: 'ready' });
  });

  it('exposes Prometheus metrics labelled by route pattern, counting every answer in its own series', async () => {
    const related = (id: string) => server.call({ method: 'GET', url: `/v1/music/artists/${id}/related` });
    await related('artist-ar');
    await related('artist-en');
    await related('artist-nobody');
    await server.call({ method: 'GET', url: '/v1/music/artists/artist-ar/related', headers: { 'x-api-key': 'mk_wrong_key' } });
    const res = await server.app.inject('/metrics');
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    const value = (series: string) => Number(new RegExp(`^${series.replace(/[{}()[\].*+?^$|\\]/g, '\\$&')} (\\S+)$`, 'm').exec(res.body)?.[1]);
    const route = '/v1/music/artists/:artist_id/related';
    expect(value(`maqam_http_requests_total{method="GET",route="${route}",status="200"}`)).toBe(2);
    expect(value(`maqam_http_requests_total{method="GET",route="${route}",status="404"}`)).toBe(1);
    expect(value(`maqam_http_requests_total{method="GET",route="${route}",status="401"}`)).toBe(1);
    expect(value(`maqam_http_request_duration_seconds_count{route="${route}"}`)).toBe(4);
    expect(res.body).toContain('process_cpu_user_seconds_total');
  });

  it('publishes an OpenAPI 3.1 document generated from the validating schemas', async () => {
    const doc = (await server.app.inject('/v1/openapi.json')).json();
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('1.0.0');
    const batch = doc.paths['/v1/music/songs:batchGet'].post;
    expect(batch.operationId).toBe('BatchGetSongs');
    expect(batch.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/BatchGetSongsRequest' });
    expect(doc.components.schemas.BatchGetSongsRequest).toMatchObject({
      properties: { songIdList: { minItems: 1, maxItems: 100 } },
    });
    expect(Object.keys(batch.responses)).toEqual(expect.arrayContaining(['200', '400']));
    const related = doc.paths['/v1/music/artists/{artist_id}/related'].get;
    expect(related.parameters.map((p: { name: string }) => p.name)).toEqual(
      expect.arrayContaining(['artist_id', 'page_size', 'page_token', 'pageSize', 'pageToken', 'limit']),
    );
    expect(doc.components.securitySchemes.apiKeyAuth).toMatchObject({ type: 'apiKey', in: 'header', name: 'x-api-key' });
    // OAuth 2.0 declared as such, so /docs and generators know the authorization-code flow and its scopes.
    expect(doc.components.securitySchemes.oauth2).toMatchObject({
      type: 'oauth2',
      flows: { authorizationCode: { authorizationUrl: expect.stringMatching(/\/v1\/auth\/authorize$/), tokenUrl: expect.stringMatching(/\/v1\/auth\/token$/), scopes: { read: expect.any(String), stream: expect.any(String) } } },
    });
    expect(batch.security).toEqual([{ oauth2: ['read'] }, { apiKeyAuth: [] }]);
    expect(doc.paths['/v1/streaming/music'].post.security).toEqual([{ oauth2: ['stream'] }]);
    for (const path of ['/v1/auth/token', '/v1/auth/token/refresh', '/v1/auth/token/revoke']) expect(doc.paths[path].post.security).toEqual([]);
    expect(JSON.stringify(doc)).not.toContain('/healthz');
    // Contract section 10: every catalog operation under its operationId and the service's tag.
    const catalog = Object.entries(doc.paths as Record<string, Record<string, { operationId: string; tags: string[] }>>)
      .flatMap(([path, methods]) => Object.values(methods).map((op) => [op.operationId, path, op.tags] as const))
      .filter(([, , tags]) => tags?.includes('MusicCatalogService'));
    expect(Object.fromEntries(catalog.map(([id, path]) => [id, path]))).toEqual({
      BatchGetSongs: '/v1/music/songs:batchGet',
      GetSong: '/v1/music/songs/{song_id}',
      GetLyrics: '/v1/music/songs/{song_id}/lyrics',
      GetAlbum: '/v1/music/albums/{album_id}',
      BatchGetAlbums: '/v1/music/albums:batchGet',
      GetAlbumTracks: '/v1/music/albums/{album_id}/tracks',
      GetArtist: '/v1/music/artists/{artist_id}',
      BatchGetArtists: '/v1/music/artists:batchGet',
      GetArtistDiscography: '/v1/music/artists/{artist_id}/albums',
      GetArtistTopTracks: '/v1/music/artists/{artist_id}/top-tracks',
      GetRelatedArtists: '/v1/music/artists/{artist_id}/related',
    });
    expect(doc.paths['/v1/music/artists/{artist_id}/albums'].get.parameters.find((p: { name: string }) => p.name === 'album_type').schema)
      .toEqual({ $ref: '#/components/schemas/AlbumType' });
    expect(doc.components.schemas.AlbumType.enum)
      .toEqual(['ALBUM_TYPE_ALBUM', 'ALBUM_TYPE_SINGLE', 'ALBUM_TYPE_EP', 'ALBUM_TYPE_COMPILATION']);
    expect(JSON.stringify(doc)).not.toContain('/artwork/');
  });

  it('serves an interactive reference at /docs', async () => {
    const res = await server.app.inject('/docs/');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
  });

  it('answers unknown routes with a JSON 404 and wrong methods with a 405 and Allow', async () => {
    const missing = await server.app.inject({ url: '/v1/nothing', headers: { 'accept-language': 'en' } });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ code: 'ERROR_CODE_NOT_FOUND', message: 'No operation at GET /v1/nothing.' });
    const wrong = await server.app.inject({ method: 'DELETE', url: '/v1/music/songs:batchGet' });
    expect(wrong.statusCode).toBe(405);
    expect(wrong.headers.allow).toBe('POST');
    expect(wrong.json().code).toBe('ERROR_CODE_INVALID_REQUEST');
  });

  it('echoes a well-formed x-request-id and replaces a malformed one', async () => {
    const echoed = await server.app.inject({ url: '/v1/nothing', headers: { 'x-request-id': 'trace-123.abc_DEF' } });
    expect(echoed.headers['x-request-id']).toBe('trace-123.abc_DEF');
    expect(echoed.json().requestId).toBe('trace-123.abc_DEF');
    const replaced = await server.app.inject({ url: '/healthz', headers: { 'x-request-id': 'bad id with spaces' } });
    expect(replaced.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const tooLong = await server.app.inject({ url: '/healthz', headers: { 'x-request-id': 'a'.repeat(65) } });
    expect(tooLong.headers['x-request-id']).not.toBe('a'.repeat(65));
  });
});

describe('the error catalog', () => {
  // Contract section 1: the status of each code, and the extra statuses of INVALID_REQUEST; section 14 adds 412 (a failed
  // If-Match) to CONFLICT and 428 (a replace without If-Match) to INVALID_REQUEST.
  const CONTRACT_STATUS: Record<string, number[]> = {
    ERROR_CODE_INVALID_REQUEST: [400, 413, 405, 414, 416, 431, 428],
    ERROR_CODE_UNAUTHENTICATED: [401],
    ERROR_CODE_PERMISSION_DENIED: [403],
    ERROR_CODE_NOT_FOUND: [404],
    ERROR_CODE_CONFLICT: [409, 412],
    ERROR_CODE_RATE_LIMITED: [429],
    ERROR_CODE_INTERNAL: [500],
    ERROR_CODE_UNSPECIFIED: [500],
    ERROR_CODE_UNAVAILABLE: [503],
  };

  it('maps every code to the contract status', () => {
    for (const code of ERROR_CODES) expect(CONTRACT_STATUS[code]).toContain(STATUS_OF_CODE[code]);
  });

  it.each(Object.entries(ERRORS))('%s has a contract status and texts in Arabic and English', (_reason, entry) => {
    const status = 'status' in entry ? entry.status : STATUS_OF_CODE[entry.code];
    expect(CONTRACT_STATUS[entry.code]).toContain(status);
    expect(entry.message.en).toMatch(/[A-Za-z]/);
    expect(entry.message.ar).toMatch(/[\u0600-\u06FF]/);
    expect(entry.message.ar.match(/\{\w+(#\w+)?\}/g)?.sort()).toEqual(entry.message.en.match(/\{\w+(#\w+)?\}/g)?.sort());
  });

  it.each(Object.entries(VIOLATIONS))('violation %s is a whole sentence in Arabic and in English, with the same values', (reason, texts) => {
    expect(texts.en).toMatch(/\.$/);
    expect(texts.ar).toMatch(/[\u0600-\u06FF]/);
    expect(texts.ar).toMatch(/\.$/);
    // The field is named unless the sentence names what it is about itself.
    if (!['bothCredentials', 'idsInAll'].includes(reason)) expect(texts.en).toContain('{field}');
    expect(texts.en).toMatch(/^[A-Za-z{]/);
    expect(texts.ar.match(/\{\w+(#\w+)?\}/g)?.sort()).toEqual(texts.en.match(/\{\w+(#\w+)?\}/g)?.sort());
    // No English word inside the Arabic sentence but the names of fields, headers and values, which are not translated.
    const words = texts.ar.replace(/\{[^}]*\}/g, '').match(/[A-Za-z]+/g) ?? [];
    expect(words.filter((word) => !/^(?:true|false|null|JSON|UTF|HTTP|Authorization|x|api|key|Bearer|token|RFC|Accept|Language|application|json|authorization|refresh|code|A|Z|a|z|ASCII|song|album|artist|songIdList|albumIdList|itemIds)$/.test(word))).toEqual([]);
  });
});
