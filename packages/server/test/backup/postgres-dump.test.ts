import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp, loadConfig, openStorage, prepareDatabase, type Storage } from '@maqam/server';
import type { FastifyInstance } from 'fastify';
import { dialects } from '../dialects.ts';
import { startTestServer, type TestServer } from '../harness.ts';
import { asUser, libraryUser, songIds } from '../library/library-helpers.ts';

const postgres = dialects.find((dialect) => dialect.name === 'postgres');

/** A PostgreSQL client program, failing with what it said. */
function run(program: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let said = '';
    child.stderr.on('data', (chunk) => (said += chunk));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${program} exited with ${code}: ${said}`))));
  });
}

/**
 * On PostgreSQL, `maqam backup` and `maqam restore` point to PostgreSQL's own
 * tools (README, "Backups, restore, and each user's data"). What the README
 * tells an operator to run, run here: `pg_dump -Fc` while a node serves and
 * writes, then `pg_restore --no-owner` into a new database, and a node on it.
 * People's data comes back whole and consistent, and what they held before
 * (a signed-in token) still works.
 */
describe.runIf(postgres)('backing up PostgreSQL with pg_dump while a node writes, and restoring with pg_restore', () => {
  let server: TestServer;
  let dir: string;
  let restoredDatabase: { url: string; drop(): Promise<void> } | undefined;
  let restoredStorage: Storage | undefined;
  let restored: FastifyInstance | undefined;

  beforeAll(async () => {
    expect(spawnSync('pg_dump', ['--version']).status, 'pg_dump (Debian\'s postgresql-client) is installed').toBe(0);
    server = await startTestServer(postgres!);
    dir = mkdtempSync(join(tmpdir(), 'maqam-pg-dump-'));
  });
  afterAll(async () => {
    await restored?.close();
    await restoredStorage?.close();
    await restoredDatabase?.drop();
    await server?.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('restores every user\'s library and playlists as of one moment, each playlist whole, and their sign-ins still work', async () => {
    const listener = await libraryUser(server);
    const call = asUser(server, listener.write);
    expect((await call('POST', '/v1/library/saved:batchAdd', { songIdList: songIds('song-ar', 'song-en') })).statusCode).toBe(200);
    const made = await call('POST', '/v1/playlists', { name: 'سهرة', song_id_list: songIds('song-ar') });
    expect(made.statusCode, made.body).toBe(201);
    const playlist = made.json().playlist.id.value as string;

    // The dump runs while the node adds to the playlist, one request after another.
    const file = join(dir, 'maqam.pgdump');
    let dumping = true;
    const dumped = run('pg_dump', ['-Fc', '-d', server.databaseUrl, '-f', file]).finally(() => (dumping = false));
    let added = 0;
    while (dumping) {
      const add = await call('POST', `/v1/playlists/${playlist}/items:batchAdd`, { songIdList: songIds(added % 2 === 0 ? 'song-en' : 'song-ar') });
      expect(add.statusCode, add.body).toBe(200);
      added++;
    }
    await dumped;
    // The dump lasted while adds were answered: what it holds is one moment among them.
    expect(added).toBeGreaterThanOrEqual(2);
    // And once more after it: not in the backup.
    expect((await call('POST', '/v1/playlists', { name: 'after the backup' })).statusCode).toBe(201);

    restoredDatabase = await postgres!.create();
    await run('pg_restore', ['--no-owner', '-d', restoredDatabase.url, file]);
    restoredStorage = openStorage(restoredDatabase.url);
    await prepareDatabase(restoredStorage);
    restored = await buildApp({ config: loadConfig({ DATABASE_URL: restoredDatabase.url, MAQAM_SECRET: 'x'.repeat(40) }), storage: restoredStorage, logger: false });
    const there = (url: string) => restored!.inject({ method: 'GET', url, headers: { authorization: `Bearer ${listener.write}`, 'accept-language': 'en' } });

    // The token issued before the backup is honoured by the restored node.
    const saved = await there('/v1/library/saved?types=song');
    expect(saved.statusCode, saved.body).toBe(200);
    expect(saved.json().items.map((item: { song: { id: { value: string } } }) => item.song.id.value).sort()).toEqual(['song-ar', 'song-en']);
    const playlists = await there('/v1/playlists');
    expect(playlists.json().playlists.map((one: { name: { value: string } }) => one.name.value)).toEqual(['سهرة']);
    // Whole: its count and version are those of the entries it holds, the adds taken up to one moment and none after.
    const [kept] = playlists.json().playlists as { itemCount: number; version: string }[];
    const items = await there(`/v1/playlists/${playlist}/items?page_size=100`);
    expect(items.statusCode, items.body).toBe(200);
    const entries = items.json().items as { song: { id: { value: string } } }[];
    expect(entries.length).toBe(kept!.itemCount);
    if (process.env.SHOW_OUTCOMES) console.log(`adds while dumping: ${added}; in the backup: ${kept!.itemCount - 1}`);
    expect(kept!.itemCount).toBeGreaterThanOrEqual(1);
    expect(kept!.itemCount).toBeLessThanOrEqual(1 + added);
    expect(entries.map((entry) => entry.song.id.value)).toEqual(['song-ar', ...Array.from({ length: kept!.itemCount - 1 }, (_, i) => (i % 2 === 0 ? 'song-en' : 'song-ar'))]);
    expect(Number(kept!.version)).toBe(kept!.itemCount);
  });
});
