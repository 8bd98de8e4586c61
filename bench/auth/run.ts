// bench/auth: refresh rotations per second over many independent sign-ins
// (families), on SQLite and PostgreSQL, and BatchGetSongs with a bearer token
// versus an API key. Server pinned to core 0, load to core 1.
//
//   npm run bench:auth            (BENCH_SECONDS, BENCH_FAMILIES to change the run)
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes, createHash } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { freshPostgresDatabase } from '../lib/postgres.ts';
import {
  createApiKeysRepo, createApiKeysService, createClientsService, createUsersService, prepareDatabase, openStorage, seedDemoCatalog,
} from '@maqam/server';
import { createTokensService } from '../../packages/server/src/oauth/tokens.service.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const DATA = join(ROOT, 'bench/.data');
const BIN = join(ROOT, 'packages/cli/bin/maqam.js');
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const FAMILIES = Number(process.env.BENCH_FAMILIES ?? 4000);
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

async function startServer(databaseUrl: string): Promise<ChildProcess> {
  const child = spawn('taskset', ['-c', '0', BIN, 'serve', '--port', String(PORT)], {
    env: { ...process.env, PATH: `${join(ROOT, 'node_modules/.bin')}:${process.env.PATH}`, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn', MAQAM_RATE_LIMIT: '0' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  for (let i = 0; i < 300; i++) {
    if ((await fetch(`${base}/readyz`).catch(() => null))?.status === 200) return child;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('server did not start');
}

async function stop(child: ChildProcess) {
  const exited = new Promise((r) => child.on('exit', r));
  child.kill('SIGTERM');
  await exited;
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

function batchGetLoad(bodiesFile: string, credential: { apiKey?: string; authorization?: string }, seconds: number): number {
  const result = spawnSync(
    'taskset',
    ['-c', '1', 'wrk', '-t1', `-c${CONNECTIONS}`, `-d${seconds}s`, '-s', join(ROOT, 'bench/batch-get/requests.lua'), `${base}/`],
    { env: { ...process.env, BODIES_FILE: bodiesFile, API_KEY: credential.apiKey ?? '', AUTHORIZATION: credential.authorization ?? '' }, encoding: 'utf8' },
  );
  if (result.status !== 0) throw new Error(result.stderr);
  if (/Non-2xx/.test(result.stdout)) throw new Error(`errors during load:\n${result.stdout}`);
  return Number(/Requests\/sec:\s+([\d.]+)/.exec(result.stdout)![1]);
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
  const server = await startServer(url);
  try {
    const half = Math.floor(FAMILIES / 2);
    refreshLoad(setup.refreshTokens.slice(0, half), setup.clientId, 3); // warm-up on other families
    const refresh = refreshLoad(setup.refreshTokens.slice(half), setup.clientId, SECONDS);
    console.log(`${name} refresh`, refresh);
    rows.push(`| ${name} | refresh rotations | ${refresh.refreshesPerSecond.toFixed(0)}/s | p50 ${refresh.p50Ms.toFixed(1)} ms, p99 ${refresh.p99Ms.toFixed(1)} ms, ${refresh.failed} failed |`);

    batchGetLoad(bodiesFile, { apiKey: setup.apiKey }, 3);
    const key: number[] = [];
    const token: number[] = [];
    for (let round = 0; round < 2; round++) {
      key.push(batchGetLoad(bodiesFile, { apiKey: setup.apiKey }, SECONDS));
      token.push(batchGetLoad(bodiesFile, { authorization: `Bearer ${setup.accessToken}` }, SECONDS));
    }
    const avg = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const cost = 1 - avg(token) / avg(key);
    console.log(`${name} batchGet api key ${key.map((x) => x.toFixed(0)).join(', ')}; bearer ${token.map((x) => x.toFixed(0)).join(', ')}`);
    rows.push(`| ${name} | BatchGetSongs, API key vs bearer | ${avg(key).toFixed(0)} vs ${avg(token).toFixed(0)} req/s | the token path costs ${(cost * 100).toFixed(1)}% |`);
  } finally {
    await stop(server);
  }
}
console.log('\n| dialect | measure | result | notes |\n|---|---|---|---|');
for (const row of rows) console.log(row);
