import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { dialects } from '../../server/test/dialects.ts';
import { startTestServer, type TestServer } from '../../server/test/harness.ts';
import { asUser, libraryUser, songIds } from '../../server/test/library/library-helpers.ts';
import { runCli, runCliJson } from './run-cli.ts';

/**
 * The operator's side of issue 57: `maqam backup` and `maqam restore` on
 * SQLite, what they say on PostgreSQL, and `maqam users export`, which
 * writes the very document GET /v1/users/me/export streams to the user.
 */
describe.each(dialects.map((d) => [d.name, d] as const))('backup, restore and users export with the CLI on %s', (name, dialect) => {
  let server: TestServer;
  let dir: string;
  let env: Record<string, string>;
  let user: Awaited<ReturnType<typeof libraryUser>>;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'maqam-cli-backup-'));
    server = await startTestServer(dialect, { MAQAM_RATE_LIMIT: '0' });
    env = { DATABASE_URL: server.databaseUrl, LOG_LEVEL: 'silent' };
    user = await libraryUser(server);
    const call = asUser(server, user.write);
    expect((await call('POST', '/v1/library/saved:batchAdd', { songIdList: songIds('song-ar', 'song-fr') })).statusCode).toBe(200);
    expect((await call('POST', '/v1/library/history:report', { plays: [{ playId: 'p-1', songId: { value: 'song-en' }, startedAt: new Date().toISOString(), msPlayed: 60_000 }] })).statusCode).toBe(200);
    expect((await call('POST', '/v1/playlists', { name: 'ليالي', songIdList: songIds('song-ar', 'song-ar') })).statusCode).toBe(201);
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('users export writes the document the API answers the user', async () => {
    const file = join(dir, `export-${name}.json`);
    const written = await runCliJson(env, ['users', 'export', user.user.username.toUpperCase(), '--out', file]);
    expect(written).toEqual({ username: user.user.username, file, bytes: readFileSync(file).length });
    const fromCli = JSON.parse(readFileSync(file, 'utf8'));
    const fromApi = (await asUser(server, user.read)('GET', '/v1/users/me/export', undefined, { 'accept-language': 'ar' })).json();
    expect({ ...fromCli, exportedAt: undefined }).toEqual({ ...fromApi, exportedAt: undefined });
    expect(fromCli.savedSongs.map((saved: { title: string }) => saved.title).sort()).toEqual(['الليل', 'تملي معاك']);
    const unknown = await runCli(env, ['users', 'export', 'nobody-here']);
    expect([unknown.code, unknown.stderr]).toEqual([1, expect.stringContaining('no user "nobody-here"')]);
  });

  it.runIf(name === 'sqlite')('backup keeps a checked copy named by its time; restore brings it back into an empty database and refuses one with data', async () => {
    const backups = join(dir, 'backups');
    const taken = await runCliJson(env, ['backup', '--to', backups]);
    expect(basename(taken.path)).toMatch(/^maqam-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}Z\.db$/);
    expect(existsSync(taken.path)).toBe(true);
    expect(taken.bytes).toBeGreaterThan(0);

    const target = { ...env, DATABASE_URL: `sqlite:${join(dir, 'restored', 'maqam.db')}` };
    const restored = await runCli(target, ['restore', taken.path]);
    expect(restored.code, restored.stderr).toBe(0);
    expect(restored.stdout).toMatch(/^restored .* into .*maqam\.db: \d+ users, 1 playlists, 1 plays; already at this release\n$/);
    const again = await runCli(target, ['restore', taken.path]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/holds data \(.*\); restoring would replace it\. Add --force/);
    expect(await runCliJson(target, ['restore', taken.path, '--force'])).toMatchObject({ playlists: 1, plays: 1, migrated: [] });
  });

  it.runIf(name === 'postgres')('backup and restore say plainly what to use on PostgreSQL', async () => {
    const backup = await runCli(env, ['backup']);
    expect(backup.code).toBe(1);
    expect(backup.stderr).toMatch(/pg_dump -Fc.*pg_basebackup with WAL archiving/s);
    const restore = await runCli(env, ['restore', join(dir, 'dump.pgdump')]);
    expect(restore.code).toBe(1);
    expect(restore.stderr).toContain('pg_restore');
  });
});
