import { Kysely, Migrator, sql, type Compilable, type CompiledQuery, type LogEvent, type AliasedRawBuilder, type RawBuilder } from 'kysely';
import type { Database, DialectName } from './database.ts';
import { migrations } from './migrations/index.ts';
import { createPostgres } from './postgres.ts';
import { sqlitePhases, type InPhases } from './phases.ts';
import { Checkpointer, createSqliteDialect } from './sqlite.ts';
import type { WriteVersion } from './versioned-cache.ts';
import { atMostOncePer } from './unavailable.ts';
import { buildReadOnlyCatalogIndexes } from './catalog-indexes.ts';
import { createRedisWriteVersion, holdableWriteVersion } from './shared-write-version.ts';
import { readSetting } from './settings.repo.ts';
import { createRedisCatalogChanges, POLL_ONLY, type CatalogChanges } from './catalog-changes.ts';
import { catalogWriteLock, type CatalogWriteLock } from './catalog-write-lock.ts';

export type { DialectName } from './database.ts';

/**
 * The database and the few things that differ between dialects. Repositories
 * are written once against `db`; the quirks below are the only dialect seams.
 */
export interface Storage {
  readonly db: Kysely<Database>;
  readonly dialect: DialectName;
  /** A transaction in phases, each sent as one (phases.ts): on PostgreSQL a round trip a phase. */
  readonly inPhases: InPhases;
  /**
   * A subquery yielding the given ids, bound as ONE parameter. The SQL text is
   * the same for any number of ids, so the statement is prepared once and the
   * 100-id batch does not hit SQLite's or pg's parameter limits.
   */
  idList(ids: readonly string[]): RawBuilder<string>;
  /** The value idList binds for `ids`: what a precompiled query swaps in per call. */
  idListParameter(ids: readonly string[]): unknown;
  /**
   * The ids as a table to join FIRST (crossJoin, whose order SQLite keeps),
   * aliased `wanted`, a row each in column `value`: each then finds its row
   * by a key lookup. `IN (idList)` on a table with another index that covers
   * the query's other columns let SQLite walk that index instead: CheckSavedItems
   * of 100 ids scanned all 10,000 of a user's likes, 1.4 ms against 0.05.
   */
  idRows(ids: readonly string[]): AliasedRawBuilder<{ value: string }, 'wanted'>;
  /** An aggregate of a BLOB column's values, one after another in one value (null over no rows). */
  concatenatedBlobs(column: string): RawBuilder<Uint8Array | null>;
  /** A text column compared by its bytes (PostgreSQL's collation otherwise orders by locale; SQLite's BINARY already does). */
  inByteOrder(column: string): RawBuilder<string>;
  /**
   * A value that changes whenever the database may have changed, from this
   * process or any other; null where that cannot be known without asking the
   * database. SQLite: its data_version (no I/O). PostgreSQL with a shared
   * Redis (`redisUrl`): the shared write version (shared-write-version.ts;
   * writes to a user's library do not change it), one Redis read, and
   * a new value at least every VERSION_MAX_AGE_MS for writers that do not
   * share that Redis. PostgreSQL alone: null. What VersionedCache keys on.
   */
  writeVersion: WriteVersion;
  /**
   * The deployment's id (migration 014), the same for every process on this
   * database however its URL is spelled: what they share outside it (Redis's
   * shared write version, rate-limit counts, word of catalog changes) is named after
   * it. Undefined before that migration; read once, then remembered.
   */
  deploymentId(): Promise<string | undefined>;
  /** Answers once the database answers a trivial statement (the readiness probe); throws when it cannot. */
  ping(): Promise<void>;
  /**
   * Runs the migrations (migrateToLatest): on PostgreSQL with a shared Redis,
   * their writes change the shared write version once, after the last of
   * them, instead of after each (shared-write-version.ts, HoldableWriteVersion):
   * nothing reads `settings` before the migrations have made it.
   */
  migrating<T>(work: () => Promise<T>): Promise<T>;
  /** The first statement of a transaction that writes the catalog: catalog writers take turns (catalog-write-lock.ts). */
  lockCatalogWrites(trx: Kysely<Database>): Promise<CatalogWriteLock>;
  /** Word of catalog changes between the processes of the deployment (through `redisUrl`; else none: nodes poll). */
  readonly catalogChanges: CatalogChanges;
  /**
   * A SQLite file's WAL checkpointed on another thread, for an import (sqlite.ts Checkpointer); undefined for
   * PostgreSQL and an in-memory SQLite database.
   */
  checkpointer?: () => Checkpointer;
  /** The SQLite database file; undefined for PostgreSQL and an in-memory SQLite database. */
  readonly sqliteFile?: string;
  close(): Promise<void>;
}

