import { mkdirSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { dirname, join, resolve } from 'node:path';
import { backup, DatabaseSync } from 'node:sqlite';
import { prepareDatabase } from '../prepare-database.ts';
import { openStorage } from '../storage/storage.ts';
import { countRestored, type RestoredCounts } from './restored.repo.ts';
import { BackupError } from './sqlite-backup.ts';
import { checkBackupFile, dataHeld } from './sqlite-files.ts';

export const POSTGRES_RESTORE_ADVICE =
  'maqam restore restores SQLite backups only. On PostgreSQL restore with its own tools: pg_restore -d DATABASE dump.pgdump for a pg_dump -Fc backup, '
  + 'or a base backup and its archived WAL (restore_command) for point-in-time recovery. The README\'s operations section shows both.';

/** One step copies every page (SQLite's -1, which node:sqlite does not take). */
const ALL_PAGES = 2 ** 31 - 1;

/** A restore that would overwrite someone's data, asked without --force. */
export class RestoreRefusedError extends Error {
  override name = 'RestoreRefusedError';
}

export interface RestoreSummary extends RestoredCounts {
  /** The database restored into (its full path). */
  readonly database: string;
  /** The migrations the backup was made by, and those applied to bring it to this release. */
  readonly backupMigrations: readonly string[];
  readonly migrated: readonly string[];
}

/**
 * Restores a backup (`maqam backup`'s file, or any Maqam SQLite database)
 * into the SQLite database `databaseUrl` names. The file is checked
 * (integrity, a Maqam database), copied aside and migrated forward there
 * when an older release made it, and only then copied into the target
 * through SQLite's backup (never a file copy: the target's WAL and locks are
 * SQLite's to handle). A target that holds data is refused unless `force`.
 * Stop the servers on the database first.
 */
export async function restoreSqliteBackup({ file, databaseUrl, force }: { file: string; databaseUrl: string; force: boolean }): Promise<RestoreSummary> {
  if (!databaseUrl.startsWith('sqlite:')) throw new BackupError(POSTGRES_RESTORE_ADVICE);
  const target = databaseUrl.slice('sqlite:'.length);
  if (target === ':memory:') throw new BackupError('DATABASE_URL names an in-memory database: there is nothing to restore into');
  const backupMigrations = checkBackupFile(file);
  const held = dataHeld(target);
  if (Object.keys(held).length > 0 && !force) {
    const what = Object.entries(held).map(([table, count]) => `${count.toLocaleString('en')} ${table}`).join(', ');
    throw new RestoreRefusedError(`${resolve(target)} holds data (${what}); restoring would replace it. Add --force to replace it, or point DATABASE_URL at an empty database`);
  }
  mkdirSync(dirname(resolve(target)), { recursive: true });
  const staging = join(dirname(resolve(target)), `.maqam-restore-${randomBytes(6).toString('hex')}.db`);
  try {
    await copyDatabase(file, staging, { readOnly: true });
    const storage = openStorage(`sqlite:${staging}`);
    let migrated: string[];
    let counts: RestoredCounts;
    try {
      ({ migrations: migrated } = await prepareDatabase(storage));
      counts = await countRestored(storage.db);
    } finally {
      await storage.close();
    }
    await copyDatabase(staging, target, { readOnly: false });
    return { database: resolve(target), backupMigrations, migrated, ...counts };
  } finally {
    for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(`${staging}${suffix}`, { force: true });
  }
}

/** Copies a whole database through SQLite's backup, in one step: nothing else writes either file meanwhile. */
async function copyDatabase(from: string, to: string, { readOnly }: { readOnly: boolean }): Promise<void> {
  const source = new DatabaseSync(from, { readOnly });
  try {
    await backup(source, to, { rate: ALL_PAGES });
  } finally {
    source.close();
  }
}
