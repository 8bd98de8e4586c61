import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../dialects.ts';
import { startTestServer, type TestServer } from '../harness.ts';
import { spawnServer, type ServerProcess } from './spawn-server.ts';

interface Exchange {
  socket: Socket;
  /** Everything received until the server closed the connection. */
  closed: Promise<string>;
}

function open(port: number): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    const closed = new Promise<string>((done) => socket.on('close', () => done(received)));
    socket.on('data', (chunk) => (received += chunk.toString('latin1')));
    socket.once('connect', () => {
      socket.on('error', () => {});
      resolve({ socket, closed });
    });
    socket.once('error', reject);
  });
}

/** Resolves once the port refuses new connections: the server has begun closing. */
async function refusesConnections(port: number): Promise<void> {
  for (;;) {
    const refused = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(false);
      });
      socket.once('error', () => resolve(true));
    });
    if (refused) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** The answers of a connection's bytes: status, headers by lower-case name, body. */
function answers(received: string) {
  const parsed: { status: number; headers: Record<string, string>; body: string }[] = [];
  let rest = received;
  while (rest.length > 0) {
    const end = rest.indexOf('\r\n\r\n');
    const [statusLine, ...lines] = rest.slice(0, end).split('\r\n');
    const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
    const length = Number(headers['content-length']);
    parsed.push({ status: Number(statusLine!.split(' ')[1]), headers, body: rest.slice(end + 4, end + 4 + length) });
    rest = rest.slice(end + 4 + length);
  }
  return parsed;
}

/**
 * Regression (issue 36, item 7): on SIGTERM under load, a request in flight
 * on a kept-alive connection got a socket error instead of its answer or a
 * 503. A real `maqam serve` process, with connections in every state when
 * the signal comes: each request taken before it is answered whole, one
 * that arrives after it is a 503 in the contract's shape, and every
 * connection is closed, so the process exits by itself, with 0.
 */
describe('shutdown on SIGTERM', () => {
  let fixture: TestServer;
  let server: ServerProcess;
  let port: number;

  beforeAll(async () => {
    fixture = await startTestServer(dialects[0]!);
    server = await spawnServer({ DATABASE_URL: fixture.databaseUrl, MAQAM_RATE_LIMIT: '0' });
    port = Number(new URL(server.url).port);
  });
  afterAll(async () => {
    await server?.stop();
    await fixture?.close();
  });

  it('answers what is in flight, refuses what comes after with 503, closes every connection and exits 0', async () => {
    const batchBody = JSON.stringify({ songIdList: [{ value: 'song-ar' }, { value: 'nope' }] });
    const tokenBody = JSON.stringify({ grant_type: 'refresh_token', refresh_token: 'not-a-token', client_id: 'nobody' });
    const head = (path: string, body: string) =>
      `POST ${path} HTTP/1.1\r\nHost: x\r\nx-api-key: ${fixture.apiKey}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n`;

    // Mid-body when the signal comes: a Batch* request and a token request.
    const batch = await open(port);
    batch.socket.write(head('/v1/music/songs:batchGet', batchBody) + batchBody.slice(0, 10));
    const token = await open(port);
    token.socket.write(head('/v1/auth/token/refresh', tokenBody) + tokenBody.slice(0, 10));
    // Kept alive after an answer: one idle, one that has begun its next request's head.
    const idle = await open(port);
    const resumed = await open(port);
    const song = `GET /v1/music/songs/song-ar HTTP/1.1\r\nHost: x\r\nx-api-key: ${fixture.apiKey}\r\n\r\n`;
    for (const { socket } of [idle, resumed]) socket.write(song);
    const firstAnswer = (exchange: Exchange) => new Promise<void>((resolve) => {
      const check = () => (exchange.socket.bytesRead > 0 ? resolve() : setImmediate(check));
      check();
    });
    await Promise.all([firstAnswer(idle), firstAnswer(resumed)]);
    resumed.socket.write(song.slice(0, 30));

    const exited = new Promise<number | null>((resolve) => server.child.once('exit', (code) => resolve(code)));
    server.child.kill('SIGTERM');
    await refusesConnections(port);
    batch.socket.write(batchBody.slice(10));
    token.socket.write(tokenBody.slice(10));
    resumed.socket.write(song.slice(30));

    const [batchAnswers] = [answers(await batch.closed)];
    expect(batchAnswers.map((a) => a.status)).toEqual([200]);
    expect(JSON.parse(batchAnswers[0]!.body).results['song-ar'].song.id.value).toBe('song-ar');

    const tokenAnswers = answers(await token.closed);
    // An unknown client: refused as RFC 6749 says, whole, and the connection closed after it.
    expect(tokenAnswers.map((a) => [a.status, a.headers.connection])).toEqual([[401, 'close']]);
    expect(JSON.parse(tokenAnswers[0]!.body)).toMatchObject({ error: 'invalid_client' });

    const resumedAnswers = answers(await resumed.closed);
    expect(resumedAnswers.map((a) => a.status)).toEqual([200, 503]);
    expect(resumedAnswers[1]!.headers).toMatchObject({ connection: 'close', 'retry-after': '1' });
    expect(JSON.parse(resumedAnswers[1]!.body)).toMatchObject({ code: 'ERROR_CODE_UNAVAILABLE', requestId: resumedAnswers[1]!.headers['x-request-id'] });

    expect(answers(await idle.closed).map((a) => a.status)).toEqual([200]);
    expect(await exited).toBe(0);
  });
});
