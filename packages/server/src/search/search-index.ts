import type { Kysely } from 'kysely';
import type { Database } from '../storage/database.ts';
import type { BulkUpsert } from '../storage/bulk-upsert.ts';
import type { CatalogWriteLock } from '../storage/catalog-write-lock.ts';
import { IndexMemo, recall, textsOf } from './index-memo.ts';
import { deleteEarlierCopies, mergeSegments, writeSegment } from './segments.ts';
import { popularityOf, type IndexedItem, type IndexedSongRow, type WrittenItems } from './search-item.ts';
import { createSearchIndexRepo, type SearchIndexRepo } from './search-index.repo.ts';
import { castNames } from '../video/cast.ts';

// Keeping the search index in step with the catalog: what a batch wrote is indexed again as a new segment
// (segments.ts), with the texts it is found by (normalized-texts.ts, index-memo.ts) and album popularity.

function withGroup(groups: (readonly string[])[], group: readonly string[] | undefined): (readonly string[])[] {
  if (group !== undefined) groups.push(group);
  return groups;
}


/**
 * Brings the search index in step with a batch the caller has just written,
 * in the caller's transaction (a search never sees half a batch). Indexed
 * again: the batch's items, the items found through them (songs and albums
 * of a renamed artist, songs of a renamed album) and albums whose popularity
 * the batch's songs changed. Their earlier copies are marked deleted in
 * their segments, withdrawn items leave the index, and the items indexed
 * again make a new segment; then segments are merged where the policy says.
 */
export async function updateSearchIndex(
  trx: Kysely<Database>,
  // Segments are read, changed and written back: writers take turns.
  _lock: CatalogWriteLock,
  upsert: BulkUpsert,
  written: WrittenItems,
  options: {
    dependents?: boolean;
    /** Merges of more live items than this wait (an import's end makes its segments one: runImport). */
    largestMerge?: number;
    /** What the import's earlier batches read (see IndexMemo). */
    memo?: IndexMemo;
  } = {},
): Promise<void> {
  // Without an import's memo a new, empty one serves: it has nothing to forget, so it needs no check.
  const memo = options.memo ?? new IndexMemo();
  if (options.memo) await memo.check(trx, written);
  const index = createSearchIndexRepo(trx, upsert);
  const list = (ids: Iterable<string>) => [...ids];
  const artistIds = list(written.artistIds);
  const songIds = new Set(written.songIds);
  const albumIds = new Set(written.albumIds);
  if (options.dependents !== false) {
    // Found through a batch artist or album: their postings hold its name.
    for (const id of await index.songsCrediting(artistIds)) songIds.add(id);
    for (const id of await index.albumsCrediting(artistIds)) albumIds.add(id);
    for (const id of await index.songsOnAlbums(list(written.albumIds))) songIds.add(id);
  }

  // The batch's own songs as it wrote them; the others (found through a renamed artist or album) as stored.
  const songs: IndexedSongRow[] = [];
  const stored: string[] = [];
  for (const id of songIds) {
    const row = written.songs?.get(id);
    if (row === undefined) stored.push(id);
    else if (row.withdrawn !== 1) songs.push(row);
  }
  songs.push(...await index.liveSongs(stored));
  const knownPopularity = await albumsWithNewPopularity(index, songs, albumIds, written.albumsToRecount, memo);
  for (const album of knownPopularity.keys()) albumIds.add(album);

  const artists = await index.liveArtists(artistIds);
  const albums = await index.liveAlbums(list(albumIds));
  const albumPopularity = await index.albumPopularity(albums.map((a) => a.id).filter((id) => !knownPopularity.has(id)));
  for (const [id, popularity] of knownPopularity) albumPopularity.set(id, popularity);

  // The names the related texts come from: artists (of songs and albums) and albums (of songs).
  const creditIds = new Set<string>();
  for (const row of [...albums, ...songs]) for (const id of JSON.parse(row.artist_ids) as string[]) creditIds.add(id);
  const names = await memo.texts(memo.artistNames, creditIds, index.artistNames);
  const titles = await memo.texts(memo.albumTitles, new Set(songs.map((s) => s.album_id)), index.albumTitles);
  const creditNames = (artistIdsJson: string): (readonly string[])[] => {
    const groups: (readonly string[])[] = [];
    for (const id of JSON.parse(artistIdsJson) as string[]) {
      const group = names.get(id);
      if (group !== undefined) groups.push(group);
    }
    return groups;
  };

  const showIds = list(written.showIds ?? []);
  const movieIds = list(written.movieIds ?? []);
  // A title is found by its name and by its cast's; a cap filters it by its rank (video/age-rating.ts).
  const titleItems = async (kind: 'show' | 'movie', ids: readonly string[]): Promise<IndexedItem[]> =>
    (await index.liveTitles(kind === 'show' ? 'shows' : 'movies', ids)).map((row) => ({
      kind, id: row.id, texts: textsOf(row.title_i18n), related: castNames(row.cast_members), popularity: 0, rank: row.rating_rank,
    }));

  const items: IndexedItem[] = [
    ...await titleItems('show', showIds),
    ...await titleItems('movie', movieIds),
    ...artists.map((row) => ({ kind: 'artist' as const, id: row.id, texts: textsOf(row.name_i18n), related: [], popularity: popularityOf(row.monthly_listeners) })),
    ...albums.map((row) => ({ kind: 'album' as const, id: row.id, texts: textsOf(row.title_i18n), related: creditNames(row.artist_ids), popularity: albumPopularity.get(row.id) ?? 0 })),
    ...songs.map((row) => ({
      kind: 'song' as const, id: row.id, texts: textsOf(row.title_i18n),
      related: withGroup(creditNames(row.artist_ids), titles.get(row.album_id)), popularity: popularityOf(row.popularity),
    })),
  ];

  await deleteEarlierCopies(index, [
    ['artist', artistIds], ['album', list(albumIds)], ['song', list(songIds).filter((id) => !written.newSongs?.has(id))], ['show', showIds], ['movie', movieIds],
  ]);
  const { wordsOf, words, vocabulary } = memo.normalizedTexts.searchWords(items);
  await writeSegment(index, items, wordsOf, words);
  for (const id of albumIds) memo.albumPopularity.delete(id); // withdrawn ones left the index
  for (const item of items) if (item.kind === 'album') memo.albumPopularity.set(item.id, item.popularity);
  await index.saveVocabulary(vocabulary);
  await mergeSegments(index, options.largestMerge);
}

