import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash, randomBytes } from 'node:crypto';
import {
  createApiKeysRepo,
  createApiKeysService,
  createClientsService,
  createUsersService,
  importNdjsonFile,
  prepareDatabase,
  openStorage,
  type Storage,
} from '@maqam/server';
import { createTokensService } from '../../src/oauth/tokens.service.ts';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dialects } from '../dialects.ts';
import { fixtureRecords, writeNdjson } from '../fixtures.ts';
import { startTestServer, type TestServer } from '../harness.ts';
import { TcpProxy } from './tcp-proxy.ts';
import { pause, spawnServer, steadyLoad, timeToRecover, type ServerProcess } from './spawn-server.ts';

const postgres = dialects.find((d) => d.name === 'postgres');
const TIMEOUT_MS = 400;

/**
 * Regressions (issue 8, items 2 and 3), through a TCP proxy between a real
 * `maqam serve` process and PostgreSQL: cutting the connections under load
 * killed the process (an 'error' event on a checked-out pg client), an outage
 * answered 500 without Retry-After, and a database that stopped answering
 * made every request and /readyz hang.
 */
describe.runIf(postgres)('PostgreSQL outages under load', () => {
  let database: { url: string; drop(): Promise<void> };
  let proxy: TcpProxy;
  let server: ServerProcess;
  let key: string;

  beforeAll(async () => {
    database = await postgres!.create();
    const storage: Storage = openStorage(database.url);
    await prepareDatabase(storage);
    await importNdjsonFile(storage, writeNdjson(mkdtempSync(join(tmpdir(), 'maqam-outage-')), 'catalog.ndjson', fixtureRecords()));
    key = (await createApiKeysService(createApiKeysRepo(storage.db)).create({ name: 'outage' })).key;
    await storage.close();
    proxy = await TcpProxy.start(Number(new URL(database.url).port || 5432));
    const viaProxy = new URL(database.url);
    viaProxy.port = String(proxy.port);
    server = await spawnServer({ DATABASE_URL: viaProxy.toString(), MAQAM_DB_TIMEOUT_MS: String(TIMEOUT_MS), MAQAM_RATE_LIMIT: '0' });
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    await proxy?.close();
    await database?.drop();
  });

  /** Sign-ins made straight in the database: their client and first refresh tokens. */
  async function signInFamilies(count: number): Promise<{ clientId: string; refreshTokens: string[] }> {
    const storage = openStorage(database.url);
    try {
      const user = await createUsersService(storage.db).create(`outage${randomBytes(3).toString('hex')}`, 'a long enough passphrase');
      const client = await createClientsService(storage.db).create({ name: 'Outage', redirectUris: ['https://app.example/cb'], scopes: ['read'] });
      const tokens = createTokensService(storage.db, { accessTokenTtlSeconds: 3600, codeTtlSeconds: 600 });
      const refreshTokens: string[] = [];
      for (let i = 0; i < count; i++) {
        const verifier = randomBytes(32).toString('base64url');
        const challenge = createHash('sha256').update(verifier).digest('base64url');
        const code = await tokens.issueCode({ clientId: client.clientId, userId: user.id, scope: 'read', redirectUri: 'https://app.example/cb', codeChallenge: challenge });
        const set = await tokens.exchangeCode({ code: code!, clientId: client.clientId, redirectUri: 'https://app.example/cb', codeVerifier: verifier });
        refreshTokens.push(set.refresh_token);
      }
      return { clientId: client.clientId, refreshTokens };
    } finally {
      await storage.close();
    }
  }

  // Regression (issue 8, item 12): a refresh spent the old token and inserted the new pair in separate
  // statements; a connection lost between them left a sign-in with no refresh token at all.
  it('leaves every sign-in with exactly one live refresh token when connections are cut mid-refresh', async () => {
    const { clientId, refreshTokens } = await signInFamilies(40);
    let cut = false;
    const rotations = refreshTokens.map(async (first) => {
      let current = first;
      // Rotate until the first answer that is not a success; never retry, so nothing hides a lost successor.
      while (!cut) {
        const res = await fetch(`${server.url}/v1/auth/token/refresh`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ refresh_token: current, client_id: clientId }),
          signal: AbortSignal.timeout(5000),
        }).catch(() => null);
        if (res?.status !== 200) return res?.status ?? 'no answer';
        current = ((await res.json()) as { refresh_token: string }).refresh_token;
      }
      return 200;
    });
    await pause(400);
    proxy.cut();
    cut = true;
    const outcomes = await Promise.all(rotations);
    proxy.restore();
    expect(outcomes.every((status) => status === 200 || status === 503)).toBe(true);
    expect(server.alive(), server.stderr()).toBe(true);

    const storage = openStorage(database.url);
    try {
      const families = await storage.db
        .selectFrom('oauth_grants as g')
        .leftJoin('oauth_refresh_tokens as r', (join) => join.onRef('r.grant_id', '=', 'g.id').on('r.spent_at', 'is', null))
        .where('g.client_id', '=', clientId)
        .select(['g.id', 'g.revoked_at', (eb) => eb.fn.count<number>('r.token_hash').as('live')])
        .groupBy(['g.id', 'g.revoked_at'])
        .execute();
      expect(families.length).toBe(40);
      expect(families.filter((f) => f.revoked_at !== null)).toEqual([]);
      expect(families.filter((f) => Number(f.live) !== 1)).toEqual([]);
    } finally {
      await storage.close();
    }
  }, 60_000);

  const batchGet = (signal?: AbortSignal) =>
    fetch(`${server.url}/v1/music/songs:batchGet`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify({ songIdList: [{ value: 'song-ar' }, { value: 'song-en' }] }),
      ...(signal ? { signal } : {}),
    });
  const readyz = async () => (await fetch(`${server.url}/readyz`, { signal: AbortSignal.timeout(5000) })).status;

  function expectOnly200Or503(answers: ReturnType<typeof steadyLoad>['answers']) {
    const unexpected = answers.filter((a) => !(a.status === 200 || (a.status === 503 && a.retryAfter !== null)) || !a.validBody);
    expect(unexpected.slice(0, 5)).toEqual([]);
  }

  it('lives through connections cut under load, answers 503 with Retry-After while they are gone, and recovers within a second', async () => {
    const load = steadyLoad(batchGet, { workers: 16, hangMs: 5000 });
    const recoveries: number[] = [];
    try {
      await pause(300);
      for (let round = 1; round <= 3; round++) {
        load.setPhase(`cut ${round}`);
        proxy.cut();
        await pause(600);
        expect(await readyz()).toBe(503);
        proxy.restore();
        load.setPhase(`restored ${round}`);
        recoveries.push(await timeToRecover(async () => (await batchGet(AbortSignal.timeout(5000))).status));
        await pause(200);
      }
    } finally {
      await load.stop();
    }
    expect(server.alive(), server.stderr()).toBe(true);
    expectOnly200Or503(load.answers);
    expect(load.answers.filter((a) => a.phase.startsWith('cut') && a.status === 503).length).toBeGreaterThan(0);
    for (const ms of recoveries) expect(ms).toBeLessThan(1000);
    expect(await readyz()).toBe(200);
  }, 60_000);

  // Issue 37: with the direct path, a Batch* request waited for the database twice (its own try, then Fastify's
  // after the hand-over). Every route now answers 503 within the database timeout and the client-side grace.
  it('answers every route 503 within MAQAM_DB_TIMEOUT_MS and half a second while the database is paused', async () => {
    const batch = (path: string, member: string, ids: string[]) => ({ method: 'POST', path, body: { [member]: ids.map((value) => ({ value })) } });
    const routes: { method: string; path: string; body?: unknown; auth?: string }[] = [
      batch('/v1/music/songs:batchGet', 'songIdList', ['song-ar', 'song-en']),
      batch('/v1/music/albums:batchGet', 'albumIdList', ['album-1']),
      batch('/v1/music/artists:batchGet', 'artistIdList', ['artist-ar']),
      { method: 'GET', path: '/v1/music/songs/song-ar' },
      { method: 'GET', path: '/v1/music/songs/song-ar/lyrics' },
      { method: 'GET', path: '/v1/music/albums/album-1' },
      { method: 'GET', path: '/v1/music/albums/album-1/tracks' },
      { method: 'GET', path: '/v1/music/artists/artist-ar' },
      { method: 'GET', path: '/v1/music/artists/artist-ar/albums' },
      { method: 'GET', path: '/v1/music/artists/artist-ar/top-tracks' },
      { method: 'GET', path: '/v1/music/artists/artist-ar/related' },
      { method: 'GET', path: '/v1/search?q=amr' },
      { method: 'GET', path: '/v1/auth/tokeninfo', auth: 'Bearer not-a-token' },
      { method: 'POST', path: '/v1/auth/token/refresh', body: { refresh_token: 'not-a-token', client_id: 'nobody' }, auth: '' },
    ];
    const send = async (route: (typeof routes)[number]) => {
      const headers: Record<string, string> = route.auth === undefined ? { 'x-api-key': key } : route.auth === '' ? {} : { authorization: route.auth };
      if (route.body !== undefined) headers['content-type'] = 'application/json';
      const started = performance.now();
      const res = await fetch(`${server.url}${route.path}`, {
        method: route.method, headers, signal: AbortSignal.timeout(10_000),
        ...(route.body === undefined ? {} : { body: JSON.stringify(route.body) }),
      });
      await res.arrayBuffer();
      return { route: `${route.method} ${route.path}`, status: res.status, retryAfter: res.headers.get('retry-after'), ms: performance.now() - started };
    };
    // Each answered once before, so nothing is a first use.
    for (const route of routes) await send(route);
    proxy.pause();
    let answers: Awaited<ReturnType<typeof send>>[];
    try {
      answers = await Promise.all(routes.map(send));
    } finally {
      proxy.restore();
    }
    for (const answer of answers) {
      expect([answer.route, answer.status, answer.retryAfter]).toEqual([answer.route, 503, expect.any(String)]);
      expect(answer.ms, answer.route).toBeLessThan(TIMEOUT_MS + 500);
    }
    await timeToRecover(async () => (await batchGet(AbortSignal.timeout(5000))).status);
  }, 60_000);

  it('answers 503 within its timeouts, not never, while the database stops answering, and recovers within a second', async () => {
    const load = steadyLoad(batchGet, { workers: 16, hangMs: 5000 });
    let recovery = Infinity;
    let readyzMs = Infinity;
    try {
      await pause(300);
      load.setPhase('paused');
      proxy.pause();
      await pause(300);
      const started = performance.now();
      expect(await readyz()).toBe(503);
      readyzMs = performance.now() - started;
      await pause(1200);
      proxy.restore();
      load.setPhase('restored');
      recovery = await timeToRecover(async () => (await batchGet(AbortSignal.timeout(5000))).status);
      await pause(200);
    } finally {
      await load.stop();
    }
    expect(server.alive(), server.stderr()).toBe(true);
    expectOnly200Or503(load.answers);
    const paused = load.answers.filter((a) => a.phase === 'paused');
    expect(paused.filter((a) => a.status === 503).length).toBeGreaterThan(0);
    // Connect, pool wait and statement deadlines, each TIMEOUT_MS (plus the client-side grace), bound every answer.
    expect(Math.max(...paused.map((a) => a.ms))).toBeLessThan(4 * TIMEOUT_MS + 1500);
    expect(readyzMs).toBeLessThan(4 * TIMEOUT_MS + 1500);
    expect(recovery).toBeLessThan(1000);
  }, 60_000);
});

