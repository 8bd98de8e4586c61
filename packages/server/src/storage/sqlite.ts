import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync, type StatementSync, type SQLInputValue } from 'node:sqlite';
import { Worker } from 'node:worker_threads';
import { setTimeout as sleep } from 'node:timers/promises';
import { SelectQueryNode, SqliteDialect, type CompiledQuery, type DatabaseConnection, type Driver, type QueryResult, type SqliteDatabase, type SqliteStatement } from 'kysely';
import { databaseUnavailable, isSqliteBusy, isSqliteUnavailable } from './unavailable.ts';

/** Prepared statements kept per connection; the hot paths use a handful, imports a few more. */
const STATEMENT_CACHE_SIZE = 256;

/**
 * Kysely's SqliteDialect speaks the better-sqlite3 interface; this adapts the
 * built-in `node:sqlite` to it, so the embedded default needs no native build.
 * It also caches prepared statements, which Kysely would otherwise re-prepare
 * on every query.
 */
class NodeSqliteDatabase implements SqliteDatabase {
  readonly #db: DatabaseSync;
  readonly #statements = new Map<string, SqliteStatement>();
  /** Statements run that may have written, on this connection. */
  #localWrites = 0;
  #dataVersion: StatementSync | undefined;
  readonly #noteWrite = () => {
    this.#localWrites++;
  };

  constructor(db: DatabaseSync) {
    this.#db = db;
  }

  /** ROLLBACK, or nothing when SQLite has already rolled the transaction back. */
  readonly #rollback: SqliteStatement = {
    reader: false,
    all: () => [],
    iterate: () => [][Symbol.iterator](),
    run: () => {
      if (this.#db.isTransaction) this.#db.exec('rollback');
      return { changes: 0, lastInsertRowid: 0 };
    },
  };

  /** Whether a transaction is open on the connection (SQLite may have rolled one back by itself). */
  get inTransaction(): boolean {
    return this.#db.isTransaction;
  }

  close(): void {
    this.#statements.clear();
    if (this.#db.isOpen) this.#db.close();
  }

  prepare(sql: string): SqliteStatement {
    // SQLite rolls a transaction back by itself on some failures (a full disk, an I/O error): the ROLLBACK that
    // follows would fail with "no transaction is active" and hide the failure behind it.
    if (sql === 'rollback') return this.#rollback;
    let statement = this.#statements.get(sql);
    if (statement === undefined) {
      if (this.#statements.size >= STATEMENT_CACHE_SIZE) this.#statements.clear();
      const limits = boundLimits(sql);
      statement = limits === undefined ? this.#adapted(sql) : withLimitsWritten(sql, limits, (text) => this.#adapted(text));
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  #adapted(sql: string): SqliteStatement {
    return adaptStatement(unavailableOr(() => this.#db.prepare(sql)), /^\s*select\b/i.test(sql) ? undefined : this.#noteWrite);
  }

  /**
   * Changes whenever the database may have changed: a commit by any other
   * connection, in any process (SQLite's `PRAGMA data_version`, which changes
   * exactly then), or a writing statement on this one (which data_version
   * does not count).
   */
  writeVersion(): string {
    this.#dataVersion ??= this.#db.prepare('PRAGMA data_version');
    const { data_version: version } = unavailableOr(() => this.#dataVersion!.get()) as { data_version: number };
    return `${version}:${this.#localWrites}`;
  }
}

/** Busy (another process holds a lock: LockWaitingSqliteDriver waits for it), locked or I/O failures become 503s. */
function unavailableOr<T>(run: () => T): T {
  try {
    return run();
  } catch (error) {
    throw isSqliteUnavailable(error) ? databaseUnavailable(error) : error;
  }
}

/**
 * `noteWrite` is told before every run of a statement that may write: anything but a SELECT (an INSERT ...
 * RETURNING reads rows too).
 *
 * Rows are read as arrays and made objects here. node:sqlite's own row objects (made in C++) end up in V8's
 * old generation: a page of 101 rows left about 3 KB there, so a server reading pages ran a full
 * collection every second or so, the tail of its latency (bench/README.md at 9b0c7f5, "Rows as arrays"). Objects built in
 * JavaScript from the column names die young, and cost less to make.
 */
function adaptStatement(statement: StatementSync, noteWrite: (() => void) | undefined): SqliteStatement {
  const names = statement.columns().map((column) => column.name);
  // An object built by assignment would take a column named __proto__ as its prototype: such a statement keeps node:sqlite's rows.
  const asArrays = names.length > 0 && !names.includes('__proto__');
  if (asArrays) statement.setReturnArrays(true);
  const objectOf = (values: unknown[]): Record<string, unknown> => {
    const row: Record<string, unknown> = {};
    for (let i = 0; i < names.length; i++) row[names[i]!] = values[i];
    return row;
  };
  return {
    reader: names.length > 0,
    all: (parameters) => {
      noteWrite?.();
      const rows = unavailableOr(() => statement.all(...toSqliteValues(parameters)));
      return asArrays ? (rows as unknown as unknown[][]).map(objectOf) : rows;
    },
    run: (parameters) => {
      noteWrite?.();
      return unavailableOr(() => statement.run(...toSqliteValues(parameters)));
    },
    iterate: (parameters) => {
      noteWrite?.();
      const rows = unavailableOr(() => statement.iterate(...toSqliteValues(parameters)));
      return asArrays ? objectsOf(rows as Iterable<unknown[]>, objectOf) : rows;
    },
  };
}

/** The limits one statement keeps prepared with their values written in: page sizes, and a page size and one. */
const LIMITS_KEPT = 16;

/** A statement's SQL cut at each `limit ?`, and the index of the parameter each of those binds. */
interface BoundLimits {
  readonly pieces: readonly string[];
  readonly parameters: readonly number[];
}

/**
 * Where SQL binds a LIMIT as a parameter, as Kysely writes every `.limit(n)`;
 * undefined when it binds none. Parameters are counted outside quoted text
 * and names; SQL with numbered parameters (`?1`) is left as it is.
 */
function boundLimits(sql: string): BoundLimits | undefined {
  const pieces: string[] = [];
  const parameters: number[] = [];
  let parameter = 0;
  let from = 0;
  for (let i = 0; i < sql.length; i++) {
    const char = sql[i]!;
    if (char === "'" || char === '"' || char === '`') {
      // A doubled quote inside ('it''s') reads as two quoted pieces side by side: the count is the same.
      const end = sql.indexOf(char, i + 1);
      if (end === -1) return undefined;
      i = end;
    } else if (char === '?') {
      if (/\d/.test(sql[i + 1] ?? '')) return undefined;
      if (/\blimit\s+$/i.test(sql.slice(Math.max(0, i - 8), i))) {
        pieces.push(sql.slice(from, i));
        parameters.push(parameter);
        from = i + 1;
      }
      parameter++;
    }
  }
  if (parameters.length === 0) return undefined;
  pieces.push(sql.slice(from));
  return { pieces, parameters };
}

/**
 * A statement that binds LIMITs runs as its SQL with the bound limits
 * written in, one prepared statement for each set of them. SQLite (3.53,
 * node:sqlite's) plans a query with its LIMIT in view, so binding a LIMIT
 * expires the statement, and each run prepared it again: a page of 21 of a
 * user's saved songs took 12.5 us with `limit ?` and 6.4 with `limit 21`,
 * and 80 against 28 us in the server under load (bench/README.md at 9b0c7f5, "A LIMIT
 * bound as a parameter"). Limits that are not whole numbers run the
 * statement as written.
 */
function withLimitsWritten(sql: string, limits: BoundLimits, prepare: (sql: string) => SqliteStatement): SqliteStatement {
  const asWritten = prepare(sql);
  const byLimits = new Map<string, SqliteStatement>();
  const bound = new Set(limits.parameters);
  const unbound = (_parameter: unknown, index: number) => !bound.has(index);
  const statementFor = (parameters: ReadonlyArray<unknown>): [SqliteStatement, ReadonlyArray<unknown>] => {
    const values = limits.parameters.map((index) => parameters[index]);
    if (!values.every((value) => typeof value === 'number' && Number.isSafeInteger(value))) return [asWritten, parameters];
    const key = values.join(',');
    let written = byLimits.get(key);
    if (written === undefined) {
      if (byLimits.size >= LIMITS_KEPT) byLimits.clear();
      written = prepare(limits.pieces.reduce((text, piece, i) => `${text}${values[i - 1]}${piece}`));
      byLimits.set(key, written);
    }
    return [written, parameters.filter(unbound)];
  };
  return {
    reader: asWritten.reader,
    all: (parameters) => {
      const [statement, rest] = statementFor(parameters);
      return statement.all(rest);
    },
    run: (parameters) => {
      const [statement, rest] = statementFor(parameters);
      return statement.run(rest);
    },
    iterate: (parameters) => {
      const [statement, rest] = statementFor(parameters);
      return statement.iterate(rest);
    },
  };
}

function* objectsOf(rows: Iterable<unknown[]>, objectOf: (values: unknown[]) => Record<string, unknown>): IterableIterator<Record<string, unknown>> {
  for (const values of rows) yield objectOf(values);
}

/** node:sqlite binds no booleans or undefined; the schema stores booleans as 0/1. */
function toSqliteValues(parameters: ReadonlyArray<unknown>): SQLInputValue[] {
  return parameters.map((value) => {
    if (typeof value === 'boolean') return value ? 1 : 0;
    if (value === undefined) return null;
    return value as SQLInputValue;
  });
}

/** The longest pause between two tries for a lock another process holds (SQLite's own busy handler's is 100 ms). */
const LOCK_RETRY_MAX_PAUSE_MS = 50;

/** Statements that only read: a transaction that begins with one begins deferred, and takes no lock. */
const READING = /^\s*select\b/i;

/**
 * Kysely's SqliteDriver (one connection, taken in turns), except that a lock
 * another process holds (SQLITE_BUSY: the CLI writing, say) is waited for
 * with timers, the connection given back to other requests between tries,
 * never by SQLite's busy handler, which sleeps on the event loop (issue 51:
 * reads and /healthz waited as long as another process held the write lock,
 * and waiting writes took turns, each its whole timeout). Past `lockWaitMs`
 * the statement fails as a 503 (databaseUnavailable), as every other waiter
 * does on its own deadline.
 *
 * Only a statement that has done nothing yet can be tried again: one outside
 * a transaction, or the first of a transaction. So a transaction begins at
 * its first statement, `begin immediate` (the write lock, at once) unless that
 * statement is a SELECT, and the wait happens before anything of it has run.
 * Every transaction that writes writes first (writeAsUser's lockUser,
 * lockCatalogWrites); one that read first and wrote later would be refused
 * at its first write (SQLite calls no busy handler for a read transaction
 * asking for the write lock) and answer 503 at once. Reads never wait for a
 * writer in WAL mode; they wait here only in SQLite's rare busy states
 * (another connection recovering the WAL).
 */
class LockWaitingSqliteDriver implements Driver {
  readonly #database: NodeSqliteDatabase;
  readonly #lockWaitMs: number;
  readonly #turns = new Turns();
  /** A transaction was begun and has run no statement: its BEGIN waits for that statement, and takes its kind. */
  #beginPending = false;
  readonly #connection: DatabaseConnection = {
    executeQuery: <R>(query: CompiledQuery) => this.#execute(query) as Promise<QueryResult<R>>,
    streamQuery: <R>(query: CompiledQuery) => this.#stream(query) as AsyncIterableIterator<QueryResult<R>>,
  };

  constructor(database: NodeSqliteDatabase, lockWaitMs: number) {
    this.#database = database;
    this.#lockWaitMs = lockWaitMs;
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    await this.#turns.take();
    return this.#connection;
  }

  async releaseConnection(): Promise<void> {
    this.#turns.give();
  }

  async beginTransaction(): Promise<void> {
    this.#beginPending = true;
  }

  async commitTransaction(): Promise<void> {
    this.#end('commit');
  }

  async rollbackTransaction(): Promise<void> {
    this.#end('rollback');
  }

  async destroy(): Promise<void> {
    this.#database.close();
  }

  /** A transaction that ran no statement never began: nothing to end. */
  #end(statement: 'commit' | 'rollback'): void {
    if (this.#beginPending) {
      this.#beginPending = false;
      return;
    }
    this.#run(statement, []);
  }

  #execute(query: CompiledQuery): Promise<QueryResult<unknown>> {
    const { sql, parameters } = query;
    if (this.#beginPending) {
      this.#beginPending = false;
      const begin = READING.test(sql) ? 'begin' : 'begin immediate';
      return this.#whenUnlocked(() => this.#begun(begin, () => this.#run(sql, parameters)));
    }
    if (this.#database.inTransaction) {
      try {
        return Promise.resolve(this.#run(sql, parameters));
      } catch (error) {
        return Promise.reject(error);
      }
    }
    return this.#whenUnlocked(() => this.#run(sql, parameters));
  }

  async *#stream(query: CompiledQuery): AsyncIterableIterator<QueryResult<unknown>> {
    if (!SelectQueryNode.is(query.query)) throw new Error('Sqlite driver only supports streaming of select queries');
    if (this.#beginPending) {
      this.#beginPending = false;
      await this.#whenUnlocked(() => this.#begun('begin', () => undefined));
    }
    for (const row of this.#database.prepare(query.sql).iterate(query.parameters)) yield { rows: [row] };
  }

  /** Kysely's SqliteConnection.executeQuery. */
  #run(sql: string, parameters: ReadonlyArray<unknown>): QueryResult<unknown> {
    const statement = this.#database.prepare(sql);
    if (statement.reader) return { rows: statement.all(parameters) };
    const { changes, lastInsertRowid } = statement.run(parameters);
    return {
      numAffectedRows: changes !== undefined && changes !== null ? BigInt(changes) : undefined,
      insertId: lastInsertRowid !== undefined && lastInsertRowid !== null ? BigInt(lastInsertRowid) : undefined,
      rows: [],
    };
  }

  /** `first` in a transaction begun by `begin`; a busy `first` ends it again, so that it can be tried anew. */
  #begun<T>(begin: string, first: () => T): T {
    this.#run(begin, []);
    try {
      return first();
    } catch (error) {
      if (isSqliteBusy(error)) this.#run('rollback', []);
      throw error;
    }
  }

  /** `attempt` (a statement that has done nothing when busy) now, or once another process's lock is gone, with timers. */
  #whenUnlocked<T>(attempt: () => T): Promise<T> {
    try {
      return Promise.resolve(attempt());
    } catch (error) {
      return isSqliteBusy(error) ? this.#retried(attempt, error) : Promise.reject(error);
    }
  }

  async #retried<T>(attempt: () => T, busy: unknown): Promise<T> {
    const deadline = performance.now() + this.#lockWaitMs;
    for (let pause = 1; ; pause = Math.min(2 * pause, LOCK_RETRY_MAX_PAUSE_MS)) {
      const left = deadline - performance.now();
      if (left <= 0) throw busy; // already a databaseUnavailable: a 503 with Retry-After
      // The connection serves other requests meanwhile: no transaction of this one is open on it.
      this.#turns.give();
      await sleep(Math.min(pause, left));
      await this.#turns.take();
      try {
        return attempt();
      } catch (error) {
        if (!isSqliteBusy(error)) throw error;
        busy = error;
      }
    }
  }
}