/**
 * Albums not already being indexed again whose popularity the batch changed,
 * with their popularity now: those with songs that were already there are
 * recounted; the others have only gained songs, which raise them where they
 * are more popular (the index holds each album's most popular song).
 */
async function albumsWithNewPopularity(
  index: SearchIndexRepo,
  songs: readonly { album_id: string; popularity: number | string }[],
  reindexed: ReadonlySet<string>,
  toRecount: ReadonlySet<string>,
  memo: IndexMemo,
): Promise<Map<string, number>> {
  const recount = [...toRecount].filter((id) => !reindexed.has(id));
  const raisedTo = new Map<string, number>();
  for (const song of songs) {
    if (reindexed.has(song.album_id) || toRecount.has(song.album_id)) continue;
    const popularity = popularityOf(song.popularity);
    if (popularity > (raisedTo.get(song.album_id) ?? -1)) raisedTo.set(song.album_id, popularity);
  }
  const indexed = await recall(memo.albumPopularity, [...recount, ...raisedTo.keys()], index.indexedAlbumPopularity,
    (row) => [row.item_id, popularityOf(row.popularity)]);
  const now = await index.albumPopularity(recount);
  const changed = new Map<string, number>();
  // An album not in the index is withdrawn (or has no indexable title): nothing to change.
  for (const id of recount) if (indexed.has(id) && indexed.get(id) !== (now.get(id) ?? 0)) changed.set(id, now.get(id) ?? 0);
  for (const [id, popularity] of raisedTo) if (indexed.has(id) && popularity > indexed.get(id)!) changed.set(id, popularity);
  return changed;
}