export interface StorageOptions {
  /**
   * Deadline for connecting, for a pooled connection and for each statement
   * (SQLite: for a lock another process holds, waited for with timers); past
   * it the request answers 503. 0 (the default) waits for ever on PostgreSQL,
   * for maintenance work such as migrations and imports, and 5 s on SQLite.
   */
  timeoutMs?: number;
  /** Told when a PostgreSQL connection fails (the server logs it). */
  onConnectionError?: (error: Error) => void;
  /** Told of every statement run, with its parameters (tools: query plans, debugging). */
  logQuery?: (sql: string, parameters: readonly unknown[], durationMs: number) => void;
  /**
   * The Redis every node and every writing process shares (REDIS_URL).
   * PostgreSQL: writes change its shared write version after they commit, and
   * writeVersion reads it, so nodes keep credentials in memory between writes.
   * Both dialects: catalog changes are announced through it.
   */
  redisUrl?: string | undefined;
  /** Told when a write's change of the shared version did not reach Redis (the write itself stands); at most once a second. */
  onWriteVersionError?: (error: Error) => void;
  /** The clock that ages versions (tests move it); Redis's cool-off after a failure keeps real time. */
  clock?: () => number;
  /** SQLite: the page cache of the connection, in MB (16 unless given). */
  sqliteCacheMb?: number;
  /** PostgreSQL: statements of one to this many parameters are prepared once per connection (64 unless given; 0: none). */
  preparedMaxParameters?: number;
}

/**
 * A PostgreSQL version changes at least this often even when the shared version does
 * not: a process that writes without the shared Redis (psql, the CLI run
 * without REDIS_URL) is seen by every node within this time.
 */
export const VERSION_MAX_AGE_MS = 5_000;

function queryLog(options: StorageOptions) {
  const logQuery = options.logQuery;
  if (logQuery === undefined) return undefined;
  return (event: LogEvent) => {
    if (event.level === 'query') logQuery(event.query.sql, event.query.parameters, event.queryDurationMillis);
  };
}

/** Reads the deployment id once it exists, and never again after (it never changes). */
function deploymentIdOf(db: () => Kysely<Database>): () => Promise<string | undefined> {
  let known: string | undefined;
  return async () => (known ??= await readSetting(db(), 'deployment_id'));
}

async function ping(db: Kysely<Database>): Promise<void> {
  await sql`select 1`.execute(db);
}

