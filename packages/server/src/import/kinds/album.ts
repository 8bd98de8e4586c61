import type { AlbumRecord } from '@maqam/contract';
import { addReference, images, lower, texts, type BatchRows } from '../batch-rows.ts';
import type { ImportProjection } from '../projection.ts';

/** An album record: its row, the artists it credits (references to check) and its rows of album_artists. */
export function addAlbum(rows: BatchRows, line: number, r: AlbumRecord): void {
  rows.noteId('album', r.id, line);
  rows.noteLanguages(r.title, r.originalLanguage);
  rows.albumIds.add(r.id);
  for (const id of r.artistIds) addReference(rows.artistRefs, id, line);
  const albumType = r.albumType ?? 'ALBUM_TYPE_ALBUM';
  rows.albums.push({
    id: r.id,
    title_i18n: texts(r.title),
    original_language: lower(r.originalLanguage),
    artist_ids: JSON.stringify(r.artistIds),
    release_date: r.releaseDate,
    artwork: images(r.artwork),
    album_type: albumType,
    label: r.label ?? '',
    genres: JSON.stringify(r.genres ?? []),
    withdrawn: r.withdrawn ? 1 : 0,
    updated_at: rows.now,
  });
  if (!r.withdrawn) {
    for (const artistId of new Set(r.artistIds)) {
      rows.albumArtists.push({ artist_id: artistId, album_id: r.id, release_date: r.releaseDate, album_type: albumType });
    }
  }
}

/** Writes the batch's albums and their credits (album_artists: the artists' album lists read them). */
export const writeAlbums: ImportProjection = async ({ trx, upsert, repo, rows }) => {
  await upsert(trx, 'albums', ['id'], rows.albums);
  // An album's credits, date, type or withdrawal may have changed: its rows are written again.
  await repo.removeAlbumCredits([...rows.albumIds]);
  await upsert(trx, 'album_artists', ['album_id', 'artist_id'], rows.albumArtists);
};
