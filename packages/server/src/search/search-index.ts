import { PostgresAdapter, sql, type Insertable, type Kysely } from 'kysely';
import type { Database } from '../storage/database.ts';
import type { BulkUpsert } from '../storage/bulk-upsert.ts';
import { searchTerms, type SearchTerm } from '../text/normalize.ts';

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
  vocabulary: { word: string; keys: string; max_popularity: number }[];
} {
  const postings: Insertable<Database['search_postings']>[] = [];
  const vocabulary = new Map<string, { keys: string; max: number }>();
  // A batch repeats the same names and titles many times (a song carries its artists' names and album
  // title): each text is normalized once.
  const termsOf = new Map<string, readonly SearchTerm[]>();
  const wordsOf = (text: string): readonly SearchTerm[] => {
    let terms = termsOf.get(text);
    if (terms === undefined) {
      terms = searchTerms(text);
      termsOf.set(text, terms);
      for (const term of terms) if (!vocabulary.has(term.word)) vocabulary.set(term.word, { keys: term.keys.join(' '), max: 0 });
    }
    return terms;
  };
  for (const item of items) {
    const words = new Set<string>();
    for (const text of item.texts) {
      const terms = wordsOf(text);
      if (terms.length === 0) continue;
      words.add(wholeNameWord(terms.map((term) => term.word)));
      for (const term of terms) words.add(term.word);
    }
    for (const text of item.related) for (const term of wordsOf(text)) words.add(term.word);
    for (const word of words) {
      postings.push({ word, kind: item.kind, item_id: item.id, popularity: item.popularity });
      const entry = vocabulary.get(word);
      if (entry !== undefined && item.popularity > entry.max) entry.max = item.popularity;
    }
  }
  return { postings, vocabulary: [...vocabulary].map(([word, { keys, max }]) => ({ word, keys, max_popularity: max })) };
}

const CHUNK = 5000;

async function inChunks<T>(ids: readonly string[], read: (chunk: string[]) => Promise<T[]>): Promise<T[]> {
  const rows: T[] = [];
  for (let i = 0; i < ids.length; i += CHUNK) rows.push(...(await read(ids.slice(i, i + CHUNK))));
  return rows;
}

const textsOf = (json: string) => Object.values(JSON.parse(json) as Record<string, string>);

/**
 * The walk index: a word's postings most popular first, ties by id and kind
 * in byte order (on PostgreSQL through the "C" collation, migration 010), so
 * both dialects answer the same pages.
 */
async function createWalkIndex(db: Kysely<Database>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  await (postgres
    ? sql`create index if not exists search_postings_walk on search_postings (word, popularity desc, item_id collate "C", kind collate "C")`
    : sql`create index if not exists search_postings_walk on search_postings (word, popularity desc, item_id, kind)`
  ).execute(db);
}

/**
 * Runs a multi-batch load (an import, the demo seed). Into an empty index,
 * the walk index is dropped for the load and built once at the end: kept up
 * to date row by row, its random inserts cost about 300 of the 500 s of a
 * 1,000,000-song first import on SQLite, and building it from the finished
 * table takes 13 to 32 s. Every batch still writes its postings in its
 * own transaction; only the walk's shortcut is missing meanwhile, so a
 * search during a first load is slower, not wrong. A load cut off before
 * the end leaves the index missing: the next load builds it first. `load` is
 * told whether it is such a bulk load (its batches then write postings in
 * primary-key order, the index that remains).
 */
export async function withBulkSearchIndex<T>(db: Kysely<Database>, load: (bulkLoad: boolean) => Promise<T>): Promise<T> {
  await createWalkIndex(db);
  const empty = (await db.selectFrom('search_postings').select('word').limit(1).executeTakeFirst()) === undefined;
  if (!empty) return load(false);
  await sql`drop index if exists search_postings_walk`.execute(db);
  try {
    return await load(true);
  } finally {
    await createWalkIndex(db);
  }
}

type Posting = Insertable<Database['search_postings']>;
const byWord = (a: Posting, b: Posting) => (a.word < b.word ? -1 : a.word > b.word ? 1 : 0);
const byItem = (a: Posting, b: Posting) =>
  a.kind < b.kind ? -1 : a.kind > b.kind ? 1 : a.item_id < b.item_id ? -1 : a.item_id > b.item_id ? 1 : byWord(a, b);

/** What a batch wrote, and what it changed of songs already there (for album popularity). */
export interface WrittenItems {
  readonly artistIds: ReadonlySet<string>;
  readonly albumIds: ReadonlySet<string>;
  readonly songIds: ReadonlySet<string>;
  /**
   * Albums whose most popular song may now be less popular: those of the batch's songs that were already
   * there, before and after. (The albums of new songs are raised to them where they are more popular.)
   */
  readonly albumsToRecount: ReadonlySet<string>;
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
  options: { dependents?: boolean; bulk?: boolean } = {},
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
  // In the order of the index that takes them at the fewest places: the walk index (word first), or in a
  // bulk load, where there is none, the primary key (item first).
  postings.sort(options.bulk ? byItem : byWord);
  await upsert(trx, 'search_postings', ['kind', 'item_id', 'word'], postings);

