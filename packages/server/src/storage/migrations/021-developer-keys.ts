import type { Kysely } from 'kysely';

/**
 * Developers' own keys (contract section 16): users' roles, each key's
 * owner, scopes, own rate limit, format and rotation, and the usage counts
 * each node flushes at most once a minute.
 */
export async function up(db: Kysely<any>): Promise<void> {
  // Space-separated role names ('developer'); empty: none.
  await db.schema.alterTable('users').addColumn('roles', 'text', (c) => c.notNull().defaultTo('')).execute();

  // The developer who made the key; null: made by an operator with the CLI.
  await db.schema.alterTable('api_keys').addColumn('owner_id', 'text').execute();
  await db.schema.alterTable('api_keys').addColumn('scopes', 'text', (c) => c.notNull().defaultTo('catalog video playlists')).execute();
  await db.schema.alterTable('api_keys').addColumn('rate_limit_per_minute', 'integer').execute();
  // 1: `mk_<id>_<secret>` (before this migration); 2: with a CRC32 checksum after the secret.
  await db.schema.alterTable('api_keys').addColumn('format', 'integer', (c) => c.notNull().defaultTo(1)).execute();
  // Set when the key was rotated: its old secret works until expires_at.
  await db.schema.alterTable('api_keys').addColumn('rotated_at', 'bigint').execute();
  await db.schema.createIndex('api_keys_owner').on('api_keys').columns(['owner_id', 'created_at', 'id']).execute();

  // Calls per key, day (UTC, YYYY-MM-DD) and operation, added to by each node's flush.
  await db.schema
    .createTable('api_key_usage')
    .addColumn('key_id', 'text', (c) => c.notNull())
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('operation', 'text', (c) => c.notNull())
    .addColumn('calls', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('client_errors', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('rate_limited', 'bigint', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('api_key_usage_pk', ['key_id', 'day', 'operation'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('api_key_usage').execute();
  await db.schema.dropIndex('api_keys_owner').execute();
  for (const column of ['rotated_at', 'format', 'rate_limit_per_minute', 'scopes', 'owner_id']) {
    await db.schema.alterTable('api_keys').dropColumn(column).execute();
  }
  await db.schema.alterTable('users').dropColumn('roles').execute();
}
