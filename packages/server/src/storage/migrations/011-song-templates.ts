import { PostgresAdapter, sql, type Kysely } from 'kysely';
import { buildSongTemplate } from '../../catalog/song-template.ts';
import type { SongRow } from '../../catalog/catalog.repo.ts';

const PAGE = 5000;

/**
 * Each song that is not withdrawn, pre-rendered (catalog/song-template.ts):
 * a song missing from the fragment cache is then one short row read by its
 * key, not a sixteen-column row to parse and render. (On SQLite the table is
 * WITHOUT ROWID here; 013-song-templates-rowid makes it a rowid table.)
 * Existing songs are rendered here, a page at a time.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  await db.schema
    .createTable('song_templates')
    .addColumn('id', 'text', (c) => c.primaryKey().notNull())
    .addColumn('template', postgres ? 'bytea' : 'blob', (c) => c.notNull())
    .$call((table) => (postgres ? table : table.modifyEnd(sql`without rowid`)))
    .execute();
  let after = '';
  for (;;) {
    const rows: SongRow[] = await db
      .selectFrom('songs')
      .select([
        'id', 'title_i18n', 'original_language', 'album_id', 'artist_ids', 'duration_ms', 'track_number', 'disc_number',
        'release_date', 'genres', 'is_explicit', 'isrc', 'has_lyrics', 'popularity', 'artwork', 'preview_url',
      ])
      .where('withdrawn', '=', 0)
      .where('id', '>', after)
      .orderBy('id')
      .limit(PAGE)
      .execute();
    if (rows.length === 0) break;
    await db.insertInto('song_templates').values(rows.map((row) => ({ id: row.id, template: buildSongTemplate(row) }))).execute();
    after = rows[rows.length - 1]!.id;
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('song_templates').execute();
}
