import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // One row per packaged quality tier of a song; the files live under MAQAM_MEDIA_DIR.
  await db.schema
    .createTable('song_media')
    .addColumn('song_id', 'text', (c) => c.notNull().references('songs.id'))
    .addColumn('quality', 'text', (c) => c.notNull())
    .addColumn('codec', 'text', (c) => c.notNull())
    .addColumn('bitrate_kbps', 'integer', (c) => c.notNull())
    .addColumn('directory', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('song_media_pk', ['song_id', 'quality'])
    .execute();

  // Every billable acquisition, written before the answer is sent.
  await db.schema
    .createTable('stream_ledger')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('song_id', 'text', (c) => c.notNull())
    .addColumn('quality', 'text', (c) => c.notNull())
    .addColumn('acquired_at', 'bigint', (c) => c.notNull())
    .execute();

  // The billed window of (user, song, quality): acquisitions inside it are not billed again.
  await db.schema
    .createTable('stream_entitlements')
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('song_id', 'text', (c) => c.notNull())
    .addColumn('quality', 'text', (c) => c.notNull())
    .addColumn('ledger_id', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('stream_entitlements_pk', ['user_id', 'song_id', 'quality'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['stream_entitlements', 'stream_ledger', 'song_media']) await db.schema.dropTable(table).ifExists().execute();
}
