import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * A search walk reads a word's postings by popularity, then id and kind in
 * byte order (the same pages on both dialects). SQLite's index already
 * compares text bytewise; PostgreSQL's followed the database's collation, so
 * it had to read and sort every posting of the top popularity before
 * stopping (50 ms for a common word on the 1M catalog). In "C" the index
 * order is the walk's order and the walk stops at its page.
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`drop index search_postings_walk`.execute(db);
  await sql`create index search_postings_walk on search_postings (word, popularity desc, item_id collate "C", kind collate "C")`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`drop index search_postings_walk`.execute(db);
  await sql`create index search_postings_walk on search_postings (word, popularity desc, item_id, kind)`.execute(db);
}