/** The one connection, taken by one query or transaction at a time, in the order asked. */
class Turns {
  #taken = false;
  readonly #waiting: (() => void)[] = [];

  take(): Promise<void> {
    if (!this.#taken) {
      this.#taken = true;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  give(): void {
    const next = this.#waiting.shift();
    if (next === undefined) this.#taken = false;
    else next();
  }
}

/** Kysely's SqliteDialect on the driver above. */
class LockWaitingSqliteDialect extends SqliteDialect {
  readonly #driver: () => Driver;

  constructor(database: NodeSqliteDatabase, lockWaitMs: number) {
    super({ database });
    this.#driver = () => new LockWaitingSqliteDriver(database, lockWaitMs);
  }

  override createDriver(): Driver {
    return this.#driver();
  }
}

/**
 * Opens (creating if needed) the SQLite file with the pragmas a server wants.
 * No mmap: mapped pages count toward the process's RSS, while the OS page
 * cache serves reads just as well without doing so.
 *
 * `cacheMb` is SQLite's page cache, in malloc'd memory of the process.
 *
 * `lockWaitMs` is how long a statement waits for a lock another process holds
 * (the CLI importing, say) before it fails as a 503: with timers
 * (LockWaitingSqliteDriver), so SQLite's own busy timeout is 0.
 */
export function createSqliteDialect(path: string, lockWaitMs = 5000, cacheMb = 16): { dialect: SqliteDialect; writeVersion: () => string } {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  // None of these waits for a lock: they set the connection, and the file is in WAL mode already but when new.
  const db = new DatabaseSync(path, { timeout: 0 });
  db.exec(`
    PRAGMA journal_mode = WAL;
    PRAGMA synchronous = NORMAL;
    PRAGMA foreign_keys = ON;
    PRAGMA cache_size = -${Math.round(cacheMb * 1024)};
    PRAGMA temp_store = MEMORY;
  `);
  const database = new NodeSqliteDatabase(db);
  return { dialect: new LockWaitingSqliteDialect(database, lockWaitMs), writeVersion: () => database.writeVersion() };
}

/**
 * Checkpoints a SQLite file's WAL on a thread of its own, when asked. At each
 * commit SQLite copies the WAL into the database file (a checkpoint) on the
 * committing thread; on the 1M import that was about 11 s of its 14 s of
 * commits. An import turns its connection's checkpoints off
 * (`wal_autocheckpoint = 0`) and asks this thread for one after each batch;
 * the next batch waits for it before it writes, so the WAL starts again from
 * its beginning and stays the size of a batch (a long WAL slows every read:
 * 129 s instead of 122 s for the 1M import's batches with no checkpoints).
 * The thread starts at the first request.
 */
export class Checkpointer {
  readonly #path: string;
  #worker: Worker | undefined;
  #pending: Promise<void> = Promise.resolve();
  #settle: ((error?: Error) => void) | undefined;

