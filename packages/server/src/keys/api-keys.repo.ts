import { sql, type Insertable, type Selectable } from 'kysely';
import type { ApiKeysTable, Db } from '../storage/database.ts';
import { VersionedCache, type WriteVersion } from '../storage/versioned-cache.ts';
import { precompiledLookup } from '../storage/storage.ts';

export type ApiKeyRow = Selectable<ApiKeysTable>;
export type NewApiKeyRow = Insertable<ApiKeysTable>;

/** Calls counted for a key on a day and an operation (the api_key_usage row they add to). */
export interface UsageRow {
  key_id: string;
  day: string;
  operation: string;
  calls: number;
  client_errors: number;
  rate_limited: number;
}

/**
 * `writeVersion` (Storage.writeVersion) lets a key be checked without a read
 * while the database has not changed: the server passes it; tools need not.
 */
export function createApiKeysRepo(db: Db, options: { writeVersion?: WriteVersion } = {}) {
  // One row for any id, its columns null where there is no key: a missing id is read as a present one is.
  const orNulls = precompiledLookup(db, (id) => db
    .selectFrom(db.selectNoFrom(sql<string>`cast(${id} as text)`.as('wanted')).as('w'))
    .leftJoin('api_keys', 'api_keys.id', 'w.wanted')
    .selectAll('api_keys'));
  const read = async (id: string): Promise<ApiKeyRow | undefined> => {
    const [row] = await orNulls(id);
    return row?.id == null ? undefined : (row as ApiKeyRow);
  };
  const rows = new VersionedCache<ApiKeyRow>(options.writeVersion ?? (() => null));
  /**
   * A key's secret is shown once, in the answer to the write that made it, and a retry of a write answered 503
   * would make another, or find the key rotated or revoked (409): each write whose retry would be answered
   * otherwise (insert, rotate, revokeOnce) is a transaction, so a COMMIT whose answer was lost is asked about on
   * PostgreSQL (storage/postgres.ts) and a write that committed is answered as done. The others set what a retry
   * sets again.
   */
  const inTransaction = <T>(write: (trx: Db) => Promise<T>) => db.transaction().execute(write);
  return {
    async insert(row: NewApiKeyRow): Promise<void> {
      await inTransaction((trx) => trx.insertInto('api_keys').values(row).execute());
    },
    async find(id: string): Promise<ApiKeyRow | undefined> {
      return rows.get(id, () => read(id));
    },
    /** The row kept in memory, if it is certainly current; never reads the database. */
    async peek(id: string): Promise<ApiKeyRow | undefined> {
      return rows.peek(id);
    },
    /** The row read from the database, whatever is kept: the same work for an id that does not exist. */
    async load(id: string): Promise<ApiKeyRow | undefined> {
      return rows.load(id, () => read(id));
    },
    /** Every key (or one developer's) with its owner's username, for operators. */
    async list(ownerId?: string): Promise<(ApiKeyRow & { owner_name: string | null })[]> {
      let query = db.selectFrom('api_keys').leftJoin('users', 'users.id', 'api_keys.owner_id').selectAll('api_keys').select('users.username as owner_name');
      if (ownerId !== undefined) query = query.where('api_keys.owner_id', '=', ownerId);
      return query.orderBy('api_keys.created_at').orderBy('api_keys.id').execute();
    },
    /** Sets revoked_at unless already revoked; true when the key exists. */
    async revoke(id: string, now: number): Promise<boolean> {
      await db.updateTable('api_keys').set({ revoked_at: now }).where('id', '=', id).where('revoked_at', 'is', null).execute();
      return (await this.find(id)) !== undefined;
    },
    /** Moves last_used_at forward only (nodes write it out of order). */
    async noteUse(id: string, now: number): Promise<void> {
      await db.updateTable('api_keys').set({ last_used_at: now }).where('id', '=', id)
        .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', now)])).execute();
    },
    async setExpiry(id: string, expiresAt: number): Promise<void> {
      await db.updateTable('api_keys').set({ expires_at: expiresAt }).where('id', '=', id).execute();
    },
    /**
     * Marks the key rotated at `now`, working until `expiresAt`, and inserts its successor, together; false (and
     * nothing written) when it was revoked or rotated meanwhile.
     */
    async rotate(id: string, now: number, expiresAt: number, successor: NewApiKeyRow): Promise<boolean> {
      return inTransaction(async (trx) => {
        const marked = await trx.updateTable('api_keys').set({ expires_at: expiresAt, rotated_at: now })
          .where('id', '=', id).where('revoked_at', 'is', null).where('rotated_at', 'is', null).executeTakeFirst();
        if (Number(marked.numUpdatedRows) === 0) return false;
        await trx.insertInto('api_keys').values(successor).execute();
        return true;
      });
    },
    /** Revokes the key unless it already is; true when this call revoked it. */
    async revokeOnce(id: string, now: number): Promise<boolean> {
      return inTransaction(async (trx) => {
        const updated = await trx.updateTable('api_keys').set({ revoked_at: now }).where('id', '=', id).where('revoked_at', 'is', null).executeTakeFirst();
        return Number(updated.numUpdatedRows) > 0;
      });
    },
    async update(id: string, changes: { name?: string; rate_limit_per_minute?: number }): Promise<void> {
      await db.updateTable('api_keys').set(changes).where('id', '=', id).execute();
    },
    /** A developer's keys after a (created_at, id) position, oldest first. */
    async listOwned(ownerId: string, after: readonly [number, string] | null, limit: number): Promise<ApiKeyRow[]> {
      let query = db.selectFrom('api_keys').selectAll().where('owner_id', '=', ownerId);
      if (after !== null) {
        query = query.where((eb) => eb.or([eb('created_at', '>', after[0]), eb.and([eb('created_at', '=', after[0]), eb('id', '>', after[1])])]));
      }
      return query.orderBy('created_at').orderBy('id').limit(limit).execute();
    },
    async countOwned(ownerId: string): Promise<number> {
      const row = await db.selectFrom('api_keys').select((eb) => eb.fn.countAll<number | string>().as('n')).where('owner_id', '=', ownerId).executeTakeFirstOrThrow();
      return Number(row.n);
    },
    /**
     * Adds counted calls to each (key, day, operation): one statement per row, whatever the number of requests
     * counted. In the rows' order (key, day, operation), whatever order they were counted in: two nodes flushing
     * the same rows in different orders at once each held a row the other waited for, and PostgreSQL ended one
     * flush as a deadlock (40P01), its counts kept for the next.
     */
    async addUsage(rows: readonly UsageRow[]): Promise<void> {
      if (rows.length === 0) return;
      const key = (row: UsageRow) => [row.key_id, row.day, row.operation] as const;
      const ordered = [...rows].sort((a, b) => {
        const [x, y] = [key(a), key(b)];
        for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i]! < y[i]! ? -1 : 1;
        return 0;
      });
      await db.transaction().execute(async (trx) => {
        for (const row of ordered) {
          await trx.insertInto('api_key_usage').values(row).onConflict((oc) => oc.columns(['key_id', 'day', 'operation']).doUpdateSet((eb) => ({
            calls: sql`${eb.ref('api_key_usage.calls')} + ${eb.ref('excluded.calls')}`,
            client_errors: sql`${eb.ref('api_key_usage.client_errors')} + ${eb.ref('excluded.client_errors')}`,
            rate_limited: sql`${eb.ref('api_key_usage.rate_limited')} + ${eb.ref('excluded.rate_limited')}`,
          }))).execute();
        }
      });
    },
    /** A key's counted calls from day `from` to day `to` (both included), by day then operation. */
    async usage(keyId: string, from: string, to: string): Promise<UsageRow[]> {
      const rows = await db.selectFrom('api_key_usage').selectAll().where('key_id', '=', keyId).where('day', '>=', from).where('day', '<=', to)
        .orderBy('day').orderBy('operation').execute();
      // PostgreSQL answers bigint as text.
      return rows.map((row) => ({ ...row, calls: Number(row.calls), client_errors: Number(row.client_errors), rate_limited: Number(row.rate_limited) }));
    },
  };
}

export type ApiKeysRepo = ReturnType<typeof createApiKeysRepo>;
