import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, loadConfig } from '@maqam/server';
import type { FastifyInstance } from 'fastify';
import { dialects } from '../dialects.ts';
import { startTestServer, type TestServer } from '../harness.ts';

/** What a socket received until the server closed it. */
function untilClosed(socket: Socket): Promise<string> {
  return new Promise((resolve) => {
    let received = '';
    socket.on('data', (chunk) => (received += chunk.toString('latin1')));
    socket.on('error', () => {});
    socket.on('close', () => resolve(received));
  });
}

/**
 * Regression (issue 36, item 5): 1,000 connections that sent headers and 16
 * of 1,000 announced body bytes were all still open after 100 s
 * (requestTimeout was 0). Every connection has a deadline in every state:
 * stalled headers, a stalled body, and idleness between requests. The
 * deadlines here are short; the server's defaults are in the config table.
 */
describe('connection deadlines', () => {
  let server: TestServer;
  let app: FastifyInstance;
  let port: number;

  beforeAll(async () => {
    server = await startTestServer(dialects[0]!);
    const config = loadConfig({
      DATABASE_URL: server.databaseUrl, MAQAM_SECRET: 'x'.repeat(40),
      MAQAM_REQUEST_TIMEOUT_MS: '800', MAQAM_HEADERS_TIMEOUT_MS: '400', MAQAM_KEEP_ALIVE_TIMEOUT_MS: '300',
    });
    app = await buildApp({ config, storage: server.storage, logger: false });
    await app.listen({ port: 0, host: '127.0.0.1' });
    port = (app.server.address() as { port: number }).port;
  });
  afterAll(async () => {
    await app?.close();
    await server?.close();
  });

  const open = () => new Promise<Socket>((resolve) => {
    const socket = connect(port, '127.0.0.1', () => resolve(socket));
  });

  for (const path of ['/v1/music/songs:batchGet', '/v1/auth/token']) {
    it(`answers a stalled body on ${path} with 400 in the contract's shape and closes the connection`, async () => {
      const socket = await open();
      const closed = untilClosed(socket);
      socket.write(`POST ${path} HTTP/1.1\r\nHost: x\r\nx-api-key: ${server.apiKey}\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{"songIdList":[`);
      const received = await closed;
      expect(received).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
      expect(JSON.parse(received.slice(received.indexOf('\r\n\r\n') + 4))).toMatchObject({
        code: 'ERROR_CODE_INVALID_REQUEST', violations: [{ field: 'request' }],
      });
    });
  }

  it('closes a connection whose headers stall, with 400', async () => {
    const socket = await open();
    const closed = untilClosed(socket);
    socket.write('GET /v1/music/songs/song-ar HTTP/1.1\r\nHost: x\r\nx-api');
    expect(await closed).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
  });

  it('closes a connection that opens and sends nothing', async () => {
    const socket = await open();
    // Node answers 408 (or nothing) to a connection that never began a request; it closes it either way.
    await untilClosed(socket);
    expect(socket.destroyed).toBe(true);
  });

  it('closes a kept-alive connection that sits idle after its answer, having answered it whole', async () => {
    const socket = await open();
    const closed = untilClosed(socket);
    socket.write(`GET /v1/music/songs/song-ar HTTP/1.1\r\nHost: x\r\nx-api-key: ${server.apiKey}\r\n\r\n`);
    const received = await closed;
    expect(received).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    const body = received.slice(received.indexOf('\r\n\r\n') + 4);
    expect(JSON.parse(body).song.id.value).toBe('song-ar');
  });

  it('refuses a headers deadline longer than the request deadline', () => {
    expect(() => loadConfig({ MAQAM_REQUEST_TIMEOUT_MS: '1000', MAQAM_HEADERS_TIMEOUT_MS: '2000' })).toThrow(/at most MAQAM_REQUEST_TIMEOUT_MS/);
  });
});
