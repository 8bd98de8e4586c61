import { createHash } from 'node:crypto';
import pg from 'pg';
import { CompiledQuery, PostgresDialect, type Driver, type PostgresDialectConfig, type PostgresPool, type PostgresPoolClient, type PostgresQueryResult } from 'kysely';
import { databaseUnavailable, isPostgresDatabaseMissing, isPostgresPreparedStatementBroken, isPostgresRefusingWrites, isPostgresUnavailable } from './unavailable.ts';
import { VersionBumpingDriver, writesCredentialTables, type SharedWriteVersion } from './shared-write-version.ts';
import type { InPhases } from './phases.ts';

/** How long after its statement_timeout a statement is given up on this side, the connection presumed gone. */
const CLIENT_DEADLINE_GRACE_MS = 200;
/** How long asking how a transaction ended may take in all, when no timeout is set (maintenance processes). */
const OUTCOME_DEADLINE_MS = 5000;

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
  /** Told of every statement a phase ran (Kysely's log tells of the others), with the phase's time. */
  logQuery?: (sql: string, parameters: readonly unknown[], durationMs: number) => void;
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

/** What a pg connection knows of the statements it prepared (pg's Connection keeps both). */
interface PreparedNames {
  parsedStatements: Record<string, string>;
  submittedNamedStatements: Record<string, string>;
}

/** A statement of a batch: named when it is prepared once per connection (PREPARED_MAX_PARAMETERS). */
interface BatchStatement {
  readonly name: string | undefined;
  readonly text: string;
  readonly values: readonly unknown[];
}

const prepareValue = (pg as unknown as { utils: { prepareValue(value: unknown): unknown } }).utils.prepareValue;

/**
 * Statements sent together and answered together: each one's Parse (once a
 * connection for a named one), Bind, Describe and Execute, then one Sync, as
 * the extended query protocol allows ("Pipelining", PostgreSQL's protocol
 * flow): one round trip for all of them. The server runs them in order and,
 * after one fails, skips the rest up to the Sync. pg's Query reads the
 * answers: a result per statement, as for a simple query of several.
 */
class StatementBatch extends pg.Query {
  readonly #statements: readonly BatchStatement[];
  /** The statements this batch parsed on its connection for the first time, by name. */
  readonly prepared = new Map<string, string>();
  /** pg's Query answers through it (set before the batch is handed to the client). */
  declare callback: (error: Error | null, results: pg.QueryResult | pg.QueryResult[]) => void;

  /** Throws, before anything is sent, for a value pg cannot send (as pg's own Query would at its Bind). */
  constructor(statements: readonly BatchStatement[]) {
    super({ text: statements.map((statement) => statement.text).join(';\n') });
    this.#statements = statements.map((statement) => ({ ...statement, values: statement.values.map((value) => prepareValue(value)) }));
  }

  requiresPreparation(): boolean {
    return true;
  }

  /** pg's Query.prepare for one statement, once for each, with one Sync at the end. */
  prepare(connection: pg.Connection & PreparedNames): void {
    for (const { name, text, values } of this.#statements) {
      if (name === undefined || (connection.parsedStatements[name] === undefined && connection.submittedNamedStatements[name] === undefined)) {
        connection.parse({ text, name: name ?? '', types: [] }, false);
        if (name !== undefined) {
          connection.submittedNamedStatements[name] = text;
          this.prepared.set(name, text);
        }
      }
      (connection as unknown as { bind(config: object): void }).bind({ portal: '', statement: name ?? '', values });
      connection.describe({ type: 'P', name: '' }, false);
      connection.execute({ portal: '' }, false);
    }
    connection.sync();
  }
}

/** How a batch's transaction begins: a write (its id asked with BEGIN: TRANSACTION_ID) or reads on one snapshot. */
type Opening = 'write' | 'snapshot';

/**
 * A pooled connection: Kysely's, and batches of statements in one round trip
 * (StatementBatch), which may begin a transaction and end it with COMMIT.
 */
interface PooledClient extends PostgresPoolClient {
  /** Answers each statement's rows; when one fails, the transaction they ran in is rolled back. */
  batch(statements: readonly CompiledQuery[], opening?: Opening): Promise<unknown[][]>;
  /** These statements, then COMMIT; answers nothing, as a COMMIT whose answer was lost is known to have committed, not what the statements said. */
  commitBatch(statements: readonly CompiledQuery[], opening?: Opening): Promise<void>;
}

/** How a transaction whose COMMIT went unanswered ended (ResilientPool.outcomeOf). */
type TransactionOutcome = 'committed' | 'aborted';

