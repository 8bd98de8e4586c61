import type { Insertable, Kysely } from 'kysely';
import type { Database } from '../storage/database.ts';
import type { BulkUpsert } from '../storage/bulk-upsert.ts';
import { searchTerms } from '../text/normalize.ts';

export type SearchKind = 'song' | 'album' | 'artist';

/**
 * An item as the index sees it. `texts` are its own names or titles in every
 * language (they make the whole-name posting); `related` are the texts it
 * is also found by: a song's artists' names and album title, an album's
 * artists' names. Popularity is stored with each posting so a search walks
 * the postings of a word most popular first and stops at a page.
 */
export interface IndexedItem {
  readonly kind: SearchKind;
  readonly id: string;
  readonly texts: readonly string[];
  readonly related: readonly string[];
  readonly popularity: number;
}

/** The posting word of a whole name: '=' and its search words. */
export function wholeNameWord(words: readonly string[]): string {
  return `=${words.join(' ')}`;
}

/** Popularity as the contract orders by it, as an exact integer on both dialects. */
export function popularityOf(value: number | string | bigint | null | undefined): number {
  return Math.min(Number(value ?? 0), Number.MAX_SAFE_INTEGER);
}

/** The postings and vocabulary rows of these items. */
export function searchRows(items: readonly IndexedItem[]): {
  postings: Insertable<Database['search_postings']>[];
  vocabulary: Insertable<Database['search_vocabulary']>[];
} {
  const postings = new Map<string, Insertable<Database['search_postings']>>();
  const vocabulary = new Map<string, string>();
  for (const item of items) {
    const add = (word: string) => postings.set(`${word}\u0000${item.kind}\u0000${item.id}`, { word, kind: item.kind, item_id: item.id, popularity: item.popularity });
    for (const [own, texts] of [[true, item.texts], [false, item.related]] as const) {
      for (const text of texts) {
        const terms = searchTerms(text);
        if (terms.length === 0) continue;
        if (own) add(wholeNameWord(terms.map((term) => term.word)));
        for (const term of terms) {
          add(term.word);
          vocabulary.set(term.word, term.keys.join(' '));
        }
      }
    }
  }
  return { postings: [...postings.values()], vocabulary: [...vocabulary].map(([word, keys]) => ({ word, keys })) };
}

const CHUNK = 5000;

async function inChunks<T>(ids: readonly string[], read: (chunk: string[]) => Promise<T[]>): Promise<T[]> {
  const rows: T[] = [];
  for (let i = 0; i < ids.length; i += CHUNK) rows.push(...(await read(ids.slice(i, i + CHUNK))));
  return rows;
}

const textsOf = (json: string) => Object.values(JSON.parse(json) as Record<string, string>);

/** What a batch wrote, and what it changed of songs already there (for album popularity). */
export interface WrittenItems {
  readonly artistIds: ReadonlySet<string>;
  readonly albumIds: ReadonlySet<string>;
  readonly songIds: ReadonlySet<string>;
  /** Albums whose most popular song may have changed: those of the batch's songs, before and after. */
  readonly albumsOfSongs: ReadonlySet<string>;
}

/**
 * Brings the search index in step with a batch the caller has just written,
 * in the caller's transaction (a search never sees half a batch). Indexed
 * again: the batch's items, and the items found through them (songs and
 * albums of a renamed artist, songs of a renamed album); withdrawn items
 * leave the index. Albums whose songs changed get their popularity again.
 */
