import type { Kysely } from 'kysely';

/**
 * Playlists (contract section 14): a user's playlists and their entries.
 * Every row is its owner's: deleting the user deletes their playlists, and
 * deleting a playlist its entries (ON DELETE CASCADE).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('playlists')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('owner_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('visibility', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    // Every write makes it one more; also the ETag.
    .addColumn('version', 'bigint', (c) => c.notNull())
    .addColumn('item_count', 'integer', (c) => c.notNull())
    .addColumn('total_duration_ms', 'bigint', (c) => c.notNull())
    // The first four distinct albums of its entries, as a JSON array: what its cover is drawn from.
    .addColumn('cover_album_ids', 'text', (c) => c.notNull())
    // The version of the last write that gave every entry a new order key: a page token from before it finds its place by its entry.
    .addColumn('renumbered_version', 'bigint', (c) => c.notNull())
    .execute();
  // GetUserPlaylists: a user's playlists, newest first, then id.
  await db.schema.createIndex('playlists_by_owner').on('playlists').columns(['owner_id', 'created_at desc', 'id']).execute();

  await db.schema
    .createTable('playlist_items')
    .addColumn('playlist_id', 'text', (c) => c.notNull().references('playlists.id').onDelete('cascade'))
    .addColumn('item_id', 'text', (c) => c.notNull())
    // Where the entry stands: entries are in the order of their keys, with gaps between them, so an insert or a
    // move writes only the entries it places.
    .addColumn('order_key', 'bigint', (c) => c.notNull())
    .addColumn('song_id', 'text', (c) => c.notNull())
    // The song's duration when it was added: the playlist's total is kept as entries come and go.
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('added_at', 'bigint', (c) => c.notNull())
    // The version of the write that put the entry where it is (added or moved): paging skips what moved after it began.
    .addColumn('placed_version', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('playlist_items_pk', ['playlist_id', 'item_id'])
    .execute();
  // The playlist's order, and its keyset pages: it holds every column a page reads, so a page is read from it alone.
  await db.schema.createIndex('playlist_items_in_order').on('playlist_items')
    .columns(['playlist_id', 'order_key', 'item_id', 'song_id', 'added_at', 'placed_version']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['playlist_items', 'playlists']) await db.schema.dropTable(table).ifExists().execute();
}
