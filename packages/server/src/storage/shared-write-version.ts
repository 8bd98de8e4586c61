import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { AliasNode, DeleteQueryNode, InsertQueryNode, TableNode, UpdateQueryNode } from 'kysely';
import type { CompiledQuery, DatabaseConnection, Driver, OperationNode, QueryCompiler, TransactionSettings } from 'kysely';
import { coolingOffAfterFailure, createResilientRedis } from './redis-client.ts';

/**
 * PostgreSQL's counterpart of SQLite's data_version, for nodes that share a
 * Redis: a value every writer replaces after it commits, and every node reads
 * before it trusts a row it kept in memory (VersionedCache). A write's request
 * answers only after the value has changed, so every node's next request sees
 * it: a revocation made on one node is refused on every node from then on,
 * without a database read per request (credential checks were a PostgreSQL
 * round trip each, about 75 us of the two cores' CPU a cached GetSong).
 *
 * The value is random, not a counter: a Redis that restarts (it keeps
 * nothing on disk) cannot bring back a value some node still trusts.
 */
export interface SharedWriteVersion {
  /** The current value; null when Redis cannot tell (callers then read the database). */
  current(): Promise<string | null>;
  /** Replaces the value. Throws when Redis cannot be told (the writer reports it; see storage.ts). */
  bump(): Promise<void>;
  close(): Promise<void>;
}

/** Reads the value, creating one when Redis has none (first use, or after a restart). */
const CURRENT_SCRIPT = `
local value = redis.call('GET', KEYS[1])
if not value then
  value = ARGV[1]
  redis.call('SET', KEYS[1], value)
end
return value`;

/** Redis slower than this counts as down: a read falls back to the database, a write is reported. */
const COMMAND_TIMEOUT_MS = 250;
/** After a failure Redis is left alone this long, so an outage does not make every request wait out the timeout. */
const COOL_OFF_MS = 1000;

type VersionCommands = { maqamWriteVersion(key: string, fresh: string): Promise<string> };

/**
 * `deploymentId` (Storage.deploymentId) names the shared version: one Redis may serve
 * several deployments, whose writes must not clear each other's nodes, and
 * every process on one database must name it alike however its URL is
 * spelled. Before the deployment has an id (a database being migrated for
 * the first time) no process can be serving it, so there is nothing to tell.
 */
export function createRedisWriteVersion(url: string, deploymentId: () => Promise<string | undefined>, clock: () => number = Date.now): SharedWriteVersion {
  const keyOf = async () => {
    const id = await deploymentId();
    // The key keeps the name it was first deployed under: nodes of two releases must watch the same one.
    return id === undefined ? undefined : `maqam:write-epoch:${id}`;
  };
  const redis = createResilientRedis(url, COMMAND_TIMEOUT_MS) as Redis & VersionCommands;
  redis.defineCommand('maqamWriteVersion', { numberOfKeys: 1, lua: CURRENT_SCRIPT });
  let connecting: Promise<void> | undefined;
  const coolingOff = coolingOffAfterFailure(clock, COOL_OFF_MS);
  // The first command waits for the connection (nothing is queued while disconnected).
  const connected = () => (connecting ??= redis.connect().catch(() => {}));
  const run = <T>(command: () => Promise<T>): Promise<T> => coolingOff(async () => {
    await connected();
    return command();
  });

  const ask = async (): Promise<string | null> => {
    try {
      const key = await keyOf();
      return key === undefined ? null : await run(() => redis.maqamWriteVersion(key, randomUUID()));
    } catch {
      return null;
    }
  };
  /** The read under way, and the one that the callers who came while it ran share (current). */
  let asking: Promise<string | null> | undefined;
  let nextAsking: Promise<string | null> | undefined;
  const current = (): Promise<string | null> => {
    if (asking === undefined) {
      const read = ask();
      asking = read;
      void read.finally(() => {
        if (asking === read) asking = undefined;
      });
      return read;
    }
    // A read is under way, asked before this caller came: a write committed since may not be in its answer. The
    // callers who come while it runs share one read asked once it has answered, so each still sees every write
    // that committed before it came, and a node asks Redis once a round trip, not once a request.
    nextAsking ??= asking.then(() => {
      nextAsking = undefined;
      return current();
    });
    return nextAsking;
  };

  return {
    current,
    async bump() {
      try {
        const key = await keyOf();
        if (key !== undefined) await run(() => redis.set(key, randomUUID()));
      } catch (error) {
        throw new Error(`could not change the shared write version in Redis: ${(error as Error).message}`, { cause: error });
      }
    },
    async close() {
      redis.disconnect();
    },
  };
}

/**
 * A shared write version whose changes can be put off while a migration
 * runs (Storage.migrating), then made once after it. A migration's first
 * statements create tables before `settings` exists, and changing the
 * version reads the deployment's id from `settings`: on a fresh database
 * every one of them failed to tell Redis ("relation \"settings\" does not
 * exist"). Held, nothing reads `settings` until the migrations that make it
 * have run, and other nodes are told once, of the whole migration.
 */
export interface HoldableWriteVersion extends SharedWriteVersion {
  /**
   * Runs `work` with this process's changes of the version put off, then
   * makes one change if anything was written. A failure of that change is
   * told to `onError` (the write stands); after a failed `work` it is not,
   * since `settings` may not exist and the migration's own error says more.
   */
  holding<T>(work: () => Promise<T>, onError: (error: Error) => void): Promise<T>;
}

