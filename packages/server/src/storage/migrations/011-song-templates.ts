import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * Each song that is not withdrawn, pre-rendered (catalog/song-template.ts):
 * a song missing from the fragment cache is then one short row read by its
 * key, not a sixteen-column row to parse and render. (On SQLite the table is
 * WITHOUT ROWID here; 013-song-templates-rowid makes it a rowid table.)
 *
 * Frozen: the templates are written by the live code, which this migration
 * does not import. The import writes them with their songs; songs already in
 * the catalog get theirs when the server finds the table's format unrecorded
 * and rebuilds it (catalog/song-templates.format.ts), after the migrations.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  await db.schema
    .createTable('song_templates')
    .addColumn('id', 'text', (c) => c.primaryKey().notNull())
    .addColumn('template', postgres ? 'bytea' : 'blob', (c) => c.notNull())
    .$call((table) => (postgres ? table : table.modifyEnd(sql`without rowid`)))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('song_templates').execute();
}
