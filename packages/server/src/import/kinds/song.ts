import type { SongRecord } from '@maqam/contract';
import { addReference, images, lower, texts, type BatchRows } from '../batch-rows.ts';

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
