import type { CompiledQuery, Insertable, Kysely } from 'kysely';
import type { Database } from './database.ts';

type Table = keyof Database;

// Bound parameters per statement: SQLite allows 32766, PostgreSQL 65535.
const MAX_PARAMETERS = 30_000;

/**
 * Inserts rows, updating every non-key column from the new row when the key
 * exists (an upsert). Kysely would build and compile a statement of tens of
 * thousands of parameters for every chunk; here each statement is compiled
 * once per (table, columns, conflict keys, size) and only its parameters
 * change, which was most of the time a large import spent outside the
 * database.
 */
export function createBulkUpsert(db: Kysely<Database>) {
  const compiled = new Map<string, CompiledQuery>();

  function compile<T extends Table>(executor: Kysely<Database>, table: T, columns: string[], keys: readonly string[], rows: Insertable<Database[T]>[]): CompiledQuery {
    const updated = columns.filter((c) => !keys.includes(c));
    // Rows and columns are checked by the caller's types; the builder is used untyped to stay generic over tables.
    const query = (executor as Kysely<any>)
      .insertInto(table)
      .values(rows)
      .onConflict((oc) => {
        const target = oc.columns(keys as string[]);
        return updated.length === 0
          ? target.doNothing()
          : target.doUpdateSet(Object.fromEntries(updated.map((c) => [c, (eb: any) => eb.ref(`excluded.${c}`)])) as any);
      });
    return query.compile();
  }

  /** A statement for `rows.length` rows: compiled once per (table, columns, conflict keys, size), with only its parameters new. */
  function statementFor<T extends Table>(executor: Kysely<Database>, table: T, columns: string[], keys: readonly string[], rows: Insertable<Database[T]>[]): CompiledQuery {
    const cacheKey = `${table}\u0000${columns.join(',')}\u0000${keys.join(',')}\u0000${rows.length}`;
    let template = compiled.get(cacheKey);
    if (template === undefined) compiled.set(cacheKey, (template = compile(executor, table, columns, keys, rows)));
    const parameters: unknown[] = new Array(rows.length * columns.length);
    let i = 0;
    for (const row of rows) for (const column of columns) parameters[i++] = (row as Record<string, unknown>)[column];
    if (parameters.length !== template.parameters.length) throw new Error(`bulk upsert of ${table}: parameter count changed`);
    return { ...template, parameters };
  }

  return async function upsert<T extends Table>(
    executor: Kysely<Database>,
    table: T,
    keys: readonly (keyof Database[T] & string)[],
    rows: Insertable<Database[T]>[],
  ): Promise<void> {
    if (rows.length === 0) return;
    const columns = Object.keys(rows[0]!);
    const chunkSize = Math.max(1, Math.floor(MAX_PARAMETERS / columns.length));
    // Full chunks, then what is left in power-of-two sizes, largest first: a load of many batches uses a
    // few statement sizes per table, each compiled and prepared once, instead of a new one for every
    // batch's last chunk (Kysely's compile of thousands of rows, and a large statement in the prepared
    // statement cache each time).
    let start = 0;
    while (start < rows.length) {
      const left = rows.length - start;
      const size = left >= chunkSize ? chunkSize : 1 << (31 - Math.clz32(left)); // the largest power of two <= left
      await executor.executeQuery(statementFor(executor, table, columns, keys, rows.slice(start, start + size)));
      start += size;
    }
  };
}

export type BulkUpsert = ReturnType<typeof createBulkUpsert>;
