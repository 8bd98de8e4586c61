import { sql, type Selectable } from 'kysely';
import type { ApiKeysTable, Db } from '../storage/database.ts';
import { VersionedCache, type WriteVersion } from '../storage/versioned-cache.ts';
import { precompiledLookup } from '../storage/storage.ts';

export type ApiKeyRow = Selectable<ApiKeysTable>;

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
  return {
    async insert(row: ApiKeyRow): Promise<void> {
      await db.insertInto('api_keys').values(row).execute();
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
    async list(): Promise<ApiKeyRow[]> {
      return db.selectFrom('api_keys').selectAll().orderBy('created_at').orderBy('id').execute();
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
  };
}

export type ApiKeysRepo = ReturnType<typeof createApiKeysRepo>;
