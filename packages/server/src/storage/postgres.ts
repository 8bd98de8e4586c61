import { createHash } from 'node:crypto';
import pg from 'pg';
import { PostgresDialect, type Driver, type PostgresDialectConfig, type PostgresPool, type PostgresPoolClient, type PostgresQueryResult } from 'kysely';
import { databaseUnavailable, isPostgresDatabaseMissing, isPostgresRefusingWrites, isPostgresStalePlan, isPostgresUnavailable } from './unavailable.ts';
import { VersionBumpingDriver, type SharedWriteVersion } from './shared-write-version.ts';

/** How long after its statement_timeout a statement is given up on this side, the connection presumed gone. */
const CLIENT_DEADLINE_GRACE_MS = 200;

/**
 * Statements with one to this many parameters are prepared once on each connection, under a name made
 * from their text, so PostgreSQL parses and plans them once instead of at every run: a playlist add and
 * its removal on one connection, p50 7.7 to 5.2 ms (bench/README.md at 9b0c7f5, "Prepared statements on PostgreSQL").
 * Their texts are few (a list of ids is one array parameter, Storage.idList). Longer ones, inserts of many
 * rows, differ with their row count, and each name a connection prepares stays in the server's memory
 * while it lives. MAQAM_PG_PREPARED_PARAMETERS sets it; 0 prepares nothing. A migration that changes a
 * table under a prepared statement makes PostgreSQL refuse it on that connection (the 503 below), so the
 * processes that migrate prepare nothing (serve.ts's maintenance storage, the CLI).
 */
const PREPARED_MAX_PARAMETERS = 64;

// int8 (bigint) columns hold Unix-millisecond times, well inside 2^53: read them as numbers.
pg.types.setTypeParser(pg.types.builtins.INT8, (text) => Number(text));

export interface PostgresOptions {
  /** Connections kept at most. */
  poolSize?: number;
  /**
   * How long connecting, waiting for a pooled connection, and each statement
   * may take; 0 waits for ever (maintenance commands such as a large import).
   */
  timeoutMs?: number;
  /** Told of connection failures (they are answered as 503s, never thrown at the process). */
  onConnectionError?: (error: Error) => void;
  /** Changed after every committed write (shared-write-version.ts). */
  sharedWriteVersion?: SharedWriteVersion;
  /** Told when changing it failed. */
  onWriteVersionError?: (error: Error) => void;
  /** Statements of one to this many parameters are prepared once per connection (PREPARED_MAX_PARAMETERS unless given; 0: none). */
  preparedMaxParameters?: number;
}

/** A name as PostgreSQL's SQL takes it: bare when it reads the same unquoted, else in double quotes. */
const sqlIdentifier = (name: string) => (/^[a-z_][a-z0-9_$]*$/.test(name) ? name : `"${name.replaceAll('"', '""')}"`);

/**
 * What connecting to a database that does not exist says (SQLSTATE 3D000):
 * which database on which server, and how to create it. Not an outage (a 503
 * saying only "retry later" to an operator whose retries can never succeed):
 * its message is what the CLI prints and the server logs, while a request
 * that needed the database is answered 503 as in any outage. Never the
 * password.
 */
function databaseMissing(connectionString: string, cause: unknown): Error {
  let name: string | undefined;
  const createdb = ['createdb'];
  let server = 'the PostgreSQL server';
  try {
    const url = new URL(connectionString);
    const user = decodeURIComponent(url.username);
    // libpq's default: a database named after the user.
    name = decodeURIComponent(url.pathname.slice(1)) || user || undefined;
    if (url.hostname) {
      createdb.push('-h', url.hostname);
      server = `the PostgreSQL server at ${url.host}`;
    }
    if (url.port) createdb.push('-p', url.port);
    if (user) createdb.push('-U', user);
  } catch {
    // Not a URL pg would take either; the server's own message names the database.
  }
  name ??= /database "(.*)" does not exist/.exec((cause as Error).message)?.[1] ?? 'maqam';
  createdb.push(/^[\w.-]+$/.test(name) ? name : `'${name.replaceAll("'", "'\\''")}'`);
  const missing = new Error(
    `database "${name}" does not exist on ${server}; create it with ${createdb.join(' ')} (or CREATE DATABASE ${sqlIdentifier(name)}; in psql), then run this again`,
    { cause },
  );
  // What an operator must do, said alone by the CLI (its withCauses); a request meanwhile is answered 503, never 500.
  missing.name = 'DatabaseMissingError';
  return missing;
}

/**
 * A pg pool that survives its database: every client has an error listener
 * for its whole life (pg-pool listens only while a client is idle, so a
 * connection lost under a checked-out client used to be an unhandled 'error'
 * event that killed the process); every statement has a deadline, enforced on
 * the server (statement_timeout) and, for a network that stopped answering,
 * on the client, which then destroys the connection rather than reuse it
 * behind a query that may never complete. Failures of reach become 503s.
 */
