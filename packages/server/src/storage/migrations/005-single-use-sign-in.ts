import type { Kysely } from 'kysely';

/**
 * Contract section 5 as now written: a failed code check (verifier, client,
 * redirect URI) does not spend the code, the fifth does, so the code needs a
 * count of them. A sign-in form yields at most one grant: the grant records
 * the form it came from, and that column is unique.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('oauth_codes').addColumn('failed_checks', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('oauth_grants').addColumn('form_id', 'text').execute();
  await db.schema.createIndex('oauth_grants_form_id').unique().on('oauth_grants').column('form_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('oauth_grants_form_id').execute();
  await db.schema.alterTable('oauth_grants').dropColumn('form_id').execute();
  await db.schema.alterTable('oauth_codes').dropColumn('failed_checks').execute();
}
