import { type Kysely } from 'kysely';

// Migrations take Kysely<any>: they describe the schema as it was at that version, not as it is now.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('settings')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('catalog_languages')
    .addColumn('tag', 'text', (c) => c.primaryKey())
    .execute();

  await db.schema
    .createTable('artists')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name_i18n', 'text', (c) => c.notNull())
    .addColumn('original_language', 'text', (c) => c.notNull())
    .addColumn('bio_i18n', 'text')
    .addColumn('genres', 'text', (c) => c.notNull())
    .addColumn('follower_count', 'text', (c) => c.notNull())
    .addColumn('monthly_listeners', 'text', (c) => c.notNull())
    .addColumn('is_verified', 'integer', (c) => c.notNull())
    .addColumn('social_links', 'text', (c) => c.notNull())
    .addColumn('artwork', 'text', (c) => c.notNull())
    .addColumn('nationality', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('albums')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('title_i18n', 'text', (c) => c.notNull())
    .addColumn('original_language', 'text', (c) => c.notNull())
    .addColumn('artist_ids', 'text', (c) => c.notNull())
    .addColumn('release_date', 'text', (c) => c.notNull())
    .addColumn('artwork', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('songs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('title_i18n', 'text', (c) => c.notNull())
    .addColumn('original_language', 'text', (c) => c.notNull())
    .addColumn('album_id', 'text', (c) => c.notNull().references('albums.id'))
    // The credited artist ids, in credit order (JSON). The importer checks each exists.
    .addColumn('artist_ids', 'text', (c) => c.notNull())
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('track_number', 'integer', (c) => c.notNull())
    .addColumn('disc_number', 'integer', (c) => c.notNull())
    .addColumn('release_date', 'text', (c) => c.notNull())
    .addColumn('genres', 'text', (c) => c.notNull())
    .addColumn('is_explicit', 'integer', (c) => c.notNull())
    .addColumn('isrc', 'text', (c) => c.notNull())
    .addColumn('has_lyrics', 'integer', (c) => c.notNull())
    .addColumn('popularity', 'integer', (c) => c.notNull())
    .addColumn('artwork', 'text', (c) => c.notNull())
    .addColumn('preview_url', 'text', (c) => c.notNull())
    .addColumn('withdrawn', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('related_artists')
    .addColumn('artist_id', 'text', (c) => c.notNull().references('artists.id'))
    .addColumn('related_id', 'text', (c) => c.notNull().references('artists.id'))
    .addColumn('score', 'double precision', (c) => c.notNull())
    .addPrimaryKeyConstraint('related_artists_pk', ['artist_id', 'related_id'])
    .execute();
  // The keyset order of GetRelatedArtists: score descending, then related id.
  await db.schema
    .createIndex('related_artists_page')
    .on('related_artists')
    .columns(['artist_id', 'score desc', 'related_id'])
    .execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('secret_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint')
    .addColumn('revoked_at', 'bigint')
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['api_keys', 'related_artists', 'songs', 'albums', 'artists', 'catalog_languages', 'settings']) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