/** SQLite's counterpart: a write that waits past the busy timeout for another process's lock is a 503, and works once the lock is gone. */
describe('SQLite busy past its timeout', () => {
  let server: TestServer;
  let busyStorage: Storage;
  beforeAll(async () => {
    server = await startTestServer(dialects[0]!);
    busyStorage = openStorage(server.databaseUrl, { timeoutMs: 150 });
  });
  afterAll(async () => {
    await busyStorage?.close();
    await server?.close();
  });

  it('answers 503 with Retry-After while another connection holds the write lock', async () => {
    const { buildApp, loadConfig } = await import('@maqam/server');
    const app = await buildApp({ config: loadConfig({ DATABASE_URL: server.databaseUrl, MAQAM_SECRET: 'x'.repeat(40) }), storage: busyStorage, logger: false });
    const revoke = () => app.inject({ method: 'POST', url: '/v1/auth/token/revoke', payload: { token: 'mat_nothing', token_type_hint: 'access_token' } });
    const other = new DatabaseSync(server.databaseUrl.slice('sqlite:'.length));
    try {
      other.exec('BEGIN IMMEDIATE');
      const locked = await revoke();
      expect(locked.statusCode).toBe(503);
      expect(locked.headers['retry-after']).toBe('1');
      expect(locked.json()).toMatchObject({ code: 'ERROR_CODE_UNAVAILABLE', requestId: expect.any(String) });
      other.exec('ROLLBACK');
      expect((await revoke()).statusCode).toBe(200);
    } finally {
      other.close();
      await app.close();
    }
  });
});
