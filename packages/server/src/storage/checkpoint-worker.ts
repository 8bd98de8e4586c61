// The thread of a SQLite Checkpointer (sqlite.ts): checkpoints one database file's WAL when asked, on a connection of its own.
import { DatabaseSync } from 'node:sqlite';
import { parentPort, workerData } from 'node:worker_threads';

const db = new DatabaseSync((workerData as { path: string }).path, { timeout: 60_000 });
parentPort!.on('message', () => {
  try {
    // PASSIVE: copies what no reader still needs, and never waits for the writer.
    db.exec('PRAGMA wal_checkpoint(PASSIVE)');
    parentPort!.postMessage({ ok: true });
  } catch (error) {
    parentPort!.postMessage({ ok: false, message: (error as Error).message });
  }
});