export function holdableWriteVersion(shared: SharedWriteVersion): HoldableWriteVersion {
  let holds = 0;
  let putOff = false;
  return {
    current: () => shared.current(),
    async bump() {
      if (holds > 0) putOff = true;
      else await shared.bump();
    },
    close: () => shared.close(),
    async holding(work, onError) {
      holds++;
      let succeeded = false;
      try {
        const result = await work();
        succeeded = true;
        return result;
      } finally {
        if (--holds === 0 && putOff) {
          putOff = false;
          await shared.bump().catch((error: unknown) => {
            if (succeeded) onError(error as Error);
          });
        }
      }
    },
  };
}

/**
 * Tables whose rows no cached credential is made from (VersionedCache keeps
 * access tokens, API keys and clients' origins): a user's library, written
 * on every save, follow, play, playlist edit and report of progress, and the
 * usage counts of API keys. Their writes leave the version be, so nodes
 * keep checking credentials from memory under a library's steady writes. A
 * table not named here changes the version: one added later that a cache
 * depends on cannot be missed by omission.
 */
const NO_CREDENTIAL_DEPENDS_ON: ReadonlySet<string> = new Set([
  'library_items', 'library_changes', 'library_counters', 'play_history', 'idempotency_records', 'playlists', 'playlist_items',
  'watch_progress', 'watch_reports', 'api_key_usage',
]);

/** The table an INSERT, UPDATE or DELETE writes, as Kysely built it; undefined for any other statement. */
function writtenTable(node: OperationNode): string | undefined {
  let target: OperationNode | undefined;
  if (InsertQueryNode.is(node)) target = node.into;
  else if (UpdateQueryNode.is(node)) target = node.table;
  else if (DeleteQueryNode.is(node)) target = node.from.froms.length === 1 ? node.from.froms[0] : undefined;
  if (target !== undefined && AliasNode.is(target)) target = target.node;
  return target !== undefined && TableNode.is(target) ? target.table.identifier.name : undefined;
}

/** Whether a statement may change what a cached credential is made from (any write but one of a library's tables). */
export function writesCredentialTables(query: CompiledQuery): boolean {
  const kind = query.query.kind;
  if (kind === 'SelectQueryNode') return false;
  if (kind === 'RawNode') return !/^\s*(select|show|explain)\b/i.test(query.sql);
  const table = writtenTable(query.query);
  return table === undefined || !NO_CREDENTIAL_DEPENDS_ON.has(table);
}

/**
 * A Kysely driver that changes the shared write version after every write
 * (but those of a library's tables, above) is
 * committed: after the statement outside a transaction, after COMMIT inside
 * one (a transaction that only read changes nothing). The caller's await ends
 * only after that, so a request that wrote answers after every node can know.
 * A failed bump does not fail the committed write (a retried refresh would
 * look like token reuse); it is reported (storage.ts reports at most one a
 * second), and other nodes' versions age out.
 */
export class VersionBumpingDriver implements Driver {
  readonly #inner: Driver;
  readonly #shared: SharedWriteVersion;
  readonly #onError: (error: Error) => void;
  readonly #wrapped = new WeakMap<DatabaseConnection, { inner: DatabaseConnection; inTransaction: boolean; wrote: boolean }>();

  constructor(inner: Driver, shared: SharedWriteVersion, onError: (error: Error) => void) {
    this.#inner = inner;
    this.#shared = shared;
    this.#onError = onError;
  }

  async #bump(): Promise<void> {
    try {
      await this.#shared.bump();
    } catch (error) {
      this.#onError(error as Error);
    }
  }

  #state(connection: DatabaseConnection) {
    const state = this.#wrapped.get(connection);
    if (state === undefined) throw new Error('VersionBumpingDriver: a connection it did not hand out');
    return state;
  }

  init(): Promise<void> {
    return this.#inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const inner = await this.#inner.acquireConnection();
    const state = { inner, inTransaction: false, wrote: false };
    const connection: DatabaseConnection = {
      executeQuery: async <R>(query: CompiledQuery) => {
        try {
          return await inner.executeQuery<R>(query);
        } finally {
          // Also after an error: a statement that timed out on this side may still have been applied.
          if (writesCredentialTables(query)) {
            if (state.inTransaction) state.wrote = true;
            else await this.#bump();
          }
        }
      },
      streamQuery: <R>(query: CompiledQuery, chunkSize?: number) => inner.streamQuery<R>(query, chunkSize),
    };
    this.#wrapped.set(connection, state);
    return connection;
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const state = this.#state(connection);
    await this.#inner.beginTransaction(state.inner, settings);
    state.inTransaction = true;
    state.wrote = false;
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const state = this.#state(connection);
    try {
      await this.#inner.commitTransaction(state.inner);
    } finally {
      // Also when COMMIT failed on this side: the server may have committed before the connection broke.
      state.inTransaction = false;
      if (state.wrote) await this.#bump();
    }
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const state = this.#state(connection);
    state.inTransaction = false;
    await this.#inner.rollbackTransaction(state.inner);
  }

  async savepoint(connection: DatabaseConnection, name: string, compileQuery: QueryCompiler['compileQuery']): Promise<void> {
    await this.#inner.savepoint!(this.#state(connection).inner, name, compileQuery);
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string, compileQuery: QueryCompiler['compileQuery']): Promise<void> {
    await this.#inner.rollbackToSavepoint!(this.#state(connection).inner, name, compileQuery);
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string, compileQuery: QueryCompiler['compileQuery']): Promise<void> {
    await this.#inner.releaseSavepoint!(this.#state(connection).inner, name, compileQuery);
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    const state = this.#state(connection);
    this.#wrapped.delete(connection);
    await this.#inner.releaseConnection(state.inner);
  }

  destroy(): Promise<void> {
    return this.#inner.destroy();
  }
}
