import { updateSearchIndex } from '../search/search-index.ts';
import type { IndexedSongRow } from '../search/search-item.ts';
import type { ImportProjection } from './projection.ts';

/**
 * Brings the search index in step with the batch (search/search-index.ts):
 * its items, the items found through them, and the albums whose popularity
 * its songs changed.
 */
export const writeSearchTerms: ImportProjection = async ({ trx, lock, upsert, rows, replacedSongs, largestMerge, memo }) => {
  // Albums whose most popular song may now be a less popular one: those of songs already there (their album
  // now and before). A new song can only raise its album's popularity, which the index does without a recount.
  const albumsToRecount = new Set<string>();
  const albumOf = new Map(rows.songs.map((song) => [song.id, song.album_id]));
  for (const [id, albumBefore] of replacedSongs) {
    albumsToRecount.add(albumBefore);
    albumsToRecount.add(albumOf.get(id)!);
  }
  // Songs not in the catalog before this batch: nothing of theirs is in the index to delete.
  const newSongs = new Set([...rows.songIds].filter((id) => !replacedSongs.has(id)));
  const songs = new Map(rows.songs.map((song) => [song.id, song as IndexedSongRow]));
  await updateSearchIndex(trx, lock, upsert, {
    artistIds: rows.artistIds, albumIds: rows.albumIds, songIds: rows.songIds, showIds: rows.showIds, movieIds: rows.movieIds, albumsToRecount, songs, newSongs,
  }, {
    ...(largestMerge === undefined ? {} : { largestMerge }),
    ...(memo ? { memo } : {}),
  });
};
