import type { Kysely } from 'kysely';

/**
 * The search index of contract section 11, the same tables on both dialects
 * (so both answer the same pages). One posting per (search word, item) for
 * the names and titles of artists, albums and songs in every language, with
 * the words an item is also found by (a song's artists and album, an album's
 * artists) and the item's popularity, so a search walks a word's postings
 * most popular first; plus one posting per whole name ('=' and its words)
 * for the exact-name tier. And the vocabulary of every indexed word with its
 * phonetic keys, which nodes hold in memory to expand a query word into
 * prefix, typo and cross-script matches. The importer keeps both in step, in
 * the batch's transaction.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('search_postings')
    .addColumn('word', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('item_id', 'text', (c) => c.notNull())
    .addColumn('popularity', 'bigint', (c) => c.notNull())
    // Item first: re-indexing deletes an item's postings, and a walk checks an item's other words, both by item.
    .addPrimaryKeyConstraint('search_postings_pk', ['kind', 'item_id', 'word'])
    .execute();
  // The walk: a word's postings, most popular first, ties by id and kind.
  await db.schema.createIndex('search_postings_walk').on('search_postings').columns(['word', 'popularity desc', 'item_id', 'kind']).execute();
  await db.schema
    .createTable('search_vocabulary')
    .addColumn('word', 'text', (c) => c.primaryKey())
    // Space-separated phonetic keys of the word (text/normalize.ts).
    .addColumn('keys', 'text', (c) => c.notNull())
    .execute();
  // A catalog imported before this migration is indexed by migration 012, which replaced these postings.
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('search_vocabulary').ifExists().execute();
  await db.schema.dropTable('search_postings').ifExists().execute();
}
