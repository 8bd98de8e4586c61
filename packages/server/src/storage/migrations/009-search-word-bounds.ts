import { sql, type Kysely } from 'kysely';

/**
 * Each indexed word carries an upper bound of its postings' popularity (the
 * importer only ever raises it), so a search that has a full page can skip,
 * without a statement, every word whose best posting could not enter it: a
 * half-typed word expands to up to 200 words, most of them rare.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('search_vocabulary').addColumn('max_popularity', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
  // The walk index gives each word's best posting first.
  await sql`update search_vocabulary set max_popularity = coalesce(
    (select max(p.popularity) from search_postings p where p.word = search_vocabulary.word), 0)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('search_vocabulary').dropColumn('max_popularity').execute();
}
