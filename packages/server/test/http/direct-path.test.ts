import { once } from 'node:events';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../dialects.ts';
import { fixtureRecords } from '../fixtures.ts';
import { startTestServer, type TestServer } from '../harness.ts';

/**
 * The direct path (http/direct-path.ts) answers the Batch* routes before
 * Fastify. Its answers must be Fastify's, byte for byte, head included; what
 * it does not take, or cannot finish with a 200, Fastify answers as before,
 * with the body read once and the call counted once. `inject` never reaches
 * it, so everything here goes over a socket, and the metrics say which path
 * answered. A UTF-8 byte order mark in front of a body makes the body reader
 * decline it and changes nothing else: such a request is taken, read and
 * handed over to Fastify, which answers it.
 */

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const ROUTES = [
  { url: '/v1/music/songs:batchGet', pattern: '/v1/music/songs::batchGet', member: 'songIdList', kind: 'song' },
  { url: '/v1/music/albums:batchGet', pattern: '/v1/music/albums::batchGet', member: 'albumIdList', kind: 'album' },
  { url: '/v1/music/artists:batchGet', pattern: '/v1/music/artists::batchGet', member: 'artistIdList', kind: 'artist' },
] as const;

interface RawAnswer {
  status: number;
  /** Header lines in the order sent, lower-cased names. */
  headers: [string, string][];
  body: Buffer;
}

/**
 * Sends raw bytes on a new connection and reads the whole answer (the request asks to close). The socket is
 * not half-closed: Node aborts the requests of a client that has ended its side.
 */
function exchange(port: number, request: Buffer | string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('end', () => {
      const all = Buffer.concat(chunks);
      const split = all.indexOf('\r\n\r\n');
      const [statusLine, ...lines] = all.subarray(0, split).toString('latin1').split('\r\n');
      resolve({
        status: Number(statusLine!.split(' ')[1]),
        headers: lines.map((line) => {
          const colon = line.indexOf(':');
          return [line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim()];
        }),
        body: all.subarray(split + 4),
      });
    });
    socket.write(request);
  });
}

function post(url: string, body: Buffer | string, headers: Record<string, string>): Buffer {
  const bytes = Buffer.from(body);
  const head = [`POST ${url} HTTP/1.1`, 'host: 127.0.0.1', 'connection: close', `content-length: ${bytes.length}`, ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`)];
  return Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`), bytes]);
}

/** The head as compared: the date and the request id are each answer's own. */
function comparable(answer: RawAnswer) {
  return {
    status: answer.status,
    headers: answer.headers.map(([name, value]) => [name, name === 'date' || name === 'x-request-id' ? '(its own)' : value]),
    body: answer.body.toString('utf8').replace(/"requestId":"[^"]*"/, '"requestId":"(its own)"'),
  };
}

