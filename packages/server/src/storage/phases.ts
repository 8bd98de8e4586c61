import type { CompiledQuery, Kysely } from 'kysely';
import type { Database } from './database.ts';

/**
 * A transaction made of phases: each phase's statements are sent together
 * and run in order, each seeing what those before it did. On PostgreSQL a
 * phase is one round trip (one Sync, postgres.ts); on SQLite, in the process,
 * they simply run one after another. A write whose statements need only what
 * its earlier phases answered thus costs its phases' round trips, not its
 * statements' (issue 56: a library write across a network).
 */
export interface Phases {
  /** Runs these statements, beginning the transaction with the first phase; answers each one's rows, in order. */
  run(statements: readonly CompiledQuery[]): Promise<unknown[][]>;
  /** The last phase: these statements, then COMMIT (on PostgreSQL in the same round trip). */
  commit(statements: readonly CompiledQuery[]): Promise<unknown[][]>;
}

/** Runs `work` as one transaction of phases; rolled back when it throws or ends without `commit`. */
export type InPhases = <T>(work: (phases: Phases) => Promise<T>) => Promise<T>;

/** SQLite's phases: the statements of a controlled transaction, one after another. */
export function sqlitePhases(db: Kysely<Database>): InPhases {
  return async (work) => {
    const trx = await db.startTransaction().execute();
    let committed = false;
    const run = async (statements: readonly CompiledQuery[]) => {
      const results: unknown[][] = [];
      for (const statement of statements) results.push((await trx.executeQuery(statement)).rows as unknown[]);
      return results;
    };
    try {
      const result = await work({
        run,
        async commit(statements) {
          const results = await run(statements);
          await trx.commit().execute();
          committed = true;
          return results;
        },
      });
      if (!committed) await trx.rollback().execute();
      return result;
    } catch (error) {
      if (!committed) await trx.rollback().execute().catch(() => {});
      throw error;
    }
  };
}
