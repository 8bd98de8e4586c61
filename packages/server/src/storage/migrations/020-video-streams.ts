import type { Kysely } from 'kysely';

/**
 * Video streams and continue watching (contract section 15): each title's
 * packaged HLS (its renditions, audio and subtitle tracks and AES-128 key,
 * streaming/video-package.ts), the billing windows of video acquisitions,
 * the content kind of each ledger row, and each user's viewing progress.
 */
export async function up(db: Kysely<any>): Promise<void> {
  // One package a title: the files under MAQAM_MEDIA_DIR/<directory>, what they hold, and the key of its segments.
  await db.schema
    .createTable('video_packages')
    .addColumn('title_kind', 'text', (c) => c.notNull())
    .addColumn('title_id', 'text', (c) => c.notNull())
    .addColumn('directory', 'text', (c) => c.notNull())
    .addColumn('renditions', 'text', (c) => c.notNull())
    .addColumn('audio', 'text', (c) => c.notNull())
    .addColumn('subtitles', 'text', (c) => c.notNull())
    .addColumn('key_hex', 'text', (c) => c.notNull())
    .addColumn('iv_hex', 'text', (c) => c.notNull())
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('video_packages_pk', ['title_kind', 'title_id'])
    .execute();

  // The billed window of (user, title, quality), as stream_entitlements is for songs.
  await db.schema
    .createTable('video_entitlements')
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('title_kind', 'text', (c) => c.notNull())
    .addColumn('title_id', 'text', (c) => c.notNull())
    .addColumn('quality', 'text', (c) => c.notNull())
    .addColumn('ledger_id', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('video_entitlements_pk', ['user_id', 'title_kind', 'title_id', 'quality'])
    .execute();

  // What a ledger row bills: a song (song_id is its id), a movie or an episode (song_id holds the title's id).
  await db.schema.alterTable('stream_ledger').addColumn('content_kind', 'text', (c) => c.notNull().defaultTo('song')).execute();

  // Every progress report as sent, once per (title, reportedAt): the history a resume point is chosen from.
  await db.schema
    .createTable('watch_reports')
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('title_kind', 'text', (c) => c.notNull())
    .addColumn('title_id', 'text', (c) => c.notNull())
    .addColumn('reported_at', 'bigint', (c) => c.notNull())
    .addColumn('position_ms', 'integer', (c) => c.notNull())
    .addColumn('restart', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('watch_reports_pk', ['user_id', 'title_kind', 'title_id', 'reported_at'])
    .execute();

  // Where a user is in each title they watched: the resume point, whether it is finished, whether it is hidden.
  await db.schema
    .createTable('watch_progress')
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('title_kind', 'text', (c) => c.notNull())
    .addColumn('title_id', 'text', (c) => c.notNull())
    .addColumn('show_id', 'text')
    .addColumn('position_ms', 'integer', (c) => c.notNull())
    .addColumn('reported_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('finished', 'integer', (c) => c.notNull())
    .addColumn('hidden', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('watch_progress_pk', ['user_id', 'title_kind', 'title_id'])
    .execute();
  await db.schema.createIndex('watch_progress_by_time').on('watch_progress').columns(['user_id', 'updated_at desc', 'title_kind', 'title_id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('stream_ledger').dropColumn('content_kind').execute();
  for (const table of ['watch_progress', 'watch_reports', 'video_entitlements', 'video_packages']) await db.schema.dropTable(table).ifExists().execute();
}