/** Opens `sqlite:<path>` (the default) or `postgres://...`. Does not migrate. */
export function openStorage(databaseUrl: string, options: StorageOptions = {}): Storage {
  if (databaseUrl.startsWith('postgres://') || databaseUrl.startsWith('postgresql://')) {
    const clock = options.clock ?? Date.now;
    // Redis's cool-off after a failure keeps real time: with a test's frozen `clock`, one slow reply (a loaded CI
    // machine) would leave the node reading the database for the rest of the test.
    // The shared version's key names the deployment, read through the database its own driver serves.
    const deploymentId = deploymentIdOf(() => db);
    const shared = options.redisUrl ? holdableWriteVersion(createRedisWriteVersion(options.redisUrl, deploymentId)) : undefined;
    const catalogChanges = options.redisUrl ? createRedisCatalogChanges(options.redisUrl, deploymentId) : POLL_ONLY;
    const onWriteVersionError = options.onWriteVersionError && atMostOncePer(1000, options.onWriteVersionError, clock);
    const postgres = createPostgres(databaseUrl, {
      ...options,
      ...(shared && { sharedWriteVersion: shared }),
      ...(onWriteVersionError && { onWriteVersionError }),
    });
    const db: Kysely<Database> = new Kysely<Database>({ dialect: postgres.dialect, log: queryLog(options) });
    const idListParameter = (ids: readonly string[]) => ids;
    return {
      db,
      dialect: 'postgres',
      inPhases: postgres.inPhases,
      idList: (ids) => sql<string>`(select unnest(${idListParameter(ids)}::text[]))`,
      idRows: (ids) => sql<{ value: string }>`(select unnest(${idListParameter(ids)}::text[]) as value)`.as('wanted'),
      idListParameter,
      concatenatedBlobs: (column) => sql<Uint8Array | null>`string_agg(${sql.ref(column)}, ''::bytea)`,
      inByteOrder: (column) => sql<string>`${sql.ref(column)} collate "C"`,
      writeVersion: shared
        ? async () => {
          const current = await shared.current();
          return current === null ? null : `${current}:${Math.floor(clock() / VERSION_MAX_AGE_MS)}`;
        }
        : () => null,
      deploymentId,
      ping: () => ping(db),
      migrating: (work) => (shared ? shared.holding(work, onWriteVersionError ?? (() => {})) : work()),
      lockCatalogWrites: catalogWriteLock('postgres'),
      catalogChanges,
      close: async () => {
        await db.destroy();
        await shared?.close();
        await catalogChanges.close();
      },
    };
  }
  if (databaseUrl.startsWith('sqlite:')) {
    const path = databaseUrl.slice('sqlite:'.length);
    const sqlite = createSqliteDialect(path, options.timeoutMs ? options.timeoutMs : undefined, options.sqliteCacheMb);
    const db = new Kysely<Database>({ dialect: sqlite.dialect, log: queryLog(options) });
    const deploymentId = deploymentIdOf(() => db);
    const catalogChanges = options.redisUrl ? createRedisCatalogChanges(options.redisUrl, deploymentId) : POLL_ONLY;
    const idListParameter = (ids: readonly string[]) => JSON.stringify(ids);
    return {
      db,
      dialect: 'sqlite',
      inPhases: sqlitePhases(db),
      idList: (ids) => sql<string>`(select value from json_each(${idListParameter(ids)}))`,
      idRows: (ids) => sql<{ value: string }>`json_each(${idListParameter(ids)})`.as('wanted'),
      idListParameter,
      // group_concat keeps a BLOB's bytes, NULs included, in a UTF-8 database (Maqam's are); the cast makes its TEXT a BLOB again.
      concatenatedBlobs: (column) => sql<Uint8Array | null>`cast(group_concat(${sql.ref(column)}, '') as blob)`,
      inByteOrder: (column) => sql<string>`${sql.ref(column)}`,
      writeVersion: sqlite.writeVersion,
      deploymentId,
      ping: () => ping(db),
      migrating: (work) => work(),
      lockCatalogWrites: catalogWriteLock('sqlite'),
      catalogChanges,
      ...(path === ':memory:' ? {} : { checkpointer: () => new Checkpointer(path), sqliteFile: path }),
      close: async () => {
        await db.destroy();
        await catalogChanges.close();
      },
    };
  }
  throw new Error(`DATABASE_URL must start with sqlite: or postgres://, got "${databaseUrl.split(':')[0]}:"`);
}

/** Applies every pending migration; returns the names applied. */
export async function migrateToLatest(storage: Storage): Promise<string[]> {
  return storage.migrating(async () => {
    const migrator = new Migrator({ db: storage.db, provider: migrations });
    const { error, results } = await migrator.migrateToLatest();
    if (error) throw error instanceof Error ? error : new Error(String(error));
    // A load into an empty catalog that was cut off before its end left these missing (not one under way: it builds them).
    await buildReadOnlyCatalogIndexes(storage, 'skip');
    return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
  });
}

