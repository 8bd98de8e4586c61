import type { SongRecord } from '@maqam/contract';
import type { Insertable } from 'kysely';
import type { SongRow } from '../../catalog/catalog.repo.ts';
import { buildSongTemplate } from '../../catalog/song-template.ts';
import type { SongTemplatesRepo } from '../../catalog/song-templates.repo.ts';
import type { Database } from '../../storage/database.ts';
import { addReference, images, lower, texts, type BatchRows, type PrebuiltTemplates } from '../batch-rows.ts';
import type { ImportProjection } from '../projection.ts';

/** A song record: its row, the album and artists it references, and its rows of song_artists. */
export function addSong(rows: BatchRows, line: number, r: SongRecord): void {
  rows.noteId('song', r.id, line);
  rows.noteLanguages(r.title, r.originalLanguage);
  addReference(rows.albumRefs, r.albumId, line);
  for (const artistId of r.artistIds) addReference(rows.artistRefs, artistId, line);
  rows.songs.push({
    id: r.id,
    title_i18n: texts(r.title),
    original_language: lower(r.originalLanguage),
    album_id: r.albumId,
    artist_ids: JSON.stringify(r.artistIds),
    duration_ms: r.durationMs,
    track_number: r.trackNumber,
    disc_number: r.discNumber,
    release_date: r.releaseDate,
    genres: JSON.stringify(r.genres),
    is_explicit: r.isExplicit ? 1 : 0,
    isrc: r.isrc,
    // Derived from the lyrics table once the batch is written; the record's hasLyrics is ignored.
    has_lyrics: 0,
    popularity: r.popularity,
    artwork: images(r.artwork),
    preview_url: r.previewUrl,
    withdrawn: r.withdrawn ? 1 : 0,
    updated_at: rows.now,
  });
  rows.songIds.add(r.id);
  if (!r.withdrawn) {
    for (const artistId of new Set(r.artistIds)) rows.songArtists.push({ artist_id: artistId, song_id: r.id, popularity: r.popularity });
  }
}

/**
 * Writes the batch's songs, their templates (song-template.ts: the read
 * path's rendered form) and their credits (song_artists: the artists' top
 * songs read them).
 */
export const writeSongs: ImportProjection = async ({ trx, upsert, repo, templates, rows }) => {
  const { songs } = rows;
  const songIds = [...rows.songIds];
  // hasLyrics is derived: true exactly when GetLyrics answers 200, i.e. when a lyrics row exists (in the
  // batch, or stored: lyrics are never deleted, so the flag only ever turns on).
  const withLyrics = new Set(rows.lyrics.keys());
  for (const id of await repo.songsWithLyrics(songIds)) withLyrics.add(id);
  for (const song of songs) song.has_lyrics = withLyrics.has(song.id) ? 1 : 0;
  // On PostgreSQL the server inserts the songs while this process builds their templates: the statement
  // goes out once the pending callbacks have run (setImmediate), then the templates are built.
  const songsWritten = upsert(trx, 'songs', ['id'], songs);
  songsWritten.catch(() => {}); // awaited below; a failure meanwhile is not an unhandled rejection
  await new Promise((resolve) => setImmediate(resolve));
  const built = songTemplateRows(songs, rows.templates);
  await songsWritten;
  await writeTemplatesOf(templates, songs, built);
  // A song's credits, popularity or withdrawal may have changed: its rows are written again.
  await repo.removeSongCredits(songIds);
  await upsert(trx, 'song_artists', ['song_id', 'artist_id'], rows.songArtists);
};

/** The templates of these songs but the withdrawn (song-template.ts): those built with the batch where they hold, else new ones. */
function songTemplateRows(songs: readonly Insertable<Database['songs']>[], prebuilt?: PrebuiltTemplates): Insertable<Database['song_templates']>[] {
  const rows: Insertable<Database['song_templates']>[] = [];
  songs.forEach((song, i) => {
    if (song.withdrawn === 1) return;
    const template = prebuilt !== undefined && prebuilt.hasLyrics[i] === song.has_lyrics
      ? prebuilt.bytes.subarray(i === 0 ? 0 : prebuilt.ends[i - 1], prebuilt.ends[i])
      : buildSongTemplate(song as SongRow);
    rows.push({ id: song.id, template });
  });
  return rows;
}

/** Pre-renders these songs as written; a withdrawn song loses its template, so it is not found. */
export async function writeTemplatesOf(
  templates: SongTemplatesRepo,
  songs: readonly Insertable<Database['songs']>[],
  built = songTemplateRows(songs),
): Promise<void> {
  await templates.write(built);
  await templates.remove(songs.filter((song) => song.withdrawn === 1).map((song) => song.id));
}