  // Albums not indexed again above whose songs changed. Those with songs that were already there are
  // recounted; the others have only gained songs, which raise them where they are more popular.
  const recount = list(written.albumsToRecount).filter((id) => !albumIds.has(id));
  const raised = new Map<string, number>();
  for (const song of songs) {
    if (albumIds.has(song.album_id) || written.albumsToRecount.has(song.album_id)) continue;
    const popularity = popularityOf(song.popularity);
    if (popularity > (raised.get(song.album_id) ?? -1)) raised.set(song.album_id, popularity);
  }
  const albumPostings: Insertable<Database['search_postings']>[] = [];
  for (let i = 0; i < recount.length; i += CHUNK) {
    const current = await trx.selectFrom('songs').select((eb) => ['album_id', eb.fn.max<number>('popularity').as('popularity')])
      .where('album_id', 'in', recount.slice(i, i + CHUNK)).where('withdrawn', '=', 0).groupBy('album_id').execute();
    const now = new Map(current.map((row) => [row.album_id, popularityOf(row.popularity)]));
    albumPostings.push(...await setAlbumPopularity(trx, upsert, recount.slice(i, i + CHUNK).map((id) => [id, now.get(id) ?? 0]), 'set'));
  }
  const raise = [...raised];
  for (let i = 0; i < raise.length; i += CHUNK) albumPostings.push(...await setAlbumPopularity(trx, upsert, raise.slice(i, i + CHUNK), 'raise'));
  await raiseWordBounds(trx, upsert, vocabulary, albumPostings);
}

/**
 * Writes the batch's words with their phonetic keys, and raises each touched
 * word's popularity bound to its new postings' (the batch's and the albums'
 * raised above). Bounds only rise: a lowered popularity leaves a bound above
 * every posting, which is all a search needs of it.
 */
async function raiseWordBounds(
  trx: Kysely<Database>,
  upsert: BulkUpsert,
  words: readonly { word: string; keys: string; max_popularity: number }[],
  postings: readonly Insertable<Database['search_postings']>[],
): Promise<void> {
  const rows = new Map(words.map((row) => [row.word, { ...row }]));
  const raisedTo = new Map<string, number>();
  for (const posting of postings) raisedTo.set(posting.word, Math.max(raisedTo.get(posting.word) ?? 0, popularityOf(posting.popularity)));
  const touched = [...new Set([...rows.keys(), ...raisedTo.keys()])];
  for (let i = 0; i < touched.length; i += CHUNK) {
    const stored = await trx.selectFrom('search_vocabulary').select(['word', 'keys', 'max_popularity']).where('word', 'in', touched.slice(i, i + CHUNK)).execute();
    for (const row of stored) {
      const bound = Math.max(popularityOf(row.max_popularity), raisedTo.get(row.word) ?? 0);
      const batchRow = rows.get(row.word);
      if (batchRow === undefined) rows.set(row.word, { word: row.word, keys: row.keys, max_popularity: bound });
      else batchRow.max_popularity = Math.max(batchRow.max_popularity, bound);
    }
  }
  const changed = [...rows.values()];
  changed.sort((a, b) => (a.word < b.word ? -1 : a.word > b.word ? 1 : 0));
  await upsert(trx, 'search_vocabulary', ['word'], changed);
}

/**
 * Writes albums' popularity into their postings, only into those it changes
 * (each change moves the posting in the walk index): `set` to the value,
 * `raise` only where the value is higher. The postings are read by item and
 * written back in one bulk upsert a chunk (an UPDATE joined to a list of
 * values is planned as a scan of every album posting by SQLite).
 * Answers the postings it changed.
 */
async function setAlbumPopularity(
  trx: Kysely<Database>,
  upsert: BulkUpsert,
  albums: readonly (readonly [id: string, popularity: number])[],
  how: 'set' | 'raise',
): Promise<Insertable<Database['search_postings']>[]> {
  if (albums.length === 0) return [];
  const target = new Map(albums);
  const stored = await trx.selectFrom('search_postings').select(['word', 'item_id', 'popularity'])
    .where('kind', '=', 'album').where('item_id', 'in', [...target.keys()]).execute();
  const changed: Insertable<Database['search_postings']>[] = [];
  for (const row of stored) {
    const before = popularityOf(row.popularity);
    const after = how === 'set' ? target.get(row.item_id)! : Math.max(before, target.get(row.item_id)!);
    if (after !== before) changed.push({ word: row.word, kind: 'album', item_id: row.item_id, popularity: after });
  }
  await upsert(trx, 'search_postings', ['kind', 'item_id', 'word'], changed);
  return changed;
}
