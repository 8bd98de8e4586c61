import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

/** A backup's name: its UTC time to the second, so names sort as times do. */
const BACKUP_NAME = /^maqam-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}Z\.db$/;

/** `maqam-2026-11-28T13-45-00Z.db` for a backup taken at that instant (colons are not allowed in Windows file names). */
export function backupFileName(at: number): string {
  return `maqam-${new Date(at).toISOString().slice(0, 19).replace(/:/g, '-')}Z.db`;
}

/** Where a backup is written until it has been checked: a hidden name no listing or restore takes for a backup. */
export function partialFileName(name: string): string {
  return `.${name}.partial`;
}

/** The backups in `directory`, oldest first (file names only). */
export function listBackups(directory: string): string[] {
  let names: string[];
  try {
    names = readdirSync(directory);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  return names.filter((name) => BACKUP_NAME.test(name)).sort();
}

/** Deletes all but the newest `keep` backups of `directory`; answers the names deleted. */
export function pruneBackups(directory: string, keep: number): string[] {
  const backups = listBackups(directory);
  const deleted = backups.slice(0, Math.max(0, backups.length - keep));
  for (const name of deleted) rmSync(join(directory, name), { force: true });
  return deleted;
}
