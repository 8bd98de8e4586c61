import { existsSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';

/** Tables whose rows are someone's data: a database holding any is not empty, and a restore over it needs --force. */
const DATA_TABLES = ['users', 'artists', 'albums', 'songs', 'shows', 'movies', 'playlists', 'play_history', 'api_keys', 'oauth_clients'] as const;
/** What every Maqam database has, from its first migration on. */
const MAQAM_TABLES = ['kysely_migration', 'settings', 'artists', 'songs'];

export class NotABackupError extends Error {
  override name = 'NotABackupError';
}

function tablesOf(db: DatabaseSync): Set<string> {
  return new Set((db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'").all() as { name: string }[]).map((row) => row.name));
}

/**
 * Checks that `file` is a whole Maqam database: SQLite opens it, PRAGMA
 * integrity_check passes, and it has Maqam's tables and migration record.
 * Answers the migrations it was made by; throws NotABackupError saying what is wrong.
 */
export function checkBackupFile(file: string): string[] {
  if (!existsSync(file)) throw new NotABackupError(`there is no file ${file}`);
  let db: DatabaseSync;
  try {
    db = new DatabaseSync(file, { readOnly: true });
  } catch (error) {
    throw new NotABackupError(`${file} is not a SQLite database (${(error as Error).message})`);
  }
  try {
    let problems: string[];
    try {
      problems = (db.prepare('PRAGMA integrity_check').all() as { integrity_check: string }[]).map((row) => row.integrity_check);
    } catch (error) {
      throw new NotABackupError(`${file} is damaged or not a SQLite database (${(error as Error).message})`);
    }
    if (problems.length !== 1 || problems[0] !== 'ok') throw new NotABackupError(`${file} is damaged: PRAGMA integrity_check says ${problems.slice(0, 5).join('; ')}`);
    const tables = tablesOf(db);
    const missing = MAQAM_TABLES.filter((table) => !tables.has(table));
    if (missing.length > 0) throw new NotABackupError(`${file} is not a Maqam database: it has no ${missing.join(', ')} table`);
    return (db.prepare('SELECT name FROM kysely_migration ORDER BY name').all() as { name: string }[]).map((row) => row.name);
  } finally {
    db.close();
  }
}

/** The rows of someone's data a SQLite database holds, by table (those with any); empty for a missing file or a fresh database. */
export function dataHeld(file: string): Record<string, number> {
  if (!existsSync(file)) return {};
  const db = new DatabaseSync(file, { timeout: 5000 });
  try {
    const tables = tablesOf(db);
    const held: Record<string, number> = {};
    for (const table of DATA_TABLES) {
      if (!tables.has(table)) continue;
      const { count } = db.prepare(`SELECT count(*) AS count FROM ${table}`).get() as { count: number };
      if (count > 0) held[table] = count;
    }
    return held;
  } finally {
    db.close();
  }
}
