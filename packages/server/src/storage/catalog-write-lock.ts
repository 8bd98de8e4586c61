import { sql, type Kysely } from 'kysely';
import type { Database, DialectName } from './database.ts';

declare const held: unique symbol;

/**
 * Proof that a transaction holds the catalog's write lock: what code that
 * reads the catalog's derived data and writes it back (the search index's
 * segments, a rebuild of song templates) takes as an argument, so it cannot
 * be called in a transaction that does not hold it.
 */
export interface CatalogWriteLock {
  readonly [held]: true;
}

/** An arbitrary key of PostgreSQL's advisory locks, Maqam's catalog writers'. */
const CATALOG_WRITERS = 7262001;

/**
 * Waits until no other transaction writes the catalog, and holds the lock
 * until this one ends: writers of the catalog take turns. First thing in the
 * transaction: PostgreSQL takes a transaction-level advisory lock. SQLite has
 * one writer at a time anyway, but a transaction that reads first and writes
 * later fails (SQLITE_BUSY) if another process wrote in between; a write
 * statement first (one that changes no row) takes the write lock at once.
 */
export function catalogWriteLock(dialect: DialectName): (trx: Kysely<Database>) => Promise<CatalogWriteLock> {
  const statement = dialect === 'postgres'
    ? sql`select pg_advisory_xact_lock(${CATALOG_WRITERS})`
    : sql`update settings set value = value where key = ''`;
  return async (trx) => {
    await statement.execute(trx);
    return {} as CatalogWriteLock;
  };
}

/**
 * The lock if no other transaction holds it, or undefined at once (PostgreSQL); SQLite's is taken as
 * catalogWriteLock's, since its one writer at a time cannot take table locks in another order.
 */
export function tryCatalogWriteLock(dialect: DialectName): (trx: Kysely<Database>) => Promise<CatalogWriteLock | undefined> {
  if (dialect !== 'postgres') return catalogWriteLock(dialect);
  return async (trx) => {
    const { rows } = await sql<{ held: boolean }>`select pg_try_advisory_xact_lock(${CATALOG_WRITERS}) as held`.execute(trx);
    return rows[0]?.held === true ? ({} as CatalogWriteLock) : undefined;
  };
}