export async function updateSearchIndex(
  trx: Kysely<Database>,
  upsert: BulkUpsert,
  written: WrittenItems,
  options: { dependents?: boolean } = {},
): Promise<void> {
  const list = (ids: Iterable<string>) => [...ids];
  const artistIds = list(written.artistIds);
  const songIds = new Set(written.songIds);
  const albumIds = new Set(written.albumIds);
  if (options.dependents !== false) {
    // Found through a batch artist or album: their postings hold its name.
    const viaArtists = await inChunks(artistIds, (chunk) => trx.selectFrom('song_artists').select('song_id').where('artist_id', 'in', chunk).execute());
    for (const row of viaArtists) songIds.add(row.song_id);
    const albumsOfArtists = await inChunks(artistIds, (chunk) => trx.selectFrom('album_artists').select('album_id').where('artist_id', 'in', chunk).execute());
    for (const row of albumsOfArtists) albumIds.add(row.album_id);
    const viaAlbums = await inChunks(list(written.albumIds), (chunk) => trx.selectFrom('songs').select('id').where('album_id', 'in', chunk).execute());
    for (const row of viaAlbums) songIds.add(row.id);
  }

  for (const [kind, ids] of [['artist', artistIds], ['album', list(albumIds)], ['song', list(songIds)]] as const) {
    await inChunks(ids, async (chunk) => {
      await trx.deleteFrom('search_postings').where('kind', '=', kind).where('item_id', 'in', chunk).execute();
      return [];
    });
  }

  const artists = await inChunks(artistIds, (chunk) =>
    trx.selectFrom('artists').select(['id', 'name_i18n', 'monthly_listeners']).where('id', 'in', chunk).where('withdrawn', '=', 0).execute());
  const albums = await inChunks(list(albumIds), (chunk) =>
    trx.selectFrom('albums').select(['id', 'title_i18n', 'artist_ids']).where('id', 'in', chunk).where('withdrawn', '=', 0).execute());
  const songs = await inChunks(list(songIds), (chunk) =>
    trx.selectFrom('songs').select(['id', 'title_i18n', 'artist_ids', 'album_id', 'popularity']).where('id', 'in', chunk).where('withdrawn', '=', 0).execute());
  const albumPopularity = new Map(
    (await inChunks(albums.map((a) => a.id), (chunk) =>
      trx.selectFrom('songs').select((eb) => ['album_id', eb.fn.max<number>('popularity').as('popularity')])
        .where('album_id', 'in', chunk).where('withdrawn', '=', 0).groupBy('album_id').execute()))
      .map((row) => [row.album_id, popularityOf(row.popularity)]),
  );

  // The names the related texts come from: artists (of songs and albums) and albums (of songs).
  const creditIds = new Set<string>();
  for (const row of [...albums, ...songs]) for (const id of JSON.parse(row.artist_ids) as string[]) creditIds.add(id);
  const names = new Map((await inChunks(list(creditIds), (chunk) =>
    trx.selectFrom('artists').select(['id', 'name_i18n']).where('id', 'in', chunk).execute())).map((row) => [row.id, textsOf(row.name_i18n)]));
  const titles = new Map((await inChunks(list(new Set(songs.map((s) => s.album_id))), (chunk) =>
    trx.selectFrom('albums').select(['id', 'title_i18n']).where('id', 'in', chunk).execute())).map((row) => [row.id, textsOf(row.title_i18n)]));
  const creditNames = (artistIdsJson: string) => (JSON.parse(artistIdsJson) as string[]).flatMap((id) => names.get(id) ?? []);

  const items: IndexedItem[] = [
    ...artists.map((row) => ({ kind: 'artist' as const, id: row.id, texts: textsOf(row.name_i18n), related: [], popularity: popularityOf(row.monthly_listeners) })),
    ...albums.map((row) => ({ kind: 'album' as const, id: row.id, texts: textsOf(row.title_i18n), related: creditNames(row.artist_ids), popularity: albumPopularity.get(row.id) ?? 0 })),
    ...songs.map((row) => ({
      kind: 'song' as const, id: row.id, texts: textsOf(row.title_i18n),
      related: [...creditNames(row.artist_ids), ...(titles.get(row.album_id) ?? [])], popularity: popularityOf(row.popularity),
    })),
  ];
  const { postings, vocabulary } = searchRows(items);
  // In word order, so the walk index (word first) takes them region by region instead of at random pages.
  postings.sort((a, b) => (a.word < b.word ? -1 : a.word > b.word ? 1 : 0));
  await upsert(trx, 'search_postings', ['kind', 'item_id', 'word'], postings);
  await upsert(trx, 'search_vocabulary', ['word'], vocabulary);

  // Albums not indexed again above whose songs changed: their most popular song may be another.
  // Their postings are written again with the new popularity (one bulk statement), only where it changed.
  const refresh = list(written.albumsOfSongs).filter((id) => !albumIds.has(id));
  for (let i = 0; i < refresh.length; i += CHUNK) {
    const chunk = refresh.slice(i, i + CHUNK);
    const current = await trx.selectFrom('songs').select((eb) => ['album_id', eb.fn.max<number>('popularity').as('popularity')])
      .where('album_id', 'in', chunk).where('withdrawn', '=', 0).groupBy('album_id').execute();
    const now = new Map(current.map((row) => [row.album_id, popularityOf(row.popularity)]));
    const stored = await trx.selectFrom('search_postings').select(['word', 'item_id', 'popularity'])
      .where('kind', '=', 'album').where('item_id', 'in', chunk).execute();
    const changed = stored
      .filter((row) => popularityOf(row.popularity) !== (now.get(row.item_id) ?? 0))
      .map((row) => ({ word: row.word, kind: 'album' as const, item_id: row.item_id, popularity: now.get(row.item_id) ?? 0 }));
    await upsert(trx, 'search_postings', ['kind', 'item_id', 'word'], changed);
  }
}
