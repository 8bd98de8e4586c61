import { spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import type { FastifyInstance } from 'fastify';
import { buildApp, createClientsService, createUsersService, importNdjsonFile, loadConfig, prepareDatabase, openStorage, type Storage } from '@maqam/server';
import { dialects } from '../dialects.ts';
import { fixtureRecords, writeNdjson } from '../fixtures.ts';
import { ffmpegAvailable } from '../system-tools.ts';
import { PASSWORD, pkce, readForm, REDIRECT } from '../oauth/oauth-helpers.ts';

const CLI = resolve(import.meta.dirname, '../../../cli/bin/maqam.js');

/** A tmpfs of its own, mounted here when running as root; undefined (with a notice) otherwise. */
function mountSmallDisk(dir: string, size: string): boolean {
  if (process.getuid?.() !== 0) return false;
  return spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir]).status === 0;
}

/** Fills the disk `dir` is on, to the last byte it takes. */
function fillDisk(dir: string): string {
  const filler = join(dir, 'filler');
  const fd = openSync(filler, 'w');
  const chunk = Buffer.alloc(64 * 1024, 1);
  try {
    for (let size = chunk.length; size > 0;) {
      try {
        writeSync(fd, chunk, 0, size);
      } catch {
        size >>= 1;
      }
    }
  } finally {
    closeSync(fd);
  }
  return filler;
}

interface Node {
  app: FastifyInstance;
  storage: Storage;
  logs: string[];
  clientId: string;
  username: string;
}

/** A node on `databaseUrl` with the fixture catalog, a user and a client; its warnings and errors kept in `logs`. */
async function startNode(databaseUrl: string, env: Record<string, string> = {}): Promise<Node> {
  const storage = openStorage(databaseUrl);
  await prepareDatabase(storage);
  const dir = mkdtempSync(join(tmpdir(), 'maqam-full-'));
  await importNdjsonFile(storage, writeNdjson(dir, 'catalog.ndjson', fixtureRecords()));
  rmSync(dir, { recursive: true, force: true });
  const username = 'full-disk';
  await createUsersService(storage.db).create(username, PASSWORD);
  const { clientId } = await createClientsService(storage.db).create({ name: 'Full disk', redirectUris: [REDIRECT], scopes: ['read', 'stream'] });
  const logs: string[] = [];
  const config = loadConfig({ DATABASE_URL: databaseUrl, MAQAM_SECRET: 'x'.repeat(40), ...env });
  const app = await buildApp({ config, storage, logger: { level: 'warn', stream: { write: (line: string) => logs.push(line) } } });
  return { app, storage, logs, clientId, username };
}

/** Opens the sign-in page and posts the form: a 302 with a code when the database takes the write. */
async function signIn(node: Node) {
  const { verifier, challenge } = pkce();
  const query = new URLSearchParams({ response_type: 'code', client_id: node.clientId, redirect_uri: REDIRECT, scope: 'read stream', state: 's', code_challenge: challenge, code_challenge_method: 'S256' });
  const page = await node.app.inject({ method: 'GET', url: `/v1/auth/authorize?${query}` });
  expect(page.statusCode, page.body).toBe(200);
  const { hidden, cookie } = readForm(page.body, page.headers['set-cookie']);
  const res = await node.app.inject({
    method: 'POST', url: '/v1/auth/authorize',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
    payload: new URLSearchParams({ ...hidden, username: node.username, password: PASSWORD, decision: 'allow' }).toString(),
  });
  return { res, verifier, code: res.statusCode === 302 ? new URL(res.headers.location as string).searchParams.get('code')! : undefined };
}

const exchange = (node: Node, code: string, verifier: string) => node.app.inject({
  method: 'POST', url: '/v1/auth/token', headers: { 'content-type': 'application/json' },
  payload: { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, client_id: node.clientId, code_verifier: verifier },
});
const refresh = (node: Node, refreshToken: string) => node.app.inject({
  method: 'POST', url: '/v1/auth/token/refresh', headers: { 'content-type': 'application/json' },
  payload: { refresh_token: refreshToken, client_id: node.clientId },
});

function expectUnavailable(res: { statusCode: number; headers: Record<string, unknown>; json(): unknown }) {
  expect(res.statusCode).toBe(503);
  expect(res.headers['retry-after']).toBe('1');
  expect(res.json()).toMatchObject({ code: 'ERROR_CODE_UNAVAILABLE' });
}

const root = process.getuid?.() === 0;
if (!root) process.stderr.write('\n*** not running as root: SKIPPING the full-disk tests (they mount a small tmpfs) ***\n\n');

/**
 * Regression (issue 36, item 3): with the SQLite file's disk full, sign-in
 * and token writes answered 500, logged as "cannot rollback - no transaction
 * is active" (SQLite had rolled the transaction back itself, and the ROLLBACK
 * after it hid the real failure), and `maqam import` printed only that line.
 */
