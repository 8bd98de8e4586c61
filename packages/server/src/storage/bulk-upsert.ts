import { CompiledQuery, type Insertable, type Kysely } from 'kysely';
import type { Database, DialectName } from './database.ts';

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
export function createBulkUpsert(storage: { readonly dialect: DialectName }) {
  if (storage.dialect === 'postgres') return createPostgresBulkUpsert();
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

export type BulkUpsert = <T extends Table>(
  executor: Kysely<Database>,
  table: T,
  keys: readonly (keyof Database[T] & string)[],
  rows: Insertable<Database[T]>[],
) => Promise<void>;

/**
 * Rows a PostgreSQL statement carries: its parameters are one array a column, whatever the rows, so an
 * import's batch is one statement a table (and the server works on all of it while the importer goes on).
 */
const POSTGRES_ROWS_PER_STATEMENT = 50_000;

/**
 * On PostgreSQL, rows go in as one array a column, spread by `unnest`: the
 * statement is short and the same for any number of rows, where a VALUES
 * list of 30,000 parameters is parsed and planned again for every chunk
 * (the 200,000-song import: 40.3 s with VALUES lists, 38.4 s with arrays).
 * The arrays are typed with the columns' own types, read once per table.
 */
function createPostgresBulkUpsert(): BulkUpsert {
  const types = new Map<string, Promise<Map<string, string>>>();
  const statements = new Map<string, string>();
  const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

  const columnTypes = (executor: Kysely<Database>, table: string) => {
    let known = types.get(table);
    if (known === undefined) {
      known = executor
        .executeQuery<{ name: string; type: string }>(CompiledQuery.raw(
          'select attname as name, format_type(atttypid, atttypmod) as type from pg_attribute where attrelid = $1::regclass and attnum > 0 and not attisdropped',
          [table],
        ))
        .then((result) => new Map(result.rows.map((row) => [row.name, row.type])));
      // A failed read is not kept: the next import asks again.
      known.catch(() => types.delete(table));
      types.set(table, known);
    }
    return known;
  };

  return async function upsert(executor, table, keys, rows) {
    if (rows.length === 0) return;
    const columns = Object.keys(rows[0]!);
    const cacheKey = `${table}\u0000${columns.join(',')}\u0000${keys.join(',')}`;
    let text = statements.get(cacheKey);
    if (text === undefined) {
      const typeOf = await columnTypes(executor, table);
      const arrays = columns.map((column, i) => {
        const type = typeOf.get(column);
        if (type === undefined) throw new Error(`bulk upsert of ${table}: no column ${column}`);
        return `$${i + 1}::${type}[]`;
      });
      const updated = columns.filter((column) => !keys.includes(column as never));
      const names = columns.map(quote).join(', ');
      text =
        `insert into ${quote(table)} (${names}) select * from unnest(${arrays.join(', ')}) as r(${names}) ` +
        `on conflict (${keys.map(quote).join(', ')}) ` +
        (updated.length === 0 ? 'do nothing' : `do update set ${updated.map((c) => `${quote(c)} = excluded.${quote(c)}`).join(', ')}`);
      statements.set(cacheKey, text);
    }
    for (let start = 0; start < rows.length; start += POSTGRES_ROWS_PER_STATEMENT) {
      const chunk = rows.slice(start, start + POSTGRES_ROWS_PER_STATEMENT) as Record<string, unknown>[];
      const parameters = columns.map((column) => chunk.map((row) => row[column] ?? null));
      await executor.executeQuery(CompiledQuery.raw(text, parameters));
    }
  };
}