/**
 * What tells one run of the database server from another: its start, and
 * when its statistics were last reset, which a crash and its recovery do
 * (the server restarts its processes but not its start time). A transaction
 * id is only known to be this transaction's on the run that gave it: ids
 * handed out but never written to disk are handed out again after a crash.
 */
const SERVER_RUN = `pg_postmaster_start_time()::text || ' ' || coalesce((select stats_reset::text from pg_stat_bgwriter), '')`;

/** A writing transaction's id, and the server run (SERVER_RUN) that gave it. */
interface TransactionId {
  readonly xid: string;
  readonly run: string;
}

/** Asked with BEGIN, in the same round trip: what tells, if the transaction's COMMIT goes unanswered, whether it committed. */
const TRANSACTION_ID = CompiledQuery.raw(`select txid_current()::text as xid, ${SERVER_RUN} as run`);
const OPENINGS: Record<Opening, readonly CompiledQuery[]> = {
  write: [CompiledQuery.raw('begin'), TRANSACTION_ID],
  snapshot: [CompiledQuery.raw('begin isolation level repeatable read read only')],
};
const COMMIT = CompiledQuery.raw('commit');
const ROLLBACK = 'rollback';
/**
 * Whether Kysely's statement begins a transaction that may write: its plain BEGIN, or START TRANSACTION with an
 * isolation level unless it is read only (search's snapshot). Such a transaction asks its id with it.
 */
