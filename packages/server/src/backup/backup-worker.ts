// The thread of one SQLite backup (sqlite-backup.ts): copies the database through SQLite's online backup, from a
// read transaction of its own connection, then checks the copy. Nothing here waits on the server's event loop.
import { backup, DatabaseSync } from 'node:sqlite';
import { parentPort, workerData } from 'node:worker_threads';

export interface BackupJob {
  readonly source: string;
  readonly partial: string;
  readonly pagesPerStep: number;
}

export type BackupMessage =
  | { readonly kind: 'progress'; readonly copied: number; readonly total: number }
  | { readonly kind: 'done'; readonly pages: number }
  | { readonly kind: 'failed'; readonly message: string };

const { source, partial, pagesPerStep } = workerData as BackupJob;
const post = (message: BackupMessage) => parentPort!.postMessage(message);

try {
  // Waiting here waits on this thread only: SQLite's busy handler is fine off the event loop.
  const db = new DatabaseSync(source, { timeout: 30_000 });
  let pages: number;
  try {
    // A read transaction held for the whole copy: in WAL mode it sees one snapshot while the server keeps writing, so
    // the copy is of one instant and the backup never starts again (SQLite restarts a backup whose source another
    // connection changed between two steps, unless the source's connection still reads the snapshot it began with).
    db.exec('BEGIN');
    db.prepare('SELECT count(*) FROM sqlite_schema').get();
    pages = await backup(db, partial, {
      rate: pagesPerStep,
      progress: ({ totalPages, remainingPages }) => post({ kind: 'progress', copied: totalPages - remainingPages, total: totalPages }),
    });
    db.exec('COMMIT');
  } finally {
    db.close();
  }
  const copy = new DatabaseSync(partial);
  try {
    const problems = (copy.prepare('PRAGMA integrity_check').all() as { integrity_check: string }[]).map((row) => row.integrity_check);
    if (problems.length !== 1 || problems[0] !== 'ok') throw new Error(`the copy failed PRAGMA integrity_check: ${problems.slice(0, 5).join('; ')}`);
    // One self-contained file: no -wal beside it to lose when it is copied elsewhere.
    copy.exec('PRAGMA journal_mode = DELETE');
  } finally {
    copy.close();
  }
  post({ kind: 'done', pages });
} catch (error) {
  post({ kind: 'failed', message: (error as Error).message });
}
