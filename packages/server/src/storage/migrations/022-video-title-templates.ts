import { PostgresAdapter, sql, type Kysely } from 'kysely';

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
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  for (const table of ['movies', 'episodes']) {
    await db.schema.alterTable(table).addColumn('template', postgres ? 'bytea' : 'blob').execute();
    // A film's row with its template is about 3 KB: past PostgreSQL's default 2 KB it would compress the template
    // (pglz), and every read would spend the backend's CPU undoing it (bench:video: 391 us a BatchGetMovies of
    // which 61 before). A row now stays whole in its page up to the page's size.
    if (postgres) await sql`alter table ${sql.table(table)} set (toast_tuple_target = 8160)`.execute(db);
  }
  // The columns are new, whatever a format record says (one left by migrating down and up again): rebuild them.
  await db.deleteFrom('settings').where('key', '=', 'format:video-title-templates').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['movies', 'episodes']) await db.schema.alterTable(table).dropColumn('template').execute();
}