const beginsWriting = (sql: string) => sql === 'begin' || (sql.startsWith('start transaction') && !sql.includes('read only'));
/** What Kysely is answered for a COMMIT that committed though its answer was lost: pg's answer to a COMMIT. */
const COMMITTED = { command: 'COMMIT', rowCount: null, rows: [] } as unknown as PostgresQueryResult<never>;

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

  async connect(): Promise<PooledClient> {
    let client: pg.PoolClient;
    try {
      client = await this.#pool.connect();
    } catch (error) {
      if (isPostgresDatabaseMissing(error)) throw databaseUnavailable(databaseMissing(this.#connectionString, error));
      throw databaseUnavailable(error);
    }
    let broken = false;
    /** Broken by a failure of reach (lost, or no answer in time), not by the server's refusal of a statement. */
    let unreachable = false;
    const timeoutMs = this.#timeoutMs;
    const preparedMaxParameters = this.#preparedMaxParameters;
    const connection = (client as unknown as { connection: PreparedNames }).connection;
    /**
     * Runs `submit`'s statements under the deadline; failures of reach become 503s and the connection goes.
     * `statements`: how many statements `submit` runs. The server gives each its statement_timeout, but a
     * batch's wait is one lock at most (a user's turn) and then reads and writes of a few milliseconds, so
     * it gets two timeouts, however many statements it holds: a network that stopped answering holds a
     * request and its connection for 2 x MAQAM_DB_TIMEOUT_MS and the grace, not for each statement's.
     */
    const guarded = async <R>(submit: () => Promise<R>, statements = 1): Promise<R> => {
      let timer: NodeJS.Timeout | undefined;
      try {
        const running = submit();
        if (timeoutMs === 0) return await running;
        // The server's statement_timeout answers first when the server can answer at all; this is for when it
        // cannot. The grace covers the server's answer on its way back, not a second wait: every route answers
        // 503 within the timeout and half a second (outage suite).
        const deadline = new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error('Query read timeout')), timeoutMs * Math.min(statements, 2) + CLIENT_DEADLINE_GRACE_MS);
        });
        running.catch(() => {}); // settled after the deadline: nobody is waiting for it
        return await Promise.race([running, deadline]);
      } catch (error) {
        // A full disk or a read-only server: nothing is wrong with the connection.
        if (isPostgresRefusingWrites(error)) throw databaseUnavailable(error);
        // A table changed under a statement this connection prepared (a migration while it served), or the
        // connection's names of its prepared statements went out of step with the server's: that statement fails
        // on it from now on, so the connection goes, and its prepared statements with it.
        if (!isPostgresUnavailable(error) && !isPostgresPreparedStatementBroken(error)) throw error;
        broken = true;
        unreachable = !isPostgresPreparedStatementBroken(error);
        (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
        throw databaseUnavailable(error);
      } finally {
        clearTimeout(timer);
      }
    };
    const named = (sql: string, values: readonly unknown[]) => (values.length > 0 && values.length <= preparedMaxParameters ? this.#statementName(sql) : undefined);
    const backendPid = (client as unknown as { processID: number }).processID;
    /** The writing transaction open on this connection (TRANSACTION_ID). */
    let transaction: TransactionId | undefined;
    /** Ends the transaction a failure left open on this connection, within the deadline; a connection that cannot is dropped. */
    const rollBack = (sql = ROLLBACK) => guarded(() => client.query(sql)).then(() => true, () => {
      broken = true;
      return false;
    });
    /**
     * Runs `submit`, which sends COMMIT. A COMMIT whose answer never came (the connection stopped answering or
     * was lost after sending it) may have committed: the server is asked how the transaction ended (outcomeOf)
     * before it is called unavailable, so a write that committed is answered as one (contract section 14). A
     * transaction begun in the same batch has no id back to ask with: its unanswered COMMIT is a 503, as any.
     */
    const committing = async <R>(submit: () => Promise<R>, statements: number, committed: R): Promise<R> => {
      const asked = transaction;
      transaction = undefined;
      try {
        return await guarded(submit, statements);
      } catch (error) {
        if (asked !== undefined && unreachable && (await this.outcomeOf(asked.xid, asked.run, backendPid)) === 'committed') return committed;
        throw error;
      }
    };
    const run = async (statements: readonly CompiledQuery[]): Promise<unknown[][]> => {
      let batch: StatementBatch | undefined;
      try {
        batch = new StatementBatch(statements.map((statement) => ({ name: named(statement.sql, statement.parameters), text: statement.sql, values: statement.parameters })));
        const answered = new Promise<pg.QueryResult | pg.QueryResult[]>((resolve, reject) => {
          batch!.callback = (error: Error | null, results: pg.QueryResult | pg.QueryResult[]) => (error ? reject(error) : resolve(results));
          void client.query(batch!);
        });
        const results = await answered;
        // Parsed, as pg records a named Query's when the server says so: pg forgets a name only "submitted" when
        // a later query of that name fails, and would then parse it again, which the server refuses (42P05).
        for (const [name, text] of batch.prepared) {
          connection.parsedStatements[name] = text;
          delete connection.submittedNamedStatements[name];
        }
        return (Array.isArray(results) ? results : [results]).map((result) => result.rows as unknown[]);
      } catch (error) {
        transaction = undefined;
        if (!broken) {
          // The transaction the batch ran in is over. The statements after the one that failed were never parsed,
          // though named as sent: then the connection forgets what it prepared, and the server with it.
          const forget = (batch?.prepared.size ?? 0) > 0;
          if ((await rollBack(forget ? `${ROLLBACK}; deallocate all` : ROLLBACK)) && forget) {
            connection.parsedStatements = {};
            connection.submittedNamedStatements = {};
          }
        }
        throw error;
      }
    };
    /** The batch's statements after its opening's, and the opening's transaction id kept. */
    const opened = (opening: Opening | undefined, results: unknown[][]) => {
      const skipped = opening === undefined ? 0 : OPENINGS[opening].length;
      if (opening === 'write') transaction = results[1]![0] as TransactionId;
      return results.slice(skipped);
    };
    const opens = (opening: Opening | undefined) => (opening === undefined ? [] : OPENINGS[opening]);
    return {
      query: (async <R>(sql: string, parameters: ReadonlyArray<unknown>) => {
        const values = parameters as unknown[];
        // Kysely's transactions: BEGIN asks the transaction's id in the same round trip, for its COMMIT (committing).
        if (values.length === 0 && beginsWriting(sql)) {
          try {
            const [begun, id] = (await guarded(() => client.query(`${sql}; ${TRANSACTION_ID.sql}`))) as unknown as pg.QueryResult[];
            transaction = id!.rows[0] as TransactionId;
            return begun as unknown as PostgresQueryResult<R>;
          } catch (error) {
            // BEGIN opened the transaction before its id was refused (a server in recovery refuses to give one):
            // Kysely rolls back only a transaction whose BEGIN succeeded, and the connection would go back to the
            // pool inside an aborted transaction, every later statement on it refused.
            if (!broken) await rollBack();
            throw error;
          }
        }
        if (sql === COMMIT.sql && values.length === 0) return committing(() => client.query(sql) as unknown as Promise<PostgresQueryResult<R>>, 1, COMMITTED);
        if (sql === ROLLBACK) transaction = undefined;
        const name = named(sql, values);
        // A statement without parameters goes by the simple protocol, as before: it may be several statements.
        return guarded(() => (name !== undefined ? client.query({ name, text: sql, values }) : client.query(sql, values)) as unknown as Promise<PostgresQueryResult<R>>);
      }) as PostgresPoolClient['query'],
      batch: async (statements, opening) => opened(opening, await guarded(() => run([...opens(opening), ...statements]), statements.length)),
      // Its rows are not answered, nor an id its own opening asks kept: nothing follows its COMMIT.
      commitBatch: (statements, opening) => committing(async () => void (await run([...opens(opening), ...statements, COMMIT])), statements.length + 1, undefined),
      // A client whose connection failed or timed out is discarded, not pooled.
      release: () => client.release(broken ? true : undefined),
    };
  }

  /**
   * How the transaction `xid` ended, asked on a connection of its own after
   * the one committing it stopped answering (a write that committed must
   * never be answered 503; contract section 14). The server process that
   * ran it is ended first if it still holds it (it may be about to commit,
   * or stalled with it open), so the answer is final: committed or aborted.
   * Undefined when it cannot be known: the server cannot be asked, does not
   * answer in time, or is not the run (SERVER_RUN) that gave the id.
   */
  async outcomeOf(xid: string, serverRun: string, backendPid: number): Promise<TransactionOutcome | undefined> {
    const budgetMs = this.#timeoutMs > 0 ? this.#timeoutMs : OUTCOME_DEADLINE_MS;
    const client = new pg.Client({ connectionString: this.#connectionString, connectionTimeoutMillis: budgetMs, statement_timeout: budgetMs, query_timeout: budgetMs });
    client.on('error', () => {});
    const until = performance.now() + 2 * budgetMs;
    // Still running it: the backend of that pid whose transaction is this one (a pid the system gave another backend since is not).
    const holding = `from pg_stat_activity where pid = $1 and backend_xid::text::bigint = ($2::bigint & 4294967295)`;
    try {
      await client.connect();
      await client.query(`select pg_terminate_backend(pid) ${holding}`, [backendPid, xid]);
      while ((await client.query(`select 1 ${holding}`, [backendPid, xid])).rows.length > 0) {
        if (performance.now() >= until) return undefined;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      // Read with the run it was read on: after a crash the id may be another transaction's.
      const { rows } = await client.query<{ status: string | null; run: string }>(`select txid_status($1::bigint) as status, ${SERVER_RUN} as run`, [xid]);
      const status = rows[0]?.run === serverRun ? rows[0].status : undefined;
      return status === 'committed' || status === 'aborted' ? status : undefined;
    } catch {
      return undefined;
    } finally {
      await client.end().catch(() => {});
    }
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

/** PostgreSQL through Kysely, and transactions in phases (phases.ts) on the same pool. */
export function createPostgres(connectionString: string, options: PostgresOptions = {}): { dialect: PostgresDialect; inPhases: InPhases } {
  const pool = new ResilientPool(connectionString, options);
  const config = { pool };
  const shared = options.sharedWriteVersion;
  const onWriteVersionError = options.onWriteVersionError ?? (() => {});
  const dialect = shared ? new VersionBumpingPostgresDialect(config, shared, onWriteVersionError) : new PostgresDialect(config);
  return { dialect, inPhases: postgresPhases(pool, shared, onWriteVersionError, options.logQuery) };
}

/**
 * Phases on PostgreSQL: BEGIN goes with the first phase's statements and
 * COMMIT with the last's, each phase one batch (StatementBatch), so a
 * transaction of two phases costs two round trips. As VersionBumpingDriver
 * does for Kysely's transactions, a committed write of a table credentials
 * are made from changes the shared write version. A writing transaction's
 * unanswered COMMIT is asked about as Kysely's are (the pooled client's
 * committing); every write reads first, so its id is known by then.
 */
function postgresPhases(
  pool: ResilientPool, shared: SharedWriteVersion | undefined, onError: (error: Error) => void, logQuery: PostgresOptions['logQuery'],
): InPhases {
  return async (work, options = {}) => {
    const opening: Opening = options.snapshot === true ? 'snapshot' : 'write';
    const client = await pool.connect();
    let begun = false;
    /** Over: committed, or rolled back by a batch that failed. */
    let over = false;
    let wrote = false;
    const send = async <R>(statements: readonly CompiledQuery[], submit: (statements: readonly CompiledQuery[], opening?: Opening) => Promise<R>) => {
      if (over) throw new Error('phases: the transaction is over');
      wrote ||= statements.some(writesCredentialTables);
      const first = !begun;
      begun = true;
      const started = performance.now();
      try {
        const answered = await submit(statements, first ? opening : undefined);
        if (logQuery !== undefined) for (const statement of statements) logQuery(statement.sql, statement.parameters, performance.now() - started);
        return answered;
      } catch (error) {
        over = true;
        throw error;
      }
    };
    try {
      const result = await work({
        run: (statements) => send(statements, client.batch),
        commit: async (statements) => {
          await send(statements, client.commitBatch);
          over = true;
        },
      });
      if (begun && !over) await client.query(ROLLBACK, []);
      return result;
    } catch (error) {
      if (begun && !over) await client.query(ROLLBACK, []).catch(() => {});
      throw error;
    } finally {
      client.release();
      if (wrote && shared !== undefined) await shared.bump().catch((error: unknown) => onError(error as Error));
    }
  };
}