  constructor(path: string) {
    this.#path = path;
  }

  /** Starts a checkpoint of everything committed so far (one at a time: wait for settled() first). */
  request(): void {
    this.#pending = new Promise<void>((resolve, reject) => {
      this.#settle = (error) => (error ? reject(error) : resolve());
    });
    this.#pending.catch(() => {}); // reported by settled()
    this.#thread().postMessage('checkpoint');
  }

  /** Resolves once the checkpoint asked for last is done; rejects if it failed. */
  settled(): Promise<void> {
    return this.#pending;
  }

  async close(): Promise<void> {
    await this.#pending.catch(() => {});
    await this.#worker?.terminate();
  }

  #thread(): Worker {
    if (this.#worker === undefined) {
      const worker = new Worker(new URL('./checkpoint-worker.ts', import.meta.url), { workerData: { path: this.#path } });
      worker.on('message', (answer: { ok: boolean; message?: string }) => this.#done(answer.ok ? undefined : new Error(`WAL checkpoint failed: ${answer.message}`)));
      worker.on('error', (error) => this.#done(error));
      worker.on('exit', () => this.#done(new Error('the WAL checkpoint thread exited')));
      this.#worker = worker;
    }
    return this.#worker;
  }

  #done(error?: Error): void {
    const settle = this.#settle;
    this.#settle = undefined;
    settle?.(error);
  }
}
