import { PostgresAdapter, type Kysely } from 'kysely';

/**
 * Films and episodes keep their answers as templates (video/title-template.ts)
 * in their rows: a title the fragment cache lacks is then one column copied,
 * not thirteen or sixteen parsed and rendered.
 *
 * Frozen: the templates are written by the live code, which this migration
 * does not import. Null until then: the import writes them with their
 * titles, and titles already in the catalog get theirs when the server finds
 * the format unrecorded and rebuilds it (video/title-templates.format.ts),
 * after the migrations.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const blob = db.getExecutor().adapter instanceof PostgresAdapter ? 'bytea' : 'blob';
  for (const table of ['movies', 'episodes']) await db.schema.alterTable(table).addColumn('template', blob).execute();
  // The columns are new, whatever a format record says (one left by migrating down and up again): rebuild them.
  await db.deleteFrom('settings').where('key', '=', 'format:video-title-templates').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['movies', 'episodes']) await db.schema.alterTable(table).dropColumn('template').execute();
}