describe.runIf(root)('a full disk under SQLite', () => {
  let dir: string;
  let node: Node;
  let filler: string | undefined;
  const ffmpeg = ffmpegAvailable('packaging media onto a full disk');

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'maqam-small-disk-'));
    if (!mountSmallDisk(dir, '32m')) throw new Error(`could not mount a tmpfs at ${dir} as root`);
    node = await startNode(`sqlite:${join(dir, 'maqam.db')}`);
  });
  afterEach(() => {
    if (filler !== undefined) rmSync(filler, { force: true });
    filler = undefined;
  });
  afterAll(async () => {
    await node?.app.close();
    await node?.storage.close();
    spawnSync('umount', [dir]);
    rmSync(dir, { recursive: true, force: true });
  });

  const cli = (args: string[]) => spawnSync(process.execPath, [CLI, ...args], {
    env: { ...process.env, DATABASE_URL: `sqlite:${join(dir, 'maqam.db')}`, MAQAM_MEDIA_DIR: join(dir, 'media'), LOG_LEVEL: 'silent' },
    encoding: 'utf8', timeout: 120_000,
  });

  it('answers sign-in and token writes with 503 and Retry-After, logs the cause, and loses nothing', async () => {
    const before = await signIn(node);
    expect(before.res.statusCode).toBe(302);
    const pending = await signIn(node);
    const tokens = (await exchange(node, before.code!, before.verifier)).json() as { refresh_token: string };
    // Every later write must grow the WAL: empty it, then fill the disk.
    const db = new DatabaseSync(join(dir, 'maqam.db'));
    db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
    db.close();
    filler = fillDisk(dir);

    expectUnavailable((await signIn(node)).res);
    expectUnavailable(await exchange(node, pending.code!, pending.verifier));
    expectUnavailable(await refresh(node, tokens.refresh_token));
    const logged = node.logs.join('\n');
    expect(logged).toContain('database or disk is full');
    expect(logged).not.toContain('cannot rollback');
    expect(logged).not.toMatch(/"level":50/); // nothing logged as an unhandled error

    rmSync(filler, { force: true });
    // The refused writes left nothing half-done: the code and the refresh token still work, once each.
    expect((await exchange(node, pending.code!, pending.verifier)).statusCode).toBe(200);
    expect((await refresh(node, tokens.refresh_token)).statusCode).toBe(200);
    expect((await signIn(node)).res.statusCode).toBe(302);
  });

  it('makes `maqam import` say that the disk is full, and import nothing', () => {
    const file = writeNdjson(dir, 'more.ndjson', [{ ...fixtureRecords().find((record) => record.kind === 'artist')!, id: 'artist-full' }]);
    const db = new DatabaseSync(join(dir, 'maqam.db'));
    db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
    db.close();
    filler = fillDisk(dir);
    const result = cli(['import', file]);
    expect(result.status, result.stderr).toBe(1);
    expect(result.stderr).toContain('database or disk is full');
    expect(result.stderr).not.toContain('cannot rollback');
    const reader = new DatabaseSync(join(dir, 'maqam.db'));
    expect(reader.prepare("select count(*) as n from artists where id = 'artist-full'").get()).toEqual({ n: 0 });
    reader.close();
  });

  it.runIf(ffmpeg)('makes `maqam media add` say that the disk is full, and keep no partial media', () => {
    const source = join(tmpdir(), `maqam-full-tone-${process.pid}.wav`);
    expect(spawnSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', '-f', 'lavfi', '-i', 'sine=frequency=440:duration=20', source]).status).toBe(0);
    mkdirSync(join(dir, 'media'), { recursive: true });
    // The refused import before this left its WAL grown to the full disk: checkpointed, the database opens with what it
    // has, and the media's own files are what meets the full disk.
    const db = new DatabaseSync(join(dir, 'maqam.db'));
    db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
    db.close();
    filler = fillDisk(dir);
    const result = cli(['media', 'add', 'song-ar', source]);
    rmSync(source, { force: true });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/no space left on device/i);
    const reader = new DatabaseSync(join(dir, 'maqam.db'));
    expect(reader.prepare("select count(*) as n from song_media where song_id = 'song-ar'").get()).toEqual({ n: 0 });
    reader.close();
    expect(spawnSync('find', [join(dir, 'media'), '-type', 'f'], { encoding: 'utf8' }).stdout).toBe('');
  });
});

const postgres = dialects.find((d) => d.name === 'postgres');

/** PostgreSQL refusing writes (a read-only database here; a full disk answers 53100 the same way): 503, not 500. */
describe.runIf(postgres)('a PostgreSQL database that refuses writes', () => {
  let database: { url: string; drop(): Promise<void> };
  let node: Node;

  beforeAll(async () => {
    database = await postgres!.create();
    node = await startNode(database.url);
  });
  afterAll(async () => {
    await node?.app.close();
    await node?.storage.close();
    await database?.drop();
  });

  async function readOnly(on: boolean) {
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    // The admin's own session starts read-only too once it is on: let this one write.
    await admin.query('set default_transaction_read_only = off');
    await admin.query(`alter database "${new URL(database.url).pathname.slice(1)}" set default_transaction_read_only = ${on ? 'on' : 'off'}`);
    await admin.end();
    // Pooled connections keep the setting they started with: start new ones.
    await node.app.close();
    await node.storage.close();
    const storage = openStorage(database.url);
    const config = loadConfig({ DATABASE_URL: database.url, MAQAM_SECRET: 'x'.repeat(40) });
    node = { ...node, storage, app: await buildApp({ config, storage, logger: { level: 'warn', stream: { write: (line: string) => node.logs.push(line) } } }) };
  }

  it('answers sign-in and token writes with 503 and Retry-After, and logs the cause', async () => {
    const before = await signIn(node);
    const pending = await signIn(node);
    const tokens = (await exchange(node, before.code!, before.verifier)).json() as { refresh_token: string };
    await readOnly(true);
    try {
      expectUnavailable((await signIn(node)).res);
      expectUnavailable(await exchange(node, pending.code!, pending.verifier));
      expectUnavailable(await refresh(node, tokens.refresh_token));
      expect(node.logs.join('\n')).toContain('read-only transaction');
    } finally {
      await readOnly(false);
    }
    expect((await exchange(node, pending.code!, pending.verifier)).statusCode).toBe(200);
    expect((await refresh(node, tokens.refresh_token)).statusCode).toBe(200);
  });
});
