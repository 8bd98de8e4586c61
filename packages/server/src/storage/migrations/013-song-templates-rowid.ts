import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * SQLite: song templates in a rowid table with an index on the id, instead
 * of a WITHOUT ROWID table. A WITHOUT ROWID table is a B-tree whose inner
 * pages hold whole rows: with templates of about 650 bytes, five a page, so
 * the 1M catalog's tree had eight levels and 30,465 inner pages (119 MB),
 * and a lookup read two or three pages from outside SQLite's cache. Now the
 * id's index has small entries and the table's inner pages hold integers, so
 * both trees' inner pages stay in the cache. Random reads on the 1M catalog:
 * 6.5 -> 4.8 us an id for 14 ids, 5.5 -> 3.8 for 85 (bench/README.md at 9b0c7f5).
 *
 * (Keying the table by an integer hash of the id read faster still, 3.6 and
 * 2.5 us, but its random keys made every import batch write pages all over
 * the table: the 1M import took 126.6 s instead of 100.2.)
 *
 * The old table's pages stay in the file as free pages, which later writes
 * reuse: on the 1M catalog the file grew from 1.99 to 2.72 GB, 185,970
 * of its pages free. `VACUUM` (with the server stopped) gives them back.
 *
 * PostgreSQL's table is a heap with an index on the id already: nothing to do.
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) return;
  await rebuild(db, sql``);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) return;
  await rebuild(db, sql`without rowid`);
}

/** The same columns and rows in a table of the given kind, copied in id order. */
async function rebuild(db: Kysely<any>, kind: ReturnType<typeof sql>): Promise<void> {
  await db.schema.alterTable('song_templates').renameTo('song_templates_before').execute();
  await db.schema
    .createTable('song_templates')
    .addColumn('id', 'text', (c) => c.primaryKey().notNull())
    .addColumn('template', 'blob', (c) => c.notNull())
    .modifyEnd(kind)
    .execute();
  await db
    .insertInto('song_templates')
    .columns(['id', 'template'])
    .expression(db.selectFrom('song_templates_before').select(['id', 'template']).orderBy('id'))
    .execute();
  await db.schema.dropTable('song_templates_before').execute();
}
