import { resolve } from 'node:path';
import {
  backupSqliteDatabase, BackupError, NotABackupError, POSTGRES_BACKUP_ADVICE, restoreSqliteBackup, RestoreRefusedError, type Config,
} from '@maqam/server';
import { describeDatabase } from '../context.ts';
import { progressMeter, UsageError, type Output } from '../output.ts';

/** A page is 4 KB (SQLite's default): what the progress bar counts in, shown as megabytes. */
const PAGE_BYTES = 4096;

/** Refusals the operator acts on: said plainly, exit code 1. */
function refused(out: Output, error: unknown): number {
  if (error instanceof BackupError || error instanceof NotABackupError || error instanceof RestoreRefusedError) {
    out.info(`maqam: ${error.message}`);
    return 1;
  }
  throw error;
}

/**
 * `maqam backup [--to DIR]`: a consistent copy of the SQLite database taken
 * while servers use it, checked, kept as `maqam-<UTC time>.db`. On
 * PostgreSQL it says what to use instead and exits 1.
 */
export async function backup(config: Config, out: Output, flags: { to?: string }): Promise<number> {
  if (!config.databaseUrl.startsWith('sqlite:')) {
    out.info(`maqam: ${POSTGRES_BACKUP_ADVICE}`);
    return 1;
  }
  const directory = flags.to ?? config.backupDirectory;
  out.info(`database: ${describeDatabase(config.databaseUrl)}`);
  const meter = progressMeter('MB');
  try {
    const taken = await backupSqliteDatabase({
      databaseFile: config.databaseUrl.slice('sqlite:'.length),
      directory,
      at: Date.now(),
      onProgress: (copied, total) => out.progress(copied / total, meter(Math.round((copied * PAGE_BYTES) / 1e6), copied / total)),
    });
    out.done();
    out.record(taken, () => `backed up to ${taken.path} (${(taken.bytes / 1e6).toFixed(1)} MB, integrity checked)`);
    return 0;
  } catch (error) {
    out.done();
    return refused(out, error);
  }
}

/**
 * `maqam restore FILE [--force]`: the backup checked, migrated forward to
 * this release, and copied into DATABASE_URL's SQLite database (which must
 * hold no data unless --force); then what it restored.
 */
export async function restore(config: Config, out: Output, file: string | undefined, flags: { force?: boolean }): Promise<number> {
  if (file === undefined) throw new UsageError('restore needs the backup FILE: maqam restore FILE [--force]');
  out.info(`database: ${describeDatabase(config.databaseUrl)}`);
  try {
    const restored = await restoreSqliteBackup({ file: resolve(file), databaseUrl: config.databaseUrl, force: flags.force === true });
    const migrated = restored.migrated.length === 0 ? 'already at this release' : `migrated forward by ${restored.migrated.length} migration${restored.migrated.length === 1 ? '' : 's'} (${restored.migrated.join(', ')})`;
    out.record(restored, () =>
      `restored ${file} into ${restored.database}: ${restored.users.toLocaleString('en')} users, ${restored.playlists.toLocaleString('en')} playlists, `
      + `${restored.plays.toLocaleString('en')} plays; ${migrated}`);
    return 0;
  } catch (error) {
    return refused(out, error);
  }
}
