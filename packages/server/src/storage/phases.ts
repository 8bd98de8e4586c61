import type { Compilable, CompiledQuery, Kysely } from 'kysely';
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
  /**
   * The last phase: these statements, then COMMIT (on PostgreSQL in the same
   * round trip). Their rows are not answered: a COMMIT whose answer was lost
   * is known to have committed (postgres.ts), not what its statements said.
   */
  commit(statements: readonly CompiledQuery[]): Promise<void>;
}

/** How a transaction of phases reads. */
export interface PhasesOptions {
  /**
   * Reads only, every one of them on one snapshot (PostgreSQL's repeatable
   * read; SQLite's transaction is one snapshot from its first read anyway).
   */
  readonly snapshot?: boolean;
}

/** Runs `work` as one transaction of phases; rolled back when it throws or ends without `commit`. */
export type InPhases = <T>(work: (phases: Phases) => Promise<T>, options?: PhasesOptions) => Promise<T>;

/** SQLite's phases: the statements of a controlled transaction, one after another. */
export function sqlitePhases(db: Kysely<Database>): InPhases {
  return async (work) => {
    const trx = await db.startTransaction().execute();
    let committed = false;
    /** A statement failed: as on PostgreSQL, whose failed batch ends its transaction, nothing more runs in it. */
    let failed = false;
    const run = async (statements: readonly CompiledQuery[]) => {
      if (failed || committed) throw new Error('phases: the transaction is over');
      const results: unknown[][] = [];
      try {
        for (const statement of statements) results.push((await trx.executeQuery(statement)).rows as unknown[]);
      } catch (error) {
        failed = true;
        throw error;
      }
      return results;
    };
    try {
      const result = await work({
        run,
        async commit(statements) {
          await run(statements);
          await trx.commit().execute();
          committed = true;
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

/** A statement read with, and what its rows say; none where the answer is known without asking (an empty list). */
export interface Read<T> {
  readonly statement: CompiledQuery | undefined;
  answer(rows: readonly unknown[]): T;
}

/** A read whose answer is known: no statement runs for it. */
export function answered<T>(value: T): Read<T> {
  return { statement: undefined, answer: () => value };
}

/** A read (Read) of `query`'s rows. */
export function read<Row, T>(query: Compilable<Row> | CompiledQuery<Row>, answer: (rows: Row[]) => T): Read<T> {
  return { statement: 'compile' in query ? query.compile() : query, answer: answer as (rows: readonly unknown[]) => T };
}

/** What reads answer, in their order. */
export type Answers<R extends readonly Read<unknown>[]> = { [K in keyof R]: R[K] extends Read<infer V> ? V : never };

/** The statements these reads ask, in order (an answered one asks none). */
export const statementsOf = (reads: readonly Read<unknown>[]): CompiledQuery[] => reads.flatMap((one) => (one.statement === undefined ? [] : [one.statement]));

/** The reads' answers, from the rows of their statements (statementsOf) in order. */
export function answersOf<R extends readonly Read<unknown>[]>(reads: R, rows: readonly unknown[][]): Answers<R> {
  let next = 0;
  return reads.map((one) => one.answer(one.statement === undefined ? [] : rows[next++]!)) as Answers<R>;
}
