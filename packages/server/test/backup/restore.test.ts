import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeSync, copyFileSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { Migrator } from 'kysely';
import { openStorage } from '@maqam/server';
import { migrations } from '../../src/storage/migrations/index.ts';
import { backupSqliteDatabase, NotABackupError, restoreSqliteBackup, RestoreRefusedError } from '../../src/backup/operations.ts';

/** The release before this one: its last migration. */
const PREVIOUS_RELEASE = '020-video-streams';

/**
 * Restore (issue 57, item 2): a backup made by the previous release's
 * migrations is checked, migrated forward and restored, and says what it
 * brought back; a database that holds data is not overwritten unless told;
 * a file that is not a whole Maqam database is refused before anything is
 * touched.
 */
describe('restoring a SQLite backup', () => {
  let dir: string;
  let oldBackup: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'maqam-restore-'));
    const storage = openStorage(`sqlite:${join(dir, 'old.db')}`);
    try {
      expect((await new Migrator({ db: storage.db, provider: migrations }).migrateTo(PREVIOUS_RELEASE)).error).toBeUndefined();
      // Rows as that release wrote them (its columns: no roles yet).
      await storage.db.insertInto('users').values(['layla', 'omar'].map((name, i) => ({ id: `u-${i}`, username: name, username_key: name, password_hash: 'x', created_at: i })) as never).execute();
      await storage.db.insertInto('playlists').values({
        id: 'p-1', owner_id: 'u-0', name: 'سهرة', description: '', visibility: 'PLAYLIST_VISIBILITY_PRIVATE', created_at: 1, updated_at: 1, version: 1, item_count: 0,
        total_duration_ms: 0, cover_album_ids: '[]',
      } as never).execute();
      await storage.db.insertInto('play_history').values([0, 1, 2].map((i) => ({
        user_id: 'u-1', play_id: `play-${i}`, song_id: 'song-ar', started_at: i, ms_played: 40_000, counted: 1, context: '{"albumId":{"value":"album-1"}}',
      }))).execute();
    } finally {
      await storage.close();
    }
    oldBackup = (await backupSqliteDatabase({ databaseFile: join(dir, 'old.db'), directory: join(dir, 'backups'), at: Date.parse('2026-11-28T13:45:00Z') })).path;
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('migrates a backup of the previous release forward, and says what it restored', async () => {
    const target = join(dir, 'new', 'maqam.db');
    const restored = await restoreSqliteBackup({ file: oldBackup, databaseUrl: `sqlite:${target}`, force: false });
    expect(restored).toMatchObject({ users: 2, playlists: 1, plays: 3, database: target, migrated: ['021-developer-keys', '022-video-title-templates'] });
    expect(restored.backupMigrations.at(-1)).toBe(PREVIOUS_RELEASE);
    const db = new DatabaseSync(target);
    try {
      expect(db.prepare('PRAGMA integrity_check').all()).toEqual([{ integrity_check: 'ok' }]);
      expect(db.prepare('select username, roles from users order by id').all()).toEqual([{ username: 'layla', roles: '' }, { username: 'omar', roles: '' }]);
      expect((db.prepare('select name from kysely_migration order by name desc limit 1').get() as { name: string }).name).toBe('022-video-title-templates');
    } finally {
      db.close();
    }
    // The backup itself is left as it was.
    expect(restored.backupMigrations).not.toContain('021-developer-keys');
  });

  it('refuses to overwrite a database that holds data, unless forced', async () => {
    const target = join(dir, 'busy', 'maqam.db');
    await restoreSqliteBackup({ file: oldBackup, databaseUrl: `sqlite:${target}`, force: false });
    const db = new DatabaseSync(target);
    db.exec("delete from play_history where play_id = 'play-0'");
    db.close();
    await expect(restoreSqliteBackup({ file: oldBackup, databaseUrl: `sqlite:${target}`, force: false })).rejects.toThrow(RestoreRefusedError);
    await expect(restoreSqliteBackup({ file: oldBackup, databaseUrl: `sqlite:${target}`, force: false })).rejects.toThrow(/holds data \(2 users, 1 playlists, 2 play_history\).*--force/);
    expect(await restoreSqliteBackup({ file: oldBackup, databaseUrl: `sqlite:${target}`, force: true })).toMatchObject({ plays: 3 });
  });

  it('refuses a file that is not a whole Maqam database, before touching the target', async () => {
    const target = join(dir, 'untouched', 'maqam.db');
    const text = join(dir, 'notes.txt');
    writeFileSync(text, 'not a database at all, but long enough to be read as a header by SQLite '.repeat(20));
    await expect(restoreSqliteBackup({ file: text, databaseUrl: `sqlite:${target}`, force: false })).rejects.toThrow(NotABackupError);

    const other = join(dir, 'other.db');
    const db = new DatabaseSync(other);
    db.exec('create table notes (text)');
    db.close();
    await expect(restoreSqliteBackup({ file: other, databaseUrl: `sqlite:${target}`, force: false })).rejects.toThrow(/not a Maqam database: it has no kysely_migration, settings, artists, songs table/);

    const damaged = join(dir, 'damaged.db');
    copyFileSync(oldBackup, damaged);
    const fd = openSync(damaged, 'r+');
    writeSync(fd, Buffer.alloc(4096, 0xa5), 0, 4096, 4 * 4096);
    closeSync(fd);
    await expect(restoreSqliteBackup({ file: damaged, databaseUrl: `sqlite:${target}`, force: false })).rejects.toThrow(/damaged/);
    expect(() => new DatabaseSync(target, { readOnly: true })).toThrow();
  });

  it('says what to use for PostgreSQL', async () => {
    await expect(restoreSqliteBackup({ file: oldBackup, databaseUrl: 'postgres://127.0.0.1/x', force: false })).rejects.toThrow(/pg_restore/);
  });
});
