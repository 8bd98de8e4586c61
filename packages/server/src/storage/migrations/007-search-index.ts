import type { Kysely } from 'kysely';
import { searchRows, type IndexedItem, type SearchKind } from '../../search/search-index.ts';

/**
 * The search index of contract section 11, the same tables on both dialects
 * (so both answer the same pages): one posting per (search word, item) for
 * the names and titles of artists, albums and songs in every language, plus
 * one posting per whole name ('=' and its words) for the exact-name tier; and
 * the vocabulary of every indexed word with its phonetic keys, which nodes
 * hold in memory to expand a query word into prefix, typo and cross-script
 * matches. The importer writes both in the batch's transaction.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('search_postings')
    .addColumn('word', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('item_id', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('search_postings_pk', ['word', 'kind', 'item_id'])
    .execute();
  // Re-indexing an item deletes its postings first.
  await db.schema.createIndex('search_postings_by_item').on('search_postings').columns(['kind', 'item_id']).execute();
  await db.schema
    .createTable('search_vocabulary')
    .addColumn('word', 'text', (c) => c.primaryKey())
    // Space-separated phonetic keys of the word (text/normalize.ts).
    .addColumn('keys', 'text', (c) => c.notNull())
    .execute();
  await backfill(db);
}

/** Indexes a catalog imported before this migration, a chunk of items at a time. */
async function backfill(db: Kysely<any>): Promise<void> {
  const sources: [SearchKind, string, string][] = [['artist', 'artists', 'name_i18n'], ['album', 'albums', 'title_i18n'], ['song', 'songs', 'title_i18n']];
  const vocabulary = new Map<string, string>();
  for (const [kind, table, column] of sources) {
    let after = '';
    for (;;) {
      const rows: { id: string; texts: string }[] = await db
        .selectFrom(table).select(['id', `${column} as texts`]).where('withdrawn', '=', 0).where('id', '>', after).orderBy('id').limit(5000).execute();
      if (rows.length === 0) break;
      const items: IndexedItem[] = rows.map((row) => ({ kind, id: row.id, texts: Object.values(JSON.parse(row.texts) as Record<string, string>), withdrawn: false }));
      const { postings, vocabulary: words } = searchRows(items);
      for (let i = 0; i < postings.length; i += 1000) await db.insertInto('search_postings').values(postings.slice(i, i + 1000)).onConflict((oc) => oc.doNothing()).execute();
      for (const { word, keys } of words) vocabulary.set(word, keys);
      after = rows[rows.length - 1]!.id;
    }
  }
  const rows = [...vocabulary].map(([word, keys]) => ({ word, keys }));
  for (let i = 0; i < rows.length; i += 1000) await db.insertInto('search_vocabulary').values(rows.slice(i, i + 1000)).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('search_vocabulary').ifExists().execute();
  await db.schema.dropTable('search_postings').ifExists().execute();
}
