import type { Db } from '../storage/database.ts';

/** The settings row that holds when the next scheduled backup is due (Unix ms, as text). */
const NEXT_DUE = 'backup_next_due';

/**
 * The schedule's one row, shared by every process on the database: when the
 * next backup is due. A process takes a due backup by moving the time on
 * with a conditional UPDATE (only if it still holds the time it read), so
 * of several processes that find it due at once, exactly one changes the row
 * and takes that backup; the others change nothing and go on serving.
 */
export function createBackupLeaseRepo(db: Db) {
  return {
    async nextDue(): Promise<number | undefined> {
      const row = await db.selectFrom('settings').select('value').where('key', '=', NEXT_DUE).executeTakeFirst();
      return row === undefined ? undefined : Number(row.value);
    },

    /** Sets the first due time, unless another process has already. */
    async start(due: number): Promise<void> {
      await db.insertInto('settings').values({ key: NEXT_DUE, value: String(due) }).onConflict((oc) => oc.column('key').doNothing()).execute();
    },

    /** Moves the due time from `due` to `next`; true for the one caller that did. */
    async claim(due: number, next: number): Promise<boolean> {
      const result = await db.updateTable('settings').set({ value: String(next) }).where('key', '=', NEXT_DUE).where('value', '=', String(due)).executeTakeFirst();
      return result.numUpdatedRows === 1n;
    },
  };
}

export type BackupLeaseRepo = ReturnType<typeof createBackupLeaseRepo>;
