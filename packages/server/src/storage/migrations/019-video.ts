import type { Kysely } from 'kysely';

/**
 * The video catalog (contract section 15): shows, their seasons and
 * episodes, films, the songs a show or film lists as its soundtrack, and
 * each user's parental cap. Texts, cast, genres, artwork and languages are
 * JSON columns written by the importer from validated values, as for songs.
 * `rating_rank` orders the age ratings (AGE_RATING_ALL 0 .. AGE_RATING_18 4;
 * an unrated show or film is 4), so a cap is one comparison; an episode's
 * own is 0 when it has none (its show's then decides).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('shows')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('title_i18n', 'text', (c) => c.notNull())
    .addColumn('description_i18n', 'text')
    .addColumn('original_language', 'text', (c) => c.notNull())
    .addColumn('genres', 'text', (c) => c.notNull())
    .addColumn('age_rating', 'text')
    .addColumn('rating_rank', 'integer', (c) => c.notNull())
    .addColumn('release_year', 'integer', (c) => c.notNull())
    .addColumn('cast_members', 'text', (c) => c.notNull())
    .addColumn('artwork', 'text', (c) => c.notNull())
    .addColumn('withdrawn', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('seasons')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('show_id', 'text', (c) => c.notNull().references('shows.id'))
    .addColumn('season_number', 'integer', (c) => c.notNull())
    .addColumn('title_i18n', 'text', (c) => c.notNull())
    .addColumn('description_i18n', 'text')
    .addColumn('original_language', 'text', (c) => c.notNull())
    .addColumn('air_date', 'text')
    .addColumn('artwork', 'text', (c) => c.notNull())
    .addColumn('withdrawn', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  // A show's seasons by number.
  await db.schema.createIndex('seasons_of_show').on('seasons').columns(['show_id', 'season_number', 'id']).execute();

  await db.schema
    .createTable('episodes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('season_id', 'text', (c) => c.notNull().references('seasons.id'))
    .addColumn('episode_number', 'integer', (c) => c.notNull())
    .addColumn('title_i18n', 'text', (c) => c.notNull())
    .addColumn('description_i18n', 'text')
    .addColumn('original_language', 'text', (c) => c.notNull())
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('air_date', 'text')
    .addColumn('guest_cast', 'text', (c) => c.notNull())
    .addColumn('artwork', 'text', (c) => c.notNull())
    .addColumn('audio_languages', 'text', (c) => c.notNull())
    .addColumn('subtitle_languages', 'text', (c) => c.notNull())
    .addColumn('age_rating', 'text')
    .addColumn('rating_rank', 'integer', (c) => c.notNull())
    .addColumn('credits_start_ms', 'integer')
    .addColumn('withdrawn', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  // A season's episodes by number: GetSeason's pages and a show's episode counts.
  await db.schema.createIndex('episodes_of_season').on('episodes').columns(['season_id', 'episode_number', 'id']).execute();

  await db.schema
    .createTable('movies')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('title_i18n', 'text', (c) => c.notNull())
    .addColumn('description_i18n', 'text')
    .addColumn('original_language', 'text', (c) => c.notNull())
    .addColumn('genres', 'text', (c) => c.notNull())
    .addColumn('age_rating', 'text')
    .addColumn('rating_rank', 'integer', (c) => c.notNull())
    .addColumn('release_date', 'text', (c) => c.notNull())
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('cast_members', 'text', (c) => c.notNull())
    .addColumn('artwork', 'text', (c) => c.notNull())
    .addColumn('audio_languages', 'text', (c) => c.notNull())
    .addColumn('subtitle_languages', 'text', (c) => c.notNull())
    .addColumn('credits_start_ms', 'integer')
    .addColumn('withdrawn', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();

  // A show's or film's soundtrack, in its order; a song's appearances read the second index.
  await db.schema
    .createTable('title_songs')
    .addColumn('title_kind', 'text', (c) => c.notNull())
    .addColumn('title_id', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('song_id', 'text', (c) => c.notNull().references('songs.id'))
    .addPrimaryKeyConstraint('title_songs_pk', ['title_kind', 'title_id', 'position'])
    .execute();
  await db.schema.createIndex('title_songs_by_song').on('title_songs').columns(['song_id', 'title_kind', 'title_id']).execute();

  // The parental cap the operator set (an AgeRating), or none.
  await db.schema.alterTable('users').addColumn('max_age_rating', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('users').dropColumn('max_age_rating').execute();
  for (const table of ['title_songs', 'episodes', 'seasons', 'shows', 'movies']) await db.schema.dropTable(table).ifExists().execute();
}
