import { sql } from 'kysely';
import type { Checkpointer } from './sqlite.ts';
import type { Storage } from './storage.ts';

/**
 * Batches of at least this many records have the WAL checkpointed on another
 * thread (storage/sqlite.ts Checkpointer): on the 1M import, checkpoints at
 * commit took about 11 s of the importing thread. Imports of smaller batches
 * keep SQLite's own checkpoints.
 */
const BACKGROUND_CHECKPOINT_RECORDS = 5_000;

/** A bulk write's WAL checkpoints (an import's), moved to another thread once a batch is large enough (SQLite files only). */
export class BackgroundCheckpoints {
  readonly #storage: Storage;
  #checkpointer: Checkpointer | undefined;

  constructor(storage: Storage) {
    this.#storage = storage;
  }

  /** Before a batch's transaction: the last checkpoint is done, so the batch starts the WAL again from its beginning. */
  async beforeWrite(records: number): Promise<void> {
    if (this.#checkpointer === undefined && records >= BACKGROUND_CHECKPOINT_RECORDS && this.#storage.checkpointer) {
      this.#checkpointer = this.#storage.checkpointer();
      await sql`pragma wal_autocheckpoint = 0`.execute(this.#storage.db);
    }
    await this.settled();
  }

  /** The checkpoint asked for last is done. */
  async settled(): Promise<void> {
    await this.#checkpointer?.settled();
  }

  /** After a commit: checkpoint it while the import reads its next batch. */
  afterCommit(): void {
    this.#checkpointer?.request();
  }

  /** The import is over (or failed): SQLite's own checkpoints again, from the next commit. */
  async end(): Promise<void> {
    if (this.#checkpointer === undefined) return;
    await this.#checkpointer.close();
    await sql`pragma wal_autocheckpoint = 1000`.execute(this.#storage.db);
  }
}
