import { DomainError } from '../errors.ts';

/** Seconds a client is told to wait when the database is out of reach (contract section 8): the edge's Retry-After. */
export const DATABASE_RETRY_AFTER_SECONDS = 1;

/**
 * What a request meets when the database cannot answer it: unreachable,
 * connection lost, busy, or slower than its timeouts (a 503 with Retry-After
 * at the edge). Storage adapters throw it; the original error travels as
 * `cause`, for the log only.
 */
export function databaseUnavailable(cause: unknown): DomainError {
  return new DomainError('unavailable', { cause });
}

/** PostgreSQL SQLSTATEs that say the server cannot serve now, not that the query is wrong. */
const UNAVAILABLE_SQLSTATE = /^(08...|57P0[1-4]|57014|53300|53400|58030)$/;
/** Socket-level failures seen by the driver. */
const UNAVAILABLE_ERRNO = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNABORTED']);
/** What pg and pg-pool say, without a code, when a connection is gone or could not be had in time. */
const UNAVAILABLE_MESSAGE = /Connection terminated|timeout exceeded when trying to connect|not queryable|Query read timeout|connection timeout|Connection ended/i;

/**
 * PostgreSQL SQLSTATEs that say the server cannot store anything now (its
 * disk is full, or it is a read-only standby or in read-only mode), while the
 * connection itself is sound: 503s, but the connection stays pooled.
 */
const REFUSING_WRITES_SQLSTATE = new Set(['53100' /* disk_full */, '25006' /* read_only_sql_transaction */]);

export function isPostgresRefusingWrites(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && REFUSING_WRITES_SQLSTATE.has(code);
}

/** Whether a PostgreSQL driver error means "the database is not available now". */
export function isPostgresUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (UNAVAILABLE_SQLSTATE.test(code) || UNAVAILABLE_ERRNO.has(code))) return true;
  if (UNAVAILABLE_MESSAGE.test(error.message)) return true;
  return error.cause !== undefined && error.cause !== error && isPostgresUnavailable(error.cause);
}

/**
 * Whether PostgreSQL refused the connection because the database it names
 * does not exist (SQLSTATE 3D000, invalid_catalog_name): not an outage, since
 * retrying never helps and creating the database does.
 */
export function isPostgresDatabaseMissing(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === '3D000';
}

/**
 * Whether a statement this connection prepared can no longer run on it: a
 * table it reads changed the shape of its rows ("cached plan must not change
 * result type"), or the connection's account of the names it prepared
 * disagrees with the server's (42P05: a name it believed new already exists;
 * 26000: one it believed prepared does not). Either fails on that connection
 * until it starts afresh.
 */
export function isPostgresPreparedStatementBroken(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === '42P05' || code === '26000') return true;
  return code === '0A000' && error instanceof Error && /cached plan must not change result type/.test(error.message);
}

/**
 * SQLite result codes (primary, the low byte) that mean busy, locked, an I/O
 * failure, a full disk or a file that cannot be written, not a bad statement.
 */
const SQLITE_UNAVAILABLE = new Set([5 /* BUSY */, 6 /* LOCKED */, 8 /* READONLY */, 10 /* IOERR */, 13 /* FULL */, 14 /* CANTOPEN */]);

export function isSqliteUnavailable(error: unknown): boolean {
  const errcode = (error as { errcode?: unknown } | null)?.errcode;
  return typeof errcode === 'number' && SQLITE_UNAVAILABLE.has(errcode & 0xff);
}

/**
 * Whether SQLite refused a statement because another connection holds a
 * lock it needs (SQLITE_BUSY, any extended code), as raised or as the cause
 * of the databaseUnavailable it became: it may be tried again.
 */
export function isSqliteBusy(error: unknown): boolean {
  const raised = error instanceof DomainError && error.reason === 'unavailable' ? error.cause : error;
  const errcode = (raised as { errcode?: unknown } | null)?.errcode;
  return typeof errcode === 'number' && (errcode & 0xff) === 5;
}

/**
 * `report`, called at most once per `intervalMs`: during an outage every
 * pooled connection and every write fails the same way at once (an import
 * makes thousands), and one line a second says as much as all of them.
 */
export function atMostOncePer(intervalMs: number, report: (error: Error) => void, clock: () => number = Date.now): (error: Error) => void {
  let lastReportMs = -Infinity;
  return (error) => {
    const now = clock();
    if (now - lastReportMs < intervalMs) return;
    lastReportMs = now;
    report(error);
  };
}