/**
 * A query compiled once and run with each call's values bound in place of
 * its markers. Kysely would otherwise rebuild and recompile the query on
 * every call, which costs more than the indexed lookup itself on the
 * per-request paths (credential checks, BatchGetSongs; 40 to 57 us for a
 * library page's keyset query on a machine whose bare node:http answer costs
 * 73 us, bench/README.md at 9b0c7f5). `build` is called once, with `markers`; each call
 * binds `parametersOf(args)[i]` wherever the query bound
 * `parametersOf(markers)[i]`, so every marker must be bound at least once and
 * be a value bound nowhere else (`marker` makes such values). It runs on
 * `db`, or, through `on`, in a transaction of it.
 */
export function precompiledQuery<Row, Args extends readonly unknown[]>(
  db: Kysely<Database>,
  build: (...args: Args) => Compilable<Row>,
  markers: Args,
  parametersOf: (args: Args) => readonly unknown[] = (args) => args,
): PrecompiledQuery<Row, Args> {
  const compiled = build(...markers).compile();
  const markerTexts = parametersOf(markers).map((parameter) => JSON.stringify(parameter));
  if (new Set(markerTexts).size !== markerTexts.length) throw new Error('precompiledQuery: two markers bind the same value');
  // Per bound parameter: the argument it takes, or -1 where the query's own value stays.
  const argumentAt = compiled.parameters.map((parameter) => markerTexts.indexOf(JSON.stringify(parameter)));
  if (markerTexts.some((_, i) => !argumentAt.includes(i))) throw new Error('precompiledQuery: the query must bind every argument');
  const bound = (...args: Args): CompiledQuery<Row> => {
    const values = parametersOf(args);
    return { ...compiled, parameters: compiled.parameters.map((parameter, index) => (argumentAt[index] === -1 ? parameter : values[argumentAt[index]!])) };
  };
  const on = (executor: Kysely<Database>) => async (...args: Args): Promise<Row[]> => (await executor.executeQuery<Row>(bound(...args))).rows;
  return Object.assign(on(db), { on, compiled: bound });
}

/** A query compiled once (precompiledQuery): run on the database, or `on` a transaction of it, or `compiled` with values for another to run. */
export type PrecompiledQuery<Row, Args extends readonly unknown[]> = ((...args: Args) => Promise<Row[]>) & {
  on(executor: Kysely<Database>): (...args: Args) => Promise<Row[]>;
  compiled(...args: Args): CompiledQuery<Row>;
};

/**
 * A precompiled query's markers: the n-th text or number argument's value
 * while the query is built. No id, name, time or count is either: a text
 * marker starts with a NUL (which no stored text holds), a number marker is
 * a negative number a hair from zero.
 */
export const marker = {
  text: (n: number): string => `\u0000precompiled ${n}\u0000`,
  number: (n: number): number => -(n + 1) * 1e-300,
};

/** A precompiled query of one string value (a key id, a token hash). */
export function precompiledLookup<Row>(db: Kysely<Database>, build: (value: string) => Compilable<Row>): PrecompiledQuery<Row, [string]> {
  return precompiledQuery<Row, [string]>(db, build, [marker.text(0)]);
}

/** A precompiled query of an id list, bound as one value (Storage.idList): one statement serves any number of ids. */
export function precompiledIdListQuery<Row>(storage: Storage, build: (ids: RawBuilder<string>) => Compilable<Row>): PrecompiledQuery<Row, [readonly string[]]> {
  return precompiledQuery<Row, [readonly string[]]>(storage.db, (ids) => build(storage.idList(ids)), [[marker.text(0)]], ([ids]) => [storage.idListParameter(ids)]);
}

/**
 * PostgreSQL: gathers the planner's statistics of these tables now, as its
 * documentation advises after a bulk load ("Populating a Database"), rather
 * than whenever autovacuum gets to them (never, where it is off). Without
 * them, a 1M catalog freshly imported planned an album's track count as a
 * parallel scan of every song (350 ms) instead of an index read (0.3 ms).
 * SQLite plans from its indexes alone, so there it does nothing.
 */
export async function analyzeTables(storage: Storage, tables: readonly (keyof Database & string)[]): Promise<void> {
  if (storage.dialect !== 'postgres' || tables.length === 0) return;
  await sql`analyze ${sql.join(tables.map((table) => sql.table(table)))}`.execute(storage.db);
}
