import { sql, type Kysely } from 'kysely';

/**
 * Contract section 10: album types, labels and genres; withdrawn artists and
 * albums; lyrics; and the index tables that let every list of the catalog be
 * an indexed keyset query (no list scans the songs table):
 *
 * - `song_artists`: one row per (credited artist, song that is not withdrawn),
 *   ordered for GetArtistTopTracks (popularity descending, then id);
 * - `album_artists`: one row per (credited artist, album that is not
 *   withdrawn), ordered for GetArtistDiscography (release date descending,
 *   then id), with or without an album type;
 * - `songs_by_album`: GetAlbumTracks' order (disc, track, id).
 *
 * The importer keeps both tables in step with the rows they index.
 * `songs.has_lyrics` becomes derived from `lyrics`, which starts empty.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('albums').addColumn('album_type', 'text', (c) => c.notNull().defaultTo('ALBUM_TYPE_ALBUM')).execute();
  await db.schema.alterTable('albums').addColumn('label', 'text', (c) => c.notNull().defaultTo('')).execute();
  await db.schema.alterTable('albums').addColumn('genres', 'text', (c) => c.notNull().defaultTo('[]')).execute();
  await db.schema.alterTable('albums').addColumn('withdrawn', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('artists').addColumn('withdrawn', 'integer', (c) => c.notNull().defaultTo(0)).execute();

  await db.schema
    .createTable('lyrics')
    .addColumn('song_id', 'text', (c) => c.primaryKey().references('songs.id'))
    .addColumn('language', 'text', (c) => c.notNull())
    // JSON array of the lines' texts, spliced into answers as stored.
    .addColumn('lines', 'text', (c) => c.notNull())
    // JSON array of SyncedLyricsLine in time order, or null for plain lyrics.
    .addColumn('synced_lines', 'text')
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await sql`update songs set has_lyrics = 0`.execute(db);

  await db.schema
    .createTable('song_artists')
    .addColumn('artist_id', 'text', (c) => c.notNull().references('artists.id'))
    .addColumn('song_id', 'text', (c) => c.notNull().references('songs.id'))
    .addColumn('popularity', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('song_artists_pk', ['song_id', 'artist_id'])
    .execute();
  await db.schema.createIndex('song_artists_top').on('song_artists').columns(['artist_id', 'popularity desc', 'song_id']).execute();

  await db.schema
    .createTable('album_artists')
    .addColumn('artist_id', 'text', (c) => c.notNull().references('artists.id'))
    .addColumn('album_id', 'text', (c) => c.notNull().references('albums.id'))
    .addColumn('release_date', 'text', (c) => c.notNull())
    .addColumn('album_type', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('album_artists_pk', ['album_id', 'artist_id'])
    .execute();
  await db.schema.createIndex('album_artists_by_date').on('album_artists').columns(['artist_id', 'release_date desc', 'album_id']).execute();
  await db.schema
    .createIndex('album_artists_by_type')
    .on('album_artists')
    .columns(['artist_id', 'album_type', 'release_date desc', 'album_id'])
    .execute();

  await db.schema.createIndex('songs_by_album').on('songs').columns(['album_id', 'disc_number', 'track_number', 'id']).execute();

  await backfill(db);
}

/** Fills the index tables from an existing catalog, a chunk of rows at a time. */
async function backfill(db: Kysely<any>): Promise<void> {
  const CHUNK = 5000;
  let after = '';
  for (;;) {
    const songs: { id: string; artist_ids: string; popularity: number }[] = await db
      .selectFrom('songs').select(['id', 'artist_ids', 'popularity'])
      .where('withdrawn', '=', 0).where('id', '>', after).orderBy('id').limit(CHUNK).execute();
    if (songs.length === 0) break;
    const rows = songs.flatMap((s) => [...new Set(JSON.parse(s.artist_ids) as string[])].map((artistId) => ({ artist_id: artistId, song_id: s.id, popularity: s.popularity })));
    for (let i = 0; i < rows.length; i += 1000) await db.insertInto('song_artists').values(rows.slice(i, i + 1000)).execute();
    after = songs[songs.length - 1]!.id;
  }
  after = '';
  for (;;) {
    const albums: { id: string; artist_ids: string; release_date: string }[] = await db
      .selectFrom('albums').select(['id', 'artist_ids', 'release_date'])
      .where('id', '>', after).orderBy('id').limit(CHUNK).execute();
    if (albums.length === 0) break;
    const rows = albums.flatMap((a) => [...new Set(JSON.parse(a.artist_ids) as string[])].map((artistId) => ({
      artist_id: artistId, album_id: a.id, release_date: a.release_date, album_type: 'ALBUM_TYPE_ALBUM',
    })));
    for (let i = 0; i < rows.length; i += 1000) await db.insertInto('album_artists').values(rows.slice(i, i + 1000)).execute();
    after = albums[albums.length - 1]!.id;
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('songs_by_album').execute();
  for (const table of ['album_artists', 'song_artists', 'lyrics']) await db.schema.dropTable(table).ifExists().execute();
  await db.schema.alterTable('artists').dropColumn('withdrawn').execute();
  for (const column of ['withdrawn', 'genres', 'label', 'album_type']) await db.schema.alterTable('albums').dropColumn(column).execute();
}
