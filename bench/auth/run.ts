// bench/auth: refresh rotations per second over many independent sign-ins
// (families), on SQLite and PostgreSQL, and what a bearer token costs against
// an API key on BatchGetSongs: server CPU per request, compared in rounds by
// bench/lib/compare.ts (A: the API key, A again: the API key, B: the token).
// Server pinned to core 0, load to core 1.
//
//   npm run bench:auth            (BENCH_SECONDS, BENCH_FAMILIES, BENCH_ROUNDS to change the run)
import { spawnSync } from 'node:child_process';
import { randomBytes, createHash } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { freshPostgresDatabase } from '../lib/postgres.ts';
import {
  createApiKeysRepo, createApiKeysService, createClientsService, createUsersService, prepareDatabase, openStorage, seedDemoCatalog,
} from '@maqam/server';
import { createTokensService } from '../../packages/server/src/oauth/tokens.service.ts';
import { alternate, printComparison, type Side } from '../lib/compare.ts';
import { cpuSeconds, startPinned, stop, waitReady, wrk } from '../lib/load.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const DATA = join(ROOT, 'bench/.data');
const BIN = join(ROOT, 'packages/cli/bin/maqam.js');
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const FAMILIES = Number(process.env.BENCH_FAMILIES ?? 4000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const CONNECTIONS = 32;
const SONGS = 20_000;
mkdirSync(DATA, { recursive: true });

const postgresUrl = () => freshPostgresDatabase('maqam_bench_auth');

/** A catalog, a user, a client, an API key, and FAMILIES sign-ins minted directly (no scrypt per sign-in). */
async function prepare(databaseUrl: string) {
  const storage = openStorage(databaseUrl);
  await prepareDatabase(storage);
  await seedDemoCatalog(storage, { songs: SONGS });
  const user = await createUsersService(storage.db).create('bench', 'bench-password');
  const client = await createClientsService(storage.db).create({ name: 'bench', redirectUris: ['https://bench.example/cb'], scopes: ['read', 'stream'] });
  const apiKey = (await createApiKeysService(createApiKeysRepo(storage.db)).create({ name: 'bench' })).key;
  const tokens = createTokensService(storage.db, { accessTokenTtlSeconds: 3600, codeTtlSeconds: 600 });
  const refreshTokens: string[] = [];
  let accessToken = '';
  for (let i = 0; i < FAMILIES; i++) {
    const verifier = randomBytes(32).toString('base64url');
    const code = await tokens.issueCode({
      clientId: client.clientId, userId: user.id, scope: 'read stream', redirectUri: 'https://bench.example/cb',
      codeChallenge: createHash('sha256').update(verifier).digest('base64url'),
    });
    const set = await tokens.exchangeCode({ code: code!, clientId: client.clientId, redirectUri: 'https://bench.example/cb', codeVerifier: verifier });
    refreshTokens.push(set.refresh_token);
    accessToken = set.access_token;
  }
  await storage.close();
  return { clientId: client.clientId, apiKey, accessToken, refreshTokens };
}

const PORT = 19_000 + Math.floor(Math.random() * 1000);
const base = `http://127.0.0.1:${PORT}`;

function startServer(databaseUrl: string) {
  return startPinned([BIN, 'serve', '--port', String(PORT)], {
    ...process.env, PATH: `${join(ROOT, 'node_modules/.bin')}:${process.env.PATH}`, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn', MAQAM_RATE_LIMIT: '0',
  });
}

function refreshLoad(families: string[], clientId: string, seconds: number) {
  const file = join(DATA, 'families.json');
  writeFileSync(file, JSON.stringify(families));
  const result = spawnSync('taskset', ['-c', '1', process.execPath, join(import.meta.dirname, 'refresh-load.ts')], {
    env: { ...process.env, BASE: base, FAMILIES: file, CLIENT_ID: clientId, CONNECTIONS: String(CONNECTIONS), SECONDS: String(seconds) },
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(result.stderr);
  return JSON.parse(result.stdout) as { refreshesPerSecond: number; ok: number; failed: number; p50Ms: number; p99Ms: number };
}

/** BatchGetSongs with one credential as a side: the server's CPU per request over exactly the run. */
function credentialSide(label: string, serverPid: number, bodiesFile: string, credential: { API_KEY?: string; AUTHORIZATION?: string }): Side {
  const load = (seconds: number) => wrk({ url: `${base}/`, script: join(ROOT, 'bench/batch-get/requests.lua'), seconds, connections: CONNECTIONS, env: { BODIES_FILE: bodiesFile, ...credential } });
  return {
    label,
    warmUp: () => void load(3),
    measure() {
      const before = cpuSeconds(serverPid);
      const result = load(SECONDS);
      if (result.errors > 0) throw new Error(`${label}: ${result.errors} errors`);
      return { cpuUs: ((cpuSeconds(serverPid) - before) * 1e6) / result.requests, requestsPerSecond: result.requestsPerSecond };
    },
  };
}

const bodiesFile = join(DATA, 'auth-bodies.txt');
writeFileSync(
  bodiesFile,
  Array.from({ length: 500 }, () => {
    const ids = new Set<number>();
    while (ids.size < 100) ids.add(1 + Math.floor(Math.random() * SONGS));
    return JSON.stringify({ songIdList: [...ids].map((i) => ({ value: `song-${i}` })) });
  }).join('\n') + '\n',
);

const sqliteFile = join(DATA, 'auth.db');
rmSync(sqliteFile, { force: true });
rmSync(`${sqliteFile}-wal`, { force: true });
rmSync(`${sqliteFile}-shm`, { force: true });
const dialects: [string, string | undefined][] = [['sqlite', `sqlite:${sqliteFile}`], ['postgres', await postgresUrl()]];
const rows: string[] = [];
for (const [name, url] of dialects) {
  if (!url) {
    console.log(`${name}: not reachable, skipped`);
    continue;
  }
  console.log(`${name}: minting ${FAMILIES} sign-ins...`);
  const setup = await prepare(url);
  const server = startServer(url);
  try {
    await waitReady(server, () => fetch(`${base}/readyz`));
    const half = Math.floor(FAMILIES / 2);
    refreshLoad(setup.refreshTokens.slice(0, half), setup.clientId, 3); // warm-up on other families
    const refresh = refreshLoad(setup.refreshTokens.slice(half), setup.clientId, SECONDS);
    console.log(`${name} refresh`, refresh);
    rows.push(`| ${name} | ${refresh.refreshesPerSecond.toFixed(0)} | ${refresh.p50Ms.toFixed(1)} ms | ${refresh.p99Ms.toFixed(1)} ms | ${refresh.failed} |`);

    const apiKey = { API_KEY: setup.apiKey };
    const comparison = await alternate({
      a: credentialSide('API key', server.pid!, bodiesFile, apiKey),
      aAgain: credentialSide('API key', server.pid!, bodiesFile, apiKey),
      b: credentialSide('bearer token', server.pid!, bodiesFile, { AUTHORIZATION: `Bearer ${setup.accessToken}` }),
      rounds: ROUNDS,
    });
    printComparison(comparison, [
      { key: 'cpuUs', label: 'server CPU us/request' },
      { key: 'requestsPerSecond', label: 'requests/s' },
    ], `${name}: BatchGetSongs, a bearer token (B) against an API key (A), ${SECONDS} s a run`);
  } finally {
    await stop(server);
  }
}
console.log(`\nRefresh rotations, ${CONNECTIONS} workers, ${SECONDS} s\n\n| dialect | rotations/s | p50 | p99 | failed |\n|---|---:|---:|---:|---:|`);
for (const row of rows) console.log(row);
