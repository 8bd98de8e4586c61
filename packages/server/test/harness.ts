import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import {
  buildApp,
  createApiKeysRepo,
  createApiKeysService,
  importNdjsonFile,
  loadConfig,
  prepareDatabase,
  openStorage,
  type ApiKeysService,
  type Storage,
} from '@maqam/server';
import type { TestDialect } from './dialects.ts';
import { fixtureRecords, writeNdjson } from './fixtures.ts';

export interface TestServer {
  app: FastifyInstance;
  storage: Storage;
  databaseUrl: string;
  keys: ApiKeysService;
  /** A valid API key for the catalog operations. */
  apiKey: string;
  /** inject with the API key unless `headers` says otherwise. */
  call(options: InjectOptions): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

/** A migrated database of the dialect with the fixture catalog, and the app on it (not listening). */
export async function startTestServer(dialect: TestDialect, env: Record<string, string> = {}, options: { clock?: () => number; catalogPollMs?: number } = {}): Promise<TestServer> {
  const database = await dialect.create();
  // With REDIS_URL on PostgreSQL the server checks credentials from memory between writes (storage/shared-write-version.ts).
  const storage = openStorage(database.url, { redisUrl: env.REDIS_URL });
  await prepareDatabase(storage);
  const dir = mkdtempSync(join(tmpdir(), 'maqam-fixture-'));
  const outcome = await importNdjsonFile(storage, writeNdjson(dir, 'catalog.ndjson', fixtureRecords()));
  rmSync(dir, { recursive: true, force: true });
  if (outcome.errors.length > 0) throw new Error(`fixture import failed: ${JSON.stringify(outcome.errors)}`);
  const config = loadConfig({ DATABASE_URL: database.url, MAQAM_SECRET: 'x'.repeat(40), ...env });
  const app = await buildApp({ config, storage, logger: false, ...options });
  const keys = createApiKeysService(createApiKeysRepo(storage.db));
  const { key: apiKey } = await keys.create({ name: 'test' });
  return {
    app,
    storage,
    databaseUrl: database.url,
    keys,
    apiKey,
    call: (options) => app.inject({ ...options, headers: { 'x-api-key': apiKey, ...options.headers } }) as Promise<LightMyRequestResponse>,
    async close() {
      await app.close();
      await storage.close();
      await database.drop();
    },
  };
}

/** Another node on the test server's database (a connection or pool of its own), as a second process would be. */
export async function secondNode(server: TestServer, env: Record<string, string> = {}): Promise<{ app: FastifyInstance; close(): Promise<void> }> {
  const storage = openStorage(server.databaseUrl);
  const app = await buildApp({ config: loadConfig({ DATABASE_URL: server.databaseUrl, MAQAM_SECRET: 'x'.repeat(40), ...env }), storage, logger: false });
  return {
    app,
    async close() {
      await app.close();
      await storage.close();
    },
  };
}

export function batchGet(server: TestServer, body: unknown, headers: Record<string, string> = {}) {
  return server.call({
    method: 'POST',
    url: '/v1/music/songs:batchGet',
    headers: { 'content-type': 'application/json', ...headers },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

export const ids = (...values: string[]) => ({ songIdList: values.map((value) => ({ value })) });

/** Starts a node:http (or net) server on a free loopback port and returns the port. */
export async function listenOnFreePort(server: { listen(port: number, host: string, callback: () => void): unknown; address(): unknown }): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)));
}

/** A loopback port that was free a moment ago, for servers that must know their URL before they listen. */
export async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  const probe = createServer();
  const port = await listenOnFreePort(probe);
  await new Promise((resolve) => probe.close(resolve));
  return port;
}
