import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp, loadConfig } from '@maqam/server';
import { dialects } from '../dialects.ts';
import { startTestServer, type TestServer } from '../harness.ts';

/** /demo serves a built folder from memory: exact names only, strict CSP, and a hint when there is no build. */
describe('the demo app routes', () => {
  let server: TestServer;
  let app: FastifyInstance;
  let unbuilt: FastifyInstance;
  const dir = mkdtempSync(join(tmpdir(), 'maqam-demo-dir-'));
  beforeAll(async () => {
    mkdirSync(join(dir, 'dist/assets'), { recursive: true });
    writeFileSync(join(dir, 'dist/index.html'), '<!doctype html><title>demo</title>');
    writeFileSync(join(dir, 'dist/assets/app.js'), 'console.log(1)');
    writeFileSync(join(dir, 'dist/assets/chunk-ABCDEFGH.js'), 'export {}');
    writeFileSync(join(dir, 'secret.txt'), 'not for the web');
    server = await startTestServer(dialects[0]!);
    const config = loadConfig({ DATABASE_URL: server.databaseUrl, MAQAM_SECRET: 'x'.repeat(40) });
    app = await buildApp({ config, storage: server.storage, logger: false, demo: { dir: join(dir, 'dist'), settings: () => ({ clientId: 'maqam-demo' }) } });
    unbuilt = await buildApp({ config, storage: server.storage, logger: false, demo: { dir: join(dir, 'nothing'), settings: () => ({}) } });
  });
  afterAll(async () => {
    await app?.close();
    await unbuilt?.close();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves the page at /demo and at its redirect URI, with a CSP that allows only its own scripts', async () => {
    for (const url of ['/demo', '/demo/', '/demo/callback?code=x&state=y']) {
      const res = await app.inject({ url });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['content-security-policy']).toContain("script-src 'self'");
      expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    }
    expect((await app.inject({ url: '/demo/config.json' })).json()).toEqual({ clientId: 'maqam-demo' });
  });

  it('serves assets by exact name, caches hashed chunks for good, answers 304 to a known ETag', async () => {
    const script = await app.inject({ url: '/demo/assets/app.js' });
    expect(script.statusCode).toBe(200);
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(script.headers['cache-control']).toBe('no-cache');
    const again = await app.inject({ url: '/demo/assets/app.js', headers: { 'if-none-match': script.headers.etag as string } });
    expect(again.statusCode).toBe(304);
    expect((await app.inject({ url: '/demo/assets/chunk-ABCDEFGH.js' })).headers['cache-control']).toContain('immutable');
  });

  it('never reaches outside the build', async () => {
    for (const url of ['/demo/assets/..%2F..%2Fsecret.txt', '/demo/assets/../../secret.txt', '/demo/assets/nope.js', '/demo/secret.txt']) {
      const res = await app.inject({ url });
      expect(res.statusCode, url).toBe(404);
      expect(res.body).not.toContain('not for the web');
    }
  });

  it('says how to build the app when there is no build', async () => {
    const res = await unbuilt.inject({ url: '/demo' });
    expect(res.statusCode).toBe(503);
    expect(res.body).toContain('npm run build:demo');
  });

  it('is not there unless asked for', async () => {
    expect((await server.call({ url: '/demo' })).statusCode).toBe(404);
  });
});
