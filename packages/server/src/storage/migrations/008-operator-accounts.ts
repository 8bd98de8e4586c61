import type { Kysely } from 'kysely';

/**
 * What operators manage from the CLI: a user can be disabled (no sign-in,
 * every grant revoked) and enabled again; an API key records when it was
 * last used (to the minute), so an operator can tell a dead key from a live
 * one before revoking it; the stream ledger is read by day, so by time.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('users').addColumn('disabled_at', 'bigint').execute();
  await db.schema.alterTable('api_keys').addColumn('last_used_at', 'bigint').execute();
  await db.schema.createIndex('oauth_grants_by_user').on('oauth_grants').column('user_id').execute();
  await db.schema.createIndex('oauth_grants_by_client').on('oauth_grants').column('client_id').execute();
  // Deleting a client deletes its grants' codes and tokens.
  await db.schema.createIndex('oauth_access_tokens_grant').on('oauth_access_tokens').column('grant_id').execute();
  await db.schema.createIndex('oauth_codes_grant').on('oauth_codes').column('grant_id').execute();
  await db.schema.createIndex('stream_ledger_by_time').on('stream_ledger').column('acquired_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('stream_ledger_by_time').execute();
  await db.schema.dropIndex('oauth_codes_grant').execute();
  await db.schema.dropIndex('oauth_access_tokens_grant').execute();
  await db.schema.dropIndex('oauth_grants_by_client').execute();
  await db.schema.dropIndex('oauth_grants_by_user').execute();
  await db.schema.alterTable('api_keys').dropColumn('last_used_at').execute();
  await db.schema.alterTable('users').dropColumn('disabled_at').execute();
}
