// bench/auth/credential-cache.ts: what a credential check costs on PostgreSQL,
// with and without the shared Redis whose shared write version lets nodes check
// credentials from memory (storage/shared-write-version.ts). GetSong of one song
// (always in the song cache, so the credential is most of the work), with an
// API key and with a bearer token, 16 connections; the servers on core 0,
// wrk on core 1. PostgreSQL's backends are not pinned: their CPU is read from
// /proc and reported per request beside the server's, and so is Redis's.
// Compared in rounds by bench/lib/compare.ts, three servers up at once: A
// without REDIS_URL, A again without it, B with it; the verdict is on the
// CPU of all three processes together.
//
//   node bench/auth/credential-cache.ts      (BENCH_SECONDS, BENCH_ROUNDS, MAQAM_TEST_POSTGRES, MAQAM_TEST_REDIS)
import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { createApiKeysRepo, createApiKeysService, createClientsService, createUsersService, prepareDatabase, openStorage, seedDemoCatalog } from '@maqam/server';
import { createTokensService } from '../../packages/server/src/oauth/tokens.service.ts';
import { alternate, printComparison, type Side } from '../lib/compare.ts';
import { cpuSeconds, startPinned, stop, waitReady, wrk } from '../lib/load.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const BIN = join(ROOT, 'packages/cli/bin/maqam.js');
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const PG_ADMIN = process.env.MAQAM_TEST_POSTGRES ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.MAQAM_TEST_REDIS ?? 'redis://127.0.0.1:6379';

const admin = new pg.Client({ connectionString: PG_ADMIN });
await admin.connect();
await admin.query('drop database if exists maqam_bench_credentials with (force)');
await admin.query('create database maqam_bench_credentials');
await admin.end();
const url = new URL(PG_ADMIN);
url.pathname = '/maqam_bench_credentials';
const databaseUrl = url.toString();

// A small catalog, an API key and one access token, minted directly.
const storage = openStorage(databaseUrl);
await prepareDatabase(storage);
await seedDemoCatalog(storage, { songs: 2000 });
const apiKey = (await createApiKeysService(createApiKeysRepo(storage.db)).create({ name: 'bench' })).key;
const user = await createUsersService(storage.db).create('bench', 'bench-password');
const client = await createClientsService(storage.db).create({ name: 'bench', redirectUris: ['https://bench.example/cb'], scopes: ['read'] });
const tokens = createTokensService(storage.db, { accessTokenTtlSeconds: 3600, codeTtlSeconds: 600 });
const { createHash, randomBytes } = await import('node:crypto');
const verifier = randomBytes(32).toString('base64url');
const code = await tokens.issueCode({
  clientId: client.clientId, userId: user.id, scope: 'read', redirectUri: 'https://bench.example/cb',
  codeChallenge: createHash('sha256').update(verifier).digest('base64url'),
});
const { access_token: accessToken } = await tokens.exchangeCode({ code: code!, clientId: client.clientId, redirectUri: 'https://bench.example/cb', codeVerifier: verifier });
await storage.close();

/** CPU seconds of every process of that name (PostgreSQL's backends: the pool keeps its own for the run). */
function cpuSecondsOf(command: string): number {
  let total = 0;
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === command) total += cpuSeconds(Number(pid));
    } catch {}
  }
  return total;
}

const path = '/v1/music/songs/song-1';
const credentials: Record<string, Record<string, string>> = { 'API key': { API_KEY: apiKey }, 'bearer token': { AUTHORIZATION: `Bearer ${accessToken}` } };
const servers: ChildProcess[] = [];
/** A server with or without the shared Redis, as a side: GetSong with a credential, the CPU of every process over the run. */
async function serverSide(redis: boolean): Promise<Side> {
  const port = 17_500 + Math.floor(Math.random() * 400);
  const base = `http://127.0.0.1:${port}`;
  const server = startPinned([BIN, 'serve'], {
    ...process.env,
    PATH: `${join(ROOT, 'node_modules/.bin')}:${process.env.PATH}`,
    PORT: String(port), DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn', MAQAM_RATE_LIMIT: '0',
    REDIS_URL: redis ? REDIS_URL : '',
  });
  servers.push(server);
  await waitReady(server, () => fetch(`${base}${path}`, { headers: { 'x-api-key': apiKey } }));
  const run = (credential: string, seconds: number) => wrk({ url: `${base}/`, script: join(import.meta.dirname, 'get.lua'), seconds, connections: 16, env: { ...credentials[credential], GET_PATH: path } });
  return {
    label: redis ? 'with REDIS_URL' : 'without REDIS_URL',
    warmUp: (credential) => void run(credential, 3),
    measure(credential) {
      const node = cpuSeconds(server.pid!);
      const postgres = cpuSecondsOf('postgres');
      const redisServer = cpuSecondsOf('redis-server');
      const result = run(credential, SECONDS);
      if (result.errors > 0) throw new Error(`${credential}: ${result.errors} errors`);
      const perRequest = (seconds: number) => (seconds * 1e6) / Math.max(1, result.requests);
      const figures = { serverUs: perRequest(cpuSeconds(server.pid!) - node), postgresUs: perRequest(cpuSecondsOf('postgres') - postgres), redisUs: perRequest(cpuSecondsOf('redis-server') - redisServer) };
      return { ...figures, totalUs: figures.serverUs + figures.postgresUs + figures.redisUs, requestsPerSecond: result.requestsPerSecond, p99Ms: result.p99Ms };
    },
  };
}

try {
  const comparison = await alternate({ a: await serverSide(false), aAgain: await serverSide(false), b: await serverSide(true), subjects: Object.keys(credentials), rounds: ROUNDS });
  printComparison(comparison, [
    { key: 'totalUs', label: 'CPU us/request, server + PostgreSQL + Redis' },
    { key: 'serverUs', label: 'CPU us/request, server' },
    { key: 'postgresUs', label: 'CPU us/request, PostgreSQL' },
    { key: 'p99Ms', label: 'p99 ms', digits: 2 },
  ], `PostgreSQL, GetSong ${path}, 16 connections, ${SECONDS} s a run: with the shared Redis (B) against without (A)`);
} finally {
  for (const server of servers) await stop(server);
}
