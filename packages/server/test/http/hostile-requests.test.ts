import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InjectOptions } from 'fastify';
import { seededRandom } from '@maqam/server';
import { dialects } from '../dialects.ts';
import { startTestServer, type TestServer } from '../harness.ts';
import { seedAccounts, tokensFor } from '../oauth/oauth-helpers.ts';
import { libraryUser } from '../library/library-helpers.ts';

/** Sends raw bytes and reads until the server closes (or 3 s pass). */
function rawExchange(port: number, request: string | Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    socket.setTimeout(3000, () => socket.destroy());
    socket.on('data', (chunk) => (answer += chunk.toString('utf8')));
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
    socket.end(request);
  });
}

function parseRaw(answer: string) {
  const [head = '', ...rest] = answer.split('\r\n\r\n');
  const [statusLine = '', ...headerLines] = head.split('\r\n');
  const headers = Object.fromEntries(headerLines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
  return { status: Number(statusLine.split(' ')[1]), headers, body: rest.join('\r\n\r\n') };
}

/**
 * Regression (issue 8, item 7): what Node's parser or Fastify's router refused
 * was answered as `{"error":"Bad Request","message":"Client Error",...}`, as
 * an empty 400, or with the path echoed, and without a request id.
 */
describe('requests refused before routing, answered in the contract shape', () => {
  let server: TestServer;
  let port: number;
  beforeAll(async () => {
    server = await startTestServer(dialects[0]!);
    port = Number(new URL(await server.app.listen({ port: 0, host: '127.0.0.1' })).port);
  });
  afterAll(async () => server?.close());

  it.each([
    ['an unknown method', 'FOO /v1/music/songs:batchGet HTTP/1.1\r\nHost: x\r\n\r\n', 400, 'method'],
    ['a bad Content-Length', 'POST /v1/music/songs:batchGet HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n', 400, 'Content-Length'],
    ['a NUL in a header', 'GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: a\u0000b\r\n\r\n', 400, undefined],
    ['a bad HTTP version', 'GET /healthz HTTP/9.7\r\nHost: x\r\n\r\n', 400, undefined],
    ['no Host', 'GET /healthz HTTP/1.1\r\n\r\n', 400, 'Host'],
    ['bad percent-encoding', 'GET /v1/music/artists/%E0%A4%A/related HTTP/1.1\r\nHost: x\r\n\r\n', 400, 'path'],
    ['an id over 512 characters', `GET /v1/music/artists/${'a'.repeat(600)}/related HTTP/1.1\r\nHost: x\r\n\r\n`, 414, undefined],
    ['20 KB of headers', `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431, undefined],
  ])('answers %s in the contract shape, with a request id and no echo', async (_what, request, status, field) => {
    const answer = parseRaw(await rawExchange(port, request));
    expect(answer.status).toBe(status);
    expect(answer.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const body = JSON.parse(answer.body);
    expect(body).toMatchObject({ code: 'ERROR_CODE_INVALID_REQUEST', message: expect.any(String), requestId: answer.headers['x-request-id'] });
    if (status === 400) expect(body.violations.length).toBeGreaterThan(0);
    if (field) expect(body.violations.map((v: { field: string }) => v.field)).toContain(field);
    expect(answer.body).not.toContain('%E0%A4%A');
    expect(answer.body).not.toContain('aaaaaaaaaa');
  });

  // Regression (issue 8, item 9): these methods answered 404 on API paths.
  it.each(['TRACE', 'PROPFIND', 'SEARCH', 'LINK', 'MKCOL', 'PUT', 'DELETE'])('answers %s on an API path with 405 and Allow', async (method) => {
    const res = await server.app.inject({ method: method as InjectOptions['method'], url: '/v1/music/songs:batchGet' });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe('POST');
    expect(res.json()).toMatchObject({ code: 'ERROR_CODE_INVALID_REQUEST', requestId: res.headers['x-request-id'] });
  });

  // Regression (issue 8, item 10): /docs could be framed.
  it('forbids framing the reference at /docs', async () => {
    const res = await server.app.inject('/docs/');
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
  });
});

const HOSTILE_STRINGS = [
  '', ' ', 'song-ar', 'artist-ar', 'a\u0000b', '\u0000', '%00', '\ud800', '\udfff\ud800', 'x'.repeat(129), 'x'.repeat(600),
  "' or 1=1 --", '"; drop table songs; --', '__proto__', 'constructor', '../../etc/passwd', '..%2f..%2f', '\u202eevil', 'ع'.repeat(200),
  '😀'.repeat(40), '\r\n', '\u00ff\u00fe', '<script>alert(1)</script>', '${jndi:ldap://x}', '%', '%%', '\\', 'null', 'NaN', '-1', '1e309',
];

function hostileValue(random: ReturnType<typeof seededRandom>, depth = 0): unknown {
  const roll = random.next();
  if (roll < 0.45) return random.pick(HOSTILE_STRINGS);
  if (roll < 0.55) return random.pick([0, -1, 1.5, 2 ** 31, -(2 ** 53), 1e308, true, false, null]);
  if (roll < 0.75 && depth < 3) return Array.from({ length: Math.floor(random.next() * 4) }, () => hostileValue(random, depth + 1));
  if (depth < 3) {
    const object: Record<string, unknown> = {};
    for (let i = Math.floor(random.next() * 4); i > 0; i--) object[random.pick(['value', 'songIdList', 'song_id_list', '__proto__', 'x', 'value '])] = hostileValue(random, depth + 1);
    return object;
  }
  return random.pick(HOSTILE_STRINGS);
}

/** Every UTF-8 byte percent-encoded (lone surrogates become U+FFFD, as in any HTTP client); sometimes raw invalid UTF-8. An object (its prototype perhaps replaced through __proto__) as JSON. */
const urlPart = (value: unknown) => [...Buffer.from(typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value))].map((byte) => `%${byte.toString(16).padStart(2, '0')}`).join('');

/** One hostile request, built only from the seed, so both dialects get exactly the same sequence. */
function hostileRequest(random: ReturnType<typeof seededRandom>, credentials: { apiKey: string; bearer: string; libraryBearer: string; playlistId: string }): InjectOptions {
  const value = () => hostileValue(random);
  const text = () => random.pick(HOSTILE_STRINGS);
  const headers: Record<string, string> = {};
  const credential = random.next();
  if (credential < 0.5) headers['x-api-key'] = credentials.apiKey;
  else if (credential < 0.7) headers.authorization = `Bearer ${credentials.bearer}`;
  else if (credential < 0.8) headers.authorization = random.pick(['Bearer', 'Basic abc', 'Bearer a b', `Bearer ${'x'.repeat(600)}`, 'bearer mat_x']);
  else if (credential < 0.9) headers['x-api-key'] = random.pick(['mk_', 'mk_aaaaaaaaaaaa_', `mk_aaaaaaaaaaaa_${'A'.repeat(43)}`, 'x']);
  if (random.next() < 0.3) headers['accept-language'] = random.pick(['ar-EG', 'en;q=x', '*', 'zz-ZZ-ZZ', ',,,', 'en, ar;q=0.5', 'ar;q=2', 'i-klingon']);
  if (random.next() < 0.2) headers['x-request-id'] = random.pick(['ok-1', 'bad id', 'x'.repeat(65)]);
  const json = (body: unknown): InjectOptions['payload'] => {
    headers['content-type'] = random.pick(['application/json', 'application/json', 'application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded']);
    return random.next() < 0.1 ? '{"truncated": [' : JSON.stringify(body);
  };
  const libraryPost = () => random.pick([
    '/v1/library/saved:batchAdd', '/v1/library/saved:batchRemove', '/v1/library/saved:check',
    '/v1/library/following/artists:batchAdd', '/v1/library/following/artists:batchRemove', '/v1/library/following/artists:check',
  ]);
  const play = () => (random.next() < 0.5 ? value() : {
    playId: random.next() < 0.5 ? `p-${Math.floor(random.next() * 5)}` : value(), songId: random.next() < 0.5 ? 'song-ar' : value(),
    startedAt: random.pick([new Date(Date.now() - 60_000).toISOString(), '2026-13-45T99:00:00Z', 'yesterday', value()]),
    msPlayed: random.pick([40_000, -1, 86_400_001, 1.5, value()]), ...(random.next() < 0.5 ? { context: value() } : {}),
  });
  const playlistUrl = () => `/v1/playlists/${urlPart(random.next() < 0.6 ? credentials.playlistId : text())}`;
  const songList = () => Array.from({ length: Math.floor(random.next() * 5) }, () => ({ value: random.next() < 0.5 ? random.pick(['song-ar', 'song-en', 'song-withdrawn']) : value() }));
  const itemIds = () => (random.next() < 0.7 ? Array.from({ length: Math.floor(random.next() * 4) }, value) : value());
  switch (Math.floor(random.next() * 14)) {
    case 0:
    case 1:
      return { method: 'POST', url: '/v1/music/songs:batchGet', headers, payload: json(random.next() < 0.6 ? { songIdList: Array.from({ length: Math.floor(random.next() * 5) }, () => ({ value: value() })) } : value()) };
    case 2:
      return { method: 'GET', url: `/v1/music/artists/${urlPart(text())}/related?page_size=${urlPart(value())}&page_token=${urlPart(text())}`, headers };
    case 3:
      return { method: 'POST', url: '/v1/auth/token', headers, payload: json({ grant_type: random.pick(['authorization_code', 'refresh_token', text()]), code: value(), redirect_uri: value(), client_id: value(), code_verifier: value(), refresh_token: value() }) };
    case 4:
      return { method: 'POST', url: '/v1/auth/token/refresh', headers, payload: json({ refresh_token: value(), client_id: value(), clientId: value() }) };
    case 5:
      return { method: 'POST', url: '/v1/auth/token/revoke', headers, payload: json({ token: value(), token_type_hint: value() }) };
    case 6:
      return { method: 'GET', url: `/v1/auth/authorize?response_type=code&client_id=${urlPart(text())}&redirect_uri=${urlPart(text())}&code_challenge=${urlPart(text())}&code_challenge_method=S256&state=${urlPart(text())}`, headers };
    case 7:
      headers['content-type'] = 'application/x-www-form-urlencoded';
      return { method: 'POST', url: '/v1/auth/authorize', headers, payload: new URLSearchParams({ client_id: text(), redirect_uri: text(), username: text(), password: text(), decision: text(), csrf_token: text() }).toString() };
    case 8:
      return { method: 'POST', url: '/v1/streaming/music', headers, payload: json({ songId: { value: value() }, maxQuality: value() }) };
    case 9:
      if (credential >= 0.5 && credential < 0.7) headers.authorization = `Bearer ${credentials.libraryBearer}`;
      if (random.next() < 0.3) headers['idempotency-key'] = text();
      if (random.next() < 0.3) {
        return { method: 'POST', url: '/v1/library/history:report', headers, payload: json({ plays: Array.from({ length: Math.floor(random.next() * 4) }, play) }) };
      }
      return {
        method: 'POST', url: libraryPost(), headers,
        payload: json(random.next() < 0.6 ? { [random.pick(['songIdList', 'albumIdList', 'artistIdList', 'song_id_list'])]: Array.from({ length: Math.floor(random.next() * 5) }, () => ({ value: value() })) } : value()),
      };
    case 10:
      if (credential >= 0.5 && credential < 0.7) headers.authorization = `Bearer ${credentials.libraryBearer}`;
      return {
        method: 'GET', headers,
        url: random.pick([
          `/v1/library/saved?types=${urlPart(text())}&page_size=${urlPart(random.pick([...HOSTILE_STRINGS, '5', '100', '101']))}&page_token=${urlPart(text())}`,
          `/v1/library/following/artists?page_token=${urlPart(text())}`, `/v1/library/history?page_size=${urlPart(random.pick([...HOSTILE_STRINGS, '5', '100', '101']))}&page_token=${urlPart(text())}`,
          `/v1/library/changes?cursor=${urlPart(text())}`, '/v1/users/me',
        ]),
      };
    case 11: {
      if (credential >= 0.5 && credential < 0.7) headers.authorization = `Bearer ${credentials.libraryBearer}`;
      if (random.next() < 0.3) headers['idempotency-key'] = text();
      if (random.next() < 0.3) headers['if-match'] = random.pick(['"1"', '*', 'W/"1"', '1', '"', '"1", "2"', text()]);
      const write: InjectOptions[] = [
        { method: 'POST', url: '/v1/playlists', headers, payload: json(random.next() < 0.7 ? { name: value(), description: value(), visibility: random.pick(['PLAYLIST_VISIBILITY_PUBLIC', value()]), songIdList: songList() } : value()) },
        { method: 'PATCH', url: playlistUrl(), headers, payload: json({ name: value(), description: value(), visibility: value() }) },
        { method: 'POST', url: `${playlistUrl()}/items:batchAdd`, headers, payload: json({ songIdList: songList(), beforeItemId: value() }) },
        { method: 'POST', url: `${playlistUrl()}/items:batchRemove`, headers, payload: json({ itemIds: itemIds() }) },
        { method: 'POST', url: `${playlistUrl()}/items:move`, headers, payload: json({ item_ids: itemIds(), before_item_id: value() }) },
        { method: 'PUT', url: `${playlistUrl()}/items`, headers, payload: json({ songIdList: songList() }) },
        // Never the playlist the others write: it would turn the rest of the run into 404s.
        { method: 'DELETE', url: `/v1/playlists/${urlPart(text())}`, headers },
      ];
      return random.pick(write);
    }
    case 12:
      if (credential >= 0.5 && credential < 0.7) headers.authorization = `Bearer ${credentials.libraryBearer}`;
      if (random.next() < 0.3) headers['if-none-match'] = random.pick(['"1"', '*', 'W/"1"', '1', '"', text()]);
      return {
        method: 'GET', headers,
        url: random.pick([
          playlistUrl(), `${playlistUrl()}/items?page_size=${urlPart(random.pick([...HOSTILE_STRINGS, '5', '100', '101']))}&page_token=${urlPart(text())}`,
          `/v1/playlists?page_token=${urlPart(text())}`, `/artwork/mosaics/${urlPart(text())}.svg`, `/artwork/mosaics/${urlPart(text())}/a/b/${urlPart(text())}.svg`,
        ]),
      };
    default:
      return { method: random.pick(['GET', 'HEAD', 'DELETE', 'PATCH']) as InjectOptions['method'], url: random.pick([`/v1/streaming/hls/${urlPart(text())}/index.m3u8`, '/v1/auth/tokeninfo', `/v1/${urlPart(text())}`, `/${urlPart(text())}`]), headers };
  }
}

const REQUESTS_PER_DIALECT = 5000;

/**
 * Regression (issue 8, item 6 and the proof it asks for): a NUL in an id
 * answered 500 on PostgreSQL only. The same 5,000 hostile requests, from one
 * seed, go to both dialects: no answer is a 5xx, every JSON error is in the
 * contract's shape with the request id, and both dialects answer each request
 * with the same status and code.
 */
describe('hostile requests on every dialect', () => {
  const outcomes = new Map<string, string[]>();

  describe.each(dialects.map((d) => [d.name, d] as const))('on %s', (name, dialect) => {
    let server: TestServer;
    let bearer: string;
    let libraryBearer: string;
    let playlistId: string;
    beforeAll(async () => {
      server = await startTestServer(dialect, { MAQAM_RATE_LIMIT: '0' });
      const accounts = await seedAccounts(server);
      bearer = (await tokensFor(server, accounts.client.clientId, accounts.user.username)).access_token;
      libraryBearer = (await libraryUser(server)).write;
      const created = await server.app.inject({
        method: 'POST', url: '/v1/playlists', headers: { authorization: `Bearer ${libraryBearer}`, 'content-type': 'application/json' },
        payload: JSON.stringify({ name: 'hostile', songIdList: [{ value: 'song-ar' }, { value: 'song-en' }] }),
      });
      playlistId = created.json().playlist.id.value;
    });
    afterAll(async () => server?.close());

    it(`answers ${REQUESTS_PER_DIALECT} hostile requests without a 5xx, in the contract's shape`, async () => {
      const random = seededRandom(2026);
      const seen: string[] = [];
      const problems: string[] = [];
      for (let i = 0; i < REQUESTS_PER_DIALECT; i++) {
        const request = hostileRequest(random, { apiKey: server.apiKey, bearer, libraryBearer, playlistId });
        const res = await server.app.inject(request);
        const where = `#${i} ${request.method} ${String(request.url).slice(0, 120)}`;
        let code = '';
        if (res.statusCode >= 500) problems.push(`${where}: ${res.statusCode} ${res.body.slice(0, 200)}`);
        if (!res.headers['x-request-id']) problems.push(`${where}: no x-request-id`);
        if (res.statusCode >= 400 && String(res.headers['content-type']).startsWith('application/json') && request.method !== 'HEAD') {
          const body = res.json() as { code?: unknown; message?: unknown; requestId?: unknown; violations?: unknown[] };
          code = String(body.code);
          if (typeof body.code !== 'string' || typeof body.message !== 'string' || body.requestId !== res.headers['x-request-id']) problems.push(`${where}: body ${res.body.slice(0, 200)}`);
          if (res.statusCode === 400 && !(Array.isArray(body.violations) && body.violations.length > 0)) problems.push(`${where}: a 400 without violations`);
        }
        seen.push(`${res.statusCode} ${code}`);
      }
      expect(problems.slice(0, 10)).toEqual([]);
      outcomes.set(name, seen);
    }, 120_000);
  });

  it.runIf(dialects.length > 1)('answers each of them the same on SQLite and PostgreSQL', () => {
    const [sqlite, postgres] = [outcomes.get('sqlite')!, outcomes.get('postgres')!];
    expect(sqlite.length).toBe(REQUESTS_PER_DIALECT);
    const differences = sqlite.flatMap((answer, i) => (answer === postgres[i] ? [] : [`#${i}: sqlite ${answer}, postgres ${postgres[i]}`]));
    expect(differences.slice(0, 10)).toEqual([]);
  });
});
