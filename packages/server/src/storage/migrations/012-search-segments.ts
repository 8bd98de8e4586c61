import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * The search index's postings, packed (search/doclist.ts). A row a posting
 * made the 1M catalog's 15.3M postings cost two text-keyed B-trees of about
 * 550 MB each, most of an import's time, and a probe of the item-first index
 * for every posting a search passed when intersecting two common words. Now
 * the index is segments: each numbers its items in walk order, and stores a
 * word's postings in chunks of 16-bit offsets, so intersecting words is
 * bitwise work on a chunk and a page usually needs the first chunk only.
 *
 * Frozen: the index is written by the live code, which this migration does
 * not import. A catalog already imported is indexed again when the server
 * finds the index's format unrecorded and the segments empty
 * (search/search-index.format.ts), after the migrations.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const blob = postgres ? 'bytea' : 'blob';
  await db.schema
    .createTable('search_segments')
    .addColumn('id', 'integer', (c) => c.primaryKey().notNull())
    .addColumn('size', 'integer', (c) => c.notNull())
    .addColumn('deleted', blob)
    // How many bits `deleted` has set. Bits are only ever added, so the count names the bitmap's content:
    // a node keeps the bitmaps it read and reads one again only when its count has changed.
    .addColumn('deleted_count', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createTable('search_items')
    .addColumn('segment', 'integer', (c) => c.notNull())
    .addColumn('number', 'integer', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('item_id', 'text', (c) => c.notNull())
    .addColumn('popularity', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('search_items_pk', ['segment', 'number'])
    .$call((table) => (postgres ? table : table.modifyEnd(sql`without rowid`)))
    .execute();
  // Where an item is, to mark its earlier copy deleted when it is indexed again.
  await db.schema.createIndex('search_items_item').unique().on('search_items').columns(['kind', 'item_id']).execute();
  // Where a page token's item falls in a segment: walk order, ids and kinds in byte order on both dialects.
  await (postgres
    ? sql`create index search_items_walk on search_items (segment, popularity, item_id collate "C", kind collate "C")`
    : sql`create index search_items_walk on search_items (segment, popularity, item_id, kind)`
  ).execute(db);
  await db.schema
    .createTable('search_doclists')
    .addColumn('segment', 'integer', (c) => c.notNull())
    .addColumn('chunk', 'integer', (c) => c.notNull())
    .addColumn('word', 'text', (c) => c.notNull())
    .addColumn('offsets', blob, (c) => c.notNull())
    .addPrimaryKeyConstraint('search_doclists_pk', ['segment', 'chunk', 'word'])
    .execute();

  await db.schema.dropTable('search_postings').execute();
  // Each word's popularity bound let a walk skip words (migration 009); a search reads chunks now.
  await db.schema.alterTable('search_vocabulary').dropColumn('max_popularity').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('search_vocabulary').addColumn('max_popularity', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
  // The row-a-posting table comes back empty: the catalog is searchable again once imported again.
  await db.schema
    .createTable('search_postings')
    .addColumn('word', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('item_id', 'text', (c) => c.notNull())
    .addColumn('popularity', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('search_postings_pk', ['kind', 'item_id', 'word'])
    .execute();
  await db.schema.createIndex('search_postings_walk').on('search_postings').columns(['word', 'popularity desc', 'item_id', 'kind']).execute();
  await db.schema.dropTable('search_doclists').execute();
  await db.schema.dropTable('search_items').execute();
  await db.schema.dropTable('search_segments').execute();
}