class ResilientPool implements PostgresPool {
  readonly #pool: pg.Pool;
  readonly #connectionString: string;
  readonly #timeoutMs: number;
  readonly #preparedMaxParameters: number;
  /** Each prepared statement's name, by its text. */
  readonly #statementNames = new Map<string, string>();

  constructor(connectionString: string, options: PostgresOptions) {
    this.#connectionString = connectionString;
    this.#timeoutMs = options.timeoutMs ?? 0;
    this.#preparedMaxParameters = options.preparedMaxParameters ?? PREPARED_MAX_PARAMETERS;
    const report = options.onConnectionError ?? (() => {});
    this.#pool = new pg.Pool({
      connectionString,
      max: options.poolSize ?? 10,
      keepAlive: true,
      idleTimeoutMillis: 30_000,
      ...(this.#timeoutMs > 0 ? { connectionTimeoutMillis: this.#timeoutMs, statement_timeout: this.#timeoutMs } : {}),
    });
    this.#pool.on('error', report); // an idle client lost its connection; the pool drops it
    this.#pool.on('connect', (client) => client.on('error', report)); // the same, while checked out
  }

  async connect(): Promise<PostgresPoolClient> {
    let client: pg.PoolClient;
    try {
      client = await this.#pool.connect();
    } catch (error) {
      if (isPostgresDatabaseMissing(error)) throw databaseUnavailable(databaseMissing(this.#connectionString, error));
      throw databaseUnavailable(error);
    }
    let broken = false;
    const timeoutMs = this.#timeoutMs;
    const preparedMaxParameters = this.#preparedMaxParameters;
    const query = async <R>(sql: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>> => {
      let timer: NodeJS.Timeout | undefined;
      try {
        const values = parameters as unknown[];
        // A statement without parameters goes by the simple protocol, as before: it may be several statements.
        const running = (values.length > 0 && values.length <= preparedMaxParameters
          ? client.query({ name: this.#statementName(sql), text: sql, values })
          : client.query(sql, values)) as unknown as Promise<PostgresQueryResult<R>>;
        if (timeoutMs === 0) return await running;
        // The server's statement_timeout answers first when the server can answer at all; this is for when it
        // cannot. The grace covers the server's answer on its way back, not a second wait: every route answers
        // 503 within the timeout and half a second (outage suite).
        const deadline = new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error('Query read timeout')), timeoutMs + CLIENT_DEADLINE_GRACE_MS);
        });
        running.catch(() => {}); // settled after the deadline: nobody is waiting for it
        return await Promise.race([running, deadline]);
      } catch (error) {
        // A full disk or a read-only server: nothing is wrong with the connection.
        if (isPostgresRefusingWrites(error)) throw databaseUnavailable(error);
        // A table changed under a statement this connection prepared (a migration while it served): that
        // statement fails on it from now on, so the connection goes, and its prepared statements with it.
        if (!isPostgresUnavailable(error) && !isPostgresStalePlan(error)) throw error;
        broken = true;
        (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
        throw databaseUnavailable(error);
      } finally {
        clearTimeout(timer);
      }
    };
    return {
      query: query as PostgresPoolClient['query'],
      // A client whose connection failed or timed out is discarded, not pooled.
      release: () => client.release(broken ? true : undefined),
    };
  }

  end(): Promise<void> {
    return this.#pool.end();
  }

  #statementName(sql: string): string {
    let name = this.#statementNames.get(sql);
    if (name === undefined) {
      if (this.#statementNames.size >= 10_000) this.#statementNames.clear();
      name = `m${createHash('sha256').update(sql).digest('base64url').slice(0, 24)}`;
      this.#statementNames.set(sql, name);
    }
    return name;
  }
}

/** PostgreSQL whose writes change a shared write version after they commit. */
class VersionBumpingPostgresDialect extends PostgresDialect {
  readonly #shared: SharedWriteVersion;
  readonly #onError: (error: Error) => void;

  constructor(config: PostgresDialectConfig, shared: SharedWriteVersion, onError: (error: Error) => void) {
    super(config);
    this.#shared = shared;
    this.#onError = onError;
  }

  override createDriver(): Driver {
    return new VersionBumpingDriver(super.createDriver(), this.#shared, this.#onError);
  }
}

export function createPostgresDialect(connectionString: string, options: PostgresOptions = {}): PostgresDialect {
  const config = { pool: new ResilientPool(connectionString, options) };
  return options.sharedWriteVersion
    ? new VersionBumpingPostgresDialect(config, options.sharedWriteVersion, options.onWriteVersionError ?? (() => {}))
    : new PostgresDialect(config);
}
