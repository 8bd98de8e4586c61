import { existsSync, mkdirSync, openSync, fsyncSync, closeSync, renameSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { BackupJob, BackupMessage } from './backup-worker.ts';
import { backupFileName, partialFileName } from './backup-files.ts';

/** Pages copied between two progress reports: 4 MB of 4 KB pages, a fraction of a second of copying. */
const PAGES_PER_STEP = 1024;

/**
 * What to use on PostgreSQL instead: its own tools know its storage, its WAL
 * and its versions; a copy made by Maqam would know less. The README's
 * operations section shows the commands.
 */
export const POSTGRES_BACKUP_ADVICE =
  'maqam backup copies SQLite databases only. On PostgreSQL use its own tools: pg_dump -Fc for a logical backup (restore it with pg_restore), '
  + 'or pg_basebackup with WAL archiving (archive_mode, archive_command) for point-in-time recovery. The README\'s operations section shows both.';

export class BackupError extends Error {
  override name = 'BackupError';
}

export interface BackupTaken {
  /** The backup file's full path. */
  readonly path: string;
  readonly bytes: number;
  readonly pages: number;
}

export interface BackupOptions {
  /** The SQLite database file. */
  readonly databaseFile: string;
  readonly directory: string;
  /** When it is taken: its name. */
  readonly at: number;
  /** Told after each step: pages copied of the total. */
  readonly onProgress?: (copied: number, total: number) => void;
}

/**
 * Backs a SQLite database up while it is used: SQLite's online backup on a
 * thread of its own, from one read snapshot (every write committed before
 * it began, none after), into a hidden file beside the backups; kept
 * (synced, then renamed to `maqam-<UTC time>.db`) only once PRAGMA
 * integrity_check passes on the copy. Never a file copy: one taken while
 * the server writes may hold half a transaction, or miss what is still in
 * the WAL.
 */
export async function backupSqliteDatabase({ databaseFile, directory, at, onProgress }: BackupOptions): Promise<BackupTaken> {
  if (!existsSync(databaseFile)) throw new BackupError(`there is no database at ${resolve(databaseFile)}`);
  mkdirSync(directory, { recursive: true });
  const name = backupFileName(at);
  const path = join(directory, name);
  if (existsSync(path)) throw new BackupError(`${path} already exists: a backup was taken this second`);
  const partial = join(directory, partialFileName(name));
  try {
    const pages = await runBackupThread({ source: databaseFile, partial, pagesPerStep: PAGES_PER_STEP }, onProgress);
    syncFile(partial);
    renameSync(partial, path);
    syncFile(directory);
    return { path: resolve(path), bytes: statSync(path).size, pages };
  } finally {
    rmSync(partial, { force: true });
  }
}

function runBackupThread(job: BackupJob, onProgress: BackupOptions['onProgress']): Promise<number> {
  return new Promise((resolvePages, reject) => {
    const worker = new Worker(new URL('./backup-worker.ts', import.meta.url), { workerData: job });
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      outcome();
      void worker.terminate();
    };
    worker.on('message', (message: BackupMessage) => {
      if (message.kind === 'progress') onProgress?.(message.copied, message.total);
      else if (message.kind === 'done') settle(() => resolvePages(message.pages));
      else settle(() => reject(new BackupError(`the backup failed: ${message.message}`)));
    });
    worker.on('error', (error) => settle(() => reject(error)));
    worker.on('exit', () => settle(() => reject(new BackupError('the backup thread exited before it finished'))));
  });
}

/** Writes a file's (or a directory's entries') data to the disk, so a rename after it never names a file the disk does not hold. */
function syncFile(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
