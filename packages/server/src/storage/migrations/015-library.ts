import type { Kysely } from 'kysely';

/**
 * The user's library (contract section 13): what they saved and follow,
 * what they played, the feed of their library's changes, and the answers
 * of their requests that carried an Idempotency-Key. Every table is the
 * user's: deleting the user deletes its rows (ON DELETE CASCADE).
 */
export async function up(db: Kysely<any>): Promise<void> {
  // Saved songs and albums, followed artists: one set per user, keyed by kind and id. The time is the first save.
  await db.schema
    .createTable('library_items')
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('item_id', 'text', (c) => c.notNull())
    .addColumn('saved_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('library_items_pk', ['user_id', 'kind', 'item_id'])
    .execute();
  // Lists of one kind (liked songs, followed artists), newest first then id: a keyset walk of this index.
  await db.schema.createIndex('library_items_by_kind_and_time').on('library_items').columns(['user_id', 'kind', 'saved_at desc', 'item_id']).execute();
  // Lists of several kinds (songs and albums).
  await db.schema.createIndex('library_items_by_time').on('library_items').columns(['user_id', 'saved_at desc', 'item_id', 'kind']).execute();

  // Each change to a user's library, numbered per user in commit order (library_counters counts them).
  await db.schema
    .createTable('library_changes')
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('number', 'bigint', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('item_id', 'text', (c) => c.notNull())
    .addColumn('change', 'text', (c) => c.notNull())
    .addColumn('changed_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('library_changes_pk', ['user_id', 'number'])
    .execute();
  // Each writer forgets its user's changes older than 90 days: a range of this index, whatever the user's count.
  await db.schema.createIndex('library_changes_by_time').on('library_changes').columns(['user_id', 'changed_at']).execute();
  // How many changes a user's library has had. A write takes this row first, so a user's writes take turns.
  // Not a column of users: no credential depends on these tables, so their writes leave credential caches be.
  await db.schema
    .createTable('library_counters')
    .addColumn('user_id', 'text', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('changes', 'bigint', (c) => c.notNull())
    .execute();

  // Plays as reported, keyed by the client's playId; skips are kept but not listed.
  await db.schema
    .createTable('play_history')
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('play_id', 'text', (c) => c.notNull())
    .addColumn('song_id', 'text', (c) => c.notNull())
    .addColumn('started_at', 'bigint', (c) => c.notNull())
    .addColumn('ms_played', 'integer', (c) => c.notNull())
    .addColumn('counted', 'integer', (c) => c.notNull())
    .addColumn('context', 'text')
    .addPrimaryKeyConstraint('play_history_pk', ['user_id', 'play_id'])
    .execute();
  // GetHistory: a user's counted plays, newest first then playId.
  await db.schema.createIndex('play_history_by_time').on('play_history').columns(['user_id', 'counted', 'started_at desc', 'play_id']).execute();
  // Retention: a user's plays older than MAQAM_HISTORY_DAYS, a range of this index.
  await db.schema.createIndex('play_history_by_start').on('play_history').columns(['user_id', 'started_at']).execute();

  // The answer to a request that carried an Idempotency-Key, per user; pending while the request runs.
  await db.schema
    .createTable('idempotency_records')
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('status', 'integer')
    .addColumn('headers', 'text')
    .addColumn('body', 'text')
    .addPrimaryKeyConstraint('idempotency_records_pk', ['user_id', 'key'])
    .execute();
  await db.schema.createIndex('idempotency_records_by_time').on('idempotency_records').columns(['user_id', 'created_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['idempotency_records', 'play_history', 'library_counters', 'library_changes', 'library_items']) await db.schema.dropTable(table).ifExists().execute();
}
