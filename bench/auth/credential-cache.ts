// bench/auth/credential-cache.ts: what a credential check costs on PostgreSQL,
// with and without the shared Redis whose shared write version lets nodes check
// credentials from memory (storage/shared-write-version.ts). GetSong of one song
// (always in the song cache, so the credential is most of the work), with an
// API key and with a bearer token, 16 connections; the server on core 0,
// wrk on core 1. PostgreSQL's backends are not pinned: their CPU is read from
// /proc and reported per request beside the server's, and so is Redis's.
//
//   node bench/auth/credential-cache.ts      (BENCH_SECONDS, MAQAM_TEST_POSTGRES, MAQAM_TEST_REDIS)
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { createApiKeysRepo, createApiKeysService, createClientsService, createUsersService, prepareDatabase, openStorage, seedDemoCatalog } from '@maqam/server';
import { createTokensService } from '../../packages/server/src/oauth/tokens.service.ts';
import { cpuSeconds, startPinned, stop, waitReady, wrk } from '../lib/load.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const BIN = join(ROOT, 'packages/cli/bin/maqam.js');
const SECONDS = Number(process.env.BENCH_SECONDS ?? 15);
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

const PORT = 17_500 + Math.floor(Math.random() * 400);
const base = `http://127.0.0.1:${PORT}`;
const path = '/v1/music/songs/song-1';
const rows: string[] = [];
for (const redis of [false, true]) {
  const server = startPinned([BIN, 'serve'], {
    ...process.env,
    PATH: `${join(ROOT, 'node_modules/.bin')}:${process.env.PATH}`,
    PORT: String(PORT), DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn', MAQAM_RATE_LIMIT: '0',
    REDIS_URL: redis ? REDIS_URL : '',
  });
  try {
    await waitReady(server, () => fetch(`${base}${path}`, { headers: { 'x-api-key': apiKey } }));
    for (const [credential, env] of [['API key', { API_KEY: apiKey }], ['bearer token', { AUTHORIZATION: `Bearer ${accessToken}` }]] as const) {
      const run = (seconds: number) => wrk({ url: `${base}/`, script: join(import.meta.dirname, 'get.lua'), seconds, connections: 16, env: { ...env, GET_PATH: path } });
      run(3);
      const node = cpuSeconds(server.pid!);
      const postgres = cpuSecondsOf('postgres');
      const redisServer = cpuSecondsOf('redis-server');
      const result = run(SECONDS);
      const perRequest = (seconds: number) => Math.round((seconds * 1e6) / Math.max(1, result.requests));
      rows.push(`| ${redis ? 'with' : 'without'} | ${credential} | ${result.requestsPerSecond.toFixed(0)} | ${result.p99Ms.toFixed(2)} ms | ${perRequest(cpuSeconds(server.pid!) - node)} | ${perRequest(cpuSecondsOf('postgres') - postgres)} | ${perRequest(cpuSecondsOf('redis-server') - redisServer)} | ${result.errors} |`);
      console.log(rows.at(-1));
    }
  } finally {
    await stop(server);
  }
}
console.log(`\nPostgreSQL, GetSong ${path}, 16 connections, ${SECONDS} s a run\n`);
console.log('| REDIS_URL | credential | requests/s | p99 | CPU us/request: server | PostgreSQL | Redis | errors |');
console.log('|---|---|---:|---:|---:|---:|---:|---:|');
for (const row of rows) console.log(row);