describe.each(dialects.map((d) => [d.name, d] as const))('the direct path on %s', (_name, dialect) => {
  let server: TestServer;
  let port: number;
  type Kind = (typeof ROUTES)[number]['kind'];
  const ids = (kind: Kind) => [...fixtureRecords().flatMap((record) => (record.kind === kind ? [record.id] : [])).slice(0, 3), `${kind}-missing`];
  const plainBody = (member: string, kind: Kind) => JSON.stringify({ [member]: ids(kind).map((value) => ({ value })) });

  /** How many answers of `pattern` the direct path gave, from /metrics. */
  async function directAnswers(pattern: string): Promise<number> {
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    const line = text.split('\n').find((l) => l.startsWith(`maqam_http_direct_answers_total{route="${pattern}"}`));
    return line === undefined ? 0 : Number(line.split(' ').at(-1));
  }

  /** A fresh API key, so each test starts its own rate-limit window. */
  const freshKey = async () => (await server.keys.create({ name: `direct-${Math.random()}` })).key;

  beforeAll(async () => {
    server = await startTestServer(dialect, { MAQAM_RATE_LIMIT: '5', MAQAM_PUBLIC_URL: 'https://maqam.example' });
    const url = await server.app.listen({ port: 0, host: '127.0.0.1' });
    port = Number(new URL(url).port);
  });
  afterAll(async () => server?.close());

  it.each(ROUTES)('answers $url with the bytes Fastify answers, head included', async ({ url, pattern, member, kind }) => {
    const before = await directAnswers(pattern);
    for (const locale of ['ar', 'en', 'fr;q=0.5, ar']) {
      const headers = { 'content-type': 'application/json', 'accept-language': locale };
      const [direct, general] = await Promise.all([
        exchange(port, post(url, plainBody(member, kind), { ...headers, 'x-api-key': await freshKey() })),
        exchange(port, post(url, Buffer.concat([BOM, Buffer.from(plainBody(member, kind))]), { ...headers, 'x-api-key': await freshKey() })),
      ]);
      expect(direct.status).toBe(200);
      // Two first calls of their keys' windows: the same x-ratelimit headers, unless a second passed between them.
      const reset = (answer: RawAnswer) => answer.headers.find(([name]) => name === 'x-ratelimit-reset')![1];
      expect(Math.abs(Number(reset(direct)) - Number(reset(general)))).toBeLessThanOrEqual(1);
      general.headers = general.headers.map(([name, value]) => [name, name === 'x-ratelimit-reset' ? reset(direct) : value]);
      expect(comparable(direct)).toEqual(comparable(general));
      expect(direct.headers.map(([name]) => name)).toEqual([
        'x-request-id', 'x-content-type-options', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset',
        'content-language', 'vary', 'content-type', 'content-length', 'date', 'connection',
      ]);
    }
    // Three plain bodies answered directly; the marked ones were handed over.
    expect(await directAnswers(pattern)).toBe(before + 3);
  });

  it('echoes a well-formed x-request-id and makes one otherwise, as Fastify does', async () => {
    const headers = { 'content-type': 'application/json', 'x-api-key': await freshKey() };
    const sent = await exchange(port, post(ROUTES[0].url, plainBody('songIdList', 'song'), { ...headers, 'x-request-id': 'trace-42' }));
    expect(sent.headers).toContainEqual(['x-request-id', 'trace-42']);
    const made = await exchange(port, post(ROUTES[0].url, plainBody('songIdList', 'song'), { ...headers, 'x-request-id': 'not ok!' }));
    expect(made.headers.find(([name]) => name === 'x-request-id')![1]).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('counts a call it hands over once: the rate limit sees each request one time', async () => {
    const key = await freshKey();
    const { url, member } = ROUTES[0];
    const headers = { 'content-type': 'application/json', 'x-api-key': key };
    const remaining: string[] = [];
    const statuses: number[] = [];
    // Plain bodies answered directly, marked ones and one with an Accept-Language refused handed over: 5 allowed, then 429s.
    const bodies = [plainBody(member, 'song'), Buffer.concat([BOM, Buffer.from(plainBody(member, 'song'))]), plainBody(member, 'song')];
    for (let n = 0; n < 7; n++) {
      const extra: Record<string, string> = n === 3 ? { 'accept-language': '!!' } : {};
      const answer = await exchange(port, post(url, bodies[n % bodies.length]!, { ...headers, ...extra }));
      statuses.push(answer.status);
      remaining.push(answer.headers.find(([name]) => name === 'x-ratelimit-remaining')?.[1] ?? '-');
    }
    expect(statuses).toEqual([200, 200, 200, 400, 200, 429, 429]);
    expect(remaining).toEqual(['4', '3', '2', '1', '0', '0', '0']);
  });

  it('leaves refused credentials to Fastify, which answers them as before', async () => {
    const { url, member } = ROUTES[0];
    const body = plainBody(member, 'song');
    const json = { 'content-type': 'application/json' };
    const cases: [Record<string, string>, number, string][] = [
      [json, 401, 'ERROR_CODE_UNAUTHENTICATED'],
      [{ ...json, 'x-api-key': 'mk_nope_nope' }, 401, 'ERROR_CODE_UNAUTHENTICATED'],
      [{ ...json, 'x-api-key': await freshKey(), authorization: 'Bearer abc' }, 400, 'ERROR_CODE_INVALID_REQUEST'],
      [{ ...json, authorization: 'Basic abc' }, 400, 'ERROR_CODE_INVALID_REQUEST'],
    ];
    for (const [headers, status, code] of cases) {
      const answer = await exchange(port, post(url, body, headers));
      expect(answer.status, JSON.stringify(headers)).toBe(status);
      expect(JSON.parse(answer.body.toString()).code).toBe(code);
    }
  });

  it('leaves to Fastify what it does not take, and those are answered all the same', async () => {
    const { url, pattern, member } = ROUTES[0];
    const body = plainBody(member, 'song');
    const apiKey = await freshKey();
    const key = { 'content-type': 'application/json', 'x-api-key': apiKey };
    const before = await directAnswers(pattern);
    const reference = comparable(await exchange(port, post(url, body, key)));
    expect(reference.status).toBe(200);

    // Chunked, with a query, with a charset parameter Fastify takes, HTTP/1.0, from a trusted origin elsewhere (CORS headers due).
    const chunked = Buffer.from(`POST ${url} HTTP/1.1\r\nhost: x\r\nconnection: close\r\ncontent-type: application/json\r\nx-api-key: ${apiKey}\r\ntransfer-encoding: chunked\r\n\r\n${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`);
    const oneZero = Buffer.from(`POST ${url} HTTP/1.0\r\nhost: x\r\ncontent-type: application/json\r\nx-api-key: ${apiKey}\r\ncontent-length: ${body.length}\r\n\r\n${body}`);
    const answers = [
      await exchange(port, chunked),
      await exchange(port, post(`${url}?x=1`, body, key)),
      await exchange(port, oneZero),
      await exchange(port, post(url, body, { ...key, 'content-type': 'application/json; charset=UTF-8' })),
    ];
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(comparable(answer).body).toBe(reference.body);
    }
    // Only the reference was answered directly.
    expect(await directAnswers(pattern)).toBe(before + 1);
  });

  it('answers requests from its own origin directly, and from others with CORS through Fastify', async () => {
    const { url, pattern, member } = ROUTES[0];
    const body = plainBody(member, 'song');
    const key = { 'content-type': 'application/json', 'x-api-key': await freshKey() };
    const before = await directAnswers(pattern);
    const own = await exchange(port, post(url, body, { ...key, origin: 'https://maqam.example' }));
    const other = await exchange(port, post(url, body, { ...key, origin: 'https://elsewhere.example' }));
    expect(own.status).toBe(200);
    expect(other.status).toBe(200);
    expect(other.headers.find(([name]) => name === 'vary')![1]).toBe('Origin, Accept-Language');
    expect(comparable(own).body).toBe(comparable(other).body);
    expect(await directAnswers(pattern)).toBe(before + 1);
  });

  it('lives through clients that go away mid-body, and answers the next', async () => {
    const { url, member } = ROUTES[0];
    const body = plainBody(member, 'song');
    for (let n = 0; n < 20; n++) {
      const socket = connect(port, '127.0.0.1');
      await new Promise((resolve) => socket.on('connect', resolve));
      socket.write(post(url, body, { 'content-type': 'application/json', 'x-api-key': await freshKey() }).subarray(0, -10));
      socket.destroy();
    }
    const answer = await exchange(port, post(url, body, { 'content-type': 'application/json', 'x-api-key': await freshKey() }));
    expect(answer.status).toBe(200);
  });

  it('steps aside when every request is logged (LOG_LEVEL=debug): Fastify answers, and logs, them all', async () => {
    const logged = await startTestServer(dialect, { MAQAM_RATE_LIMIT: '0', LOG_LEVEL: 'debug' });
    try {
      const loggedPort = Number(new URL(await logged.app.listen({ port: 0, host: '127.0.0.1' })).port);
      const { url, pattern, member } = ROUTES[0];
      const answer = await exchange(loggedPort, post(url, plainBody(member, 'song'), { 'content-type': 'application/json', 'x-api-key': logged.apiKey }));
      expect(answer.status).toBe(200);
      const text = await (await fetch(`http://127.0.0.1:${loggedPort}/metrics`)).text();
      expect(text).toContain(`maqam_http_requests_total{method="POST",route="${pattern}",status="200"} 1`);
      expect(text).not.toContain(`maqam_http_direct_answers_total{route="${pattern}"}`);
    } finally {
      await logged.close();
    }
  });

  it('steps aside once the server starts closing: Fastify answers 503 to a request that comes after', async () => {
    const closing = await startTestServer(dialect, { MAQAM_RATE_LIMIT: '0' });
    const closingPort = Number(new URL(await closing.app.listen({ port: 0, host: '127.0.0.1' })).port);
    const { url, member } = ROUTES[0];
    const keepAlive = (bytes: Buffer) => Buffer.from(bytes.toString('latin1').replace('connection: close', 'connection: keep-alive'), 'latin1');
    const first = keepAlive(post(url, plainBody(member, 'song'), { 'content-type': 'application/json', 'x-api-key': closing.apiKey }));
    const second = keepAlive(post(url, plainBody(member, 'song'), { 'content-type': 'application/json', 'x-api-key': closing.apiKey }));
    const socket = connect(closingPort, '127.0.0.1');
    const chunks: Buffer[] = [];
    const statuses = () => [...Buffer.concat(chunks).toString('latin1').matchAll(/HTTP\/1\.1 (\d{3})/g)].map((match) => Number(match[1]));
    // Both answers, or the connection's end.
    const answered = new Promise((resolve) => {
      socket.on('data', (chunk) => {
        chunks.push(chunk);
        if (statuses().length === 2) resolve(undefined);
      });
      socket.on('close', resolve);
    });
    // The first request is taken (its head read) before the close begins, and its body held back until after.
    const taken = once(closing.app.server, 'request');
    socket.write(first.subarray(0, -5));
    await taken;
    const closed = closing.close();
    // The server stops listening right after the preClose hooks (where the direct path steps aside) have run.
    while (closing.app.server.listening) await new Promise((resolve) => setImmediate(resolve));
    socket.write(Buffer.concat([first.subarray(-5), second]));
    await answered;
    socket.destroy();
    await closed;
    expect(statuses()).toEqual([200, 503]);
  });
});
