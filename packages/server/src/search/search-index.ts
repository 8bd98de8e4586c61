import type { Insertable, Kysely } from 'kysely';
import type { Database } from '../storage/database.ts';
import type { BulkUpsert } from '../storage/bulk-upsert.ts';
import type { CatalogWriteLock } from '../storage/catalog-write-lock.ts';
import { searchTerms, type SearchTerm } from '../text/normalize.ts';
import { CHUNK_SIZE, decodeChunk, encodeChunk, withDeleted } from './doclist.ts';

export type SearchKind = 'song' | 'album' | 'artist';

/**
 * An item as the index sees it. `texts` are its own names or titles in every
 * language (they make the whole-name posting); `related` are the texts it
 * is also found by, a group per artist or album: a song's artists' names
 * and album title, an album's artists' names. A group is the array the
 * names are kept in (IndexMemo), the same for every item that names it.
 */
export interface IndexedItem {
  readonly kind: SearchKind;
  readonly id: string;
  readonly texts: readonly string[];
  readonly related: readonly (readonly string[])[];
  readonly popularity: number;
}

/** The posting word of a whole name: '=' and its search words. */
export function wholeNameWord(words: readonly string[]): string {
  return `=${words.join(' ')}`;
}

/** The posting word every item of a kind has ('#' is never part of a search word), to filter by `types`. */
export function kindWord(kind: SearchKind): string {
  return `#${kind}`;
}

/** Popularity as the contract orders by it, as an exact integer on both dialects. */
export function popularityOf(value: number | string | bigint | null | undefined): number {
  return Math.min(Number(value ?? 0), Number.MAX_SAFE_INTEGER);
}

/**
 * Ids and kinds compare in UTF-8 byte order, as SQLite's BINARY and
 * PostgreSQL's "C" collations do. UTF-8 keeps code point order, so code
 * points are compared (UTF-16 code units would put U+E000..U+FFFF after
 * supplementary characters), without encoding either string.
 */
export function compareBytes(a: string, b: string): number {
  if (a === b) return 0;
  const shorter = Math.min(a.length, b.length);
  for (let i = 0; i < shorter; i++) {
    const x = a.codePointAt(i)!;
    const y = b.codePointAt(i)!;
    if (x !== y) return x < y ? -1 : 1;
    if (x > 0xffff) i++; // the same pair of surrogates in both
  }
  return a.length - b.length;
}

/** The order a search reads items in, relevance aside (contract section 11): popularity, highest first, then id, then kind. */
export function compareWalk(a: { popularity: number; id: string; kind: string }, b: { popularity: number; id: string; kind: string }): number {
  return b.popularity - a.popularity || compareBytes(a.id, b.id) || compareBytes(a.kind, b.kind);
}

/**
 * The posting words an import has met, each numbered the first time, and
 * each search term (a word with its phonetic keys). A text's words are kept
 * as numbers (TextWords), so a batch's postings are built by index: a
 * million items name about ten words each, and looking those strings up
 * again in every batch was most of the index's time on the importing thread.
 */
class WordNumbers {
  readonly words: string[] = [];
  readonly #numbers = new Map<string, number>();
  /** Per term: its word's number, and its vocabulary row's keys. */
  readonly termWord: number[] = [];
  readonly termKeys: string[] = [];
  readonly #terms = new Map<string, number>();
  /** The kind words, numbered first. */
  readonly kinds: Readonly<Record<SearchKind, number>> = {
    song: this.word(kindWord('song')), album: this.word(kindWord('album')), artist: this.word(kindWord('artist')),
  };

  word(word: string): number {
    let number = this.#numbers.get(word);
    if (number === undefined) {
      number = this.words.length;
      this.#numbers.set(word, number);
      this.words.push(word);
    }
    return number;
  }

  term(term: SearchTerm): number {
    const keys = term.keys.join(' ');
    // A word is never empty and has no '\n'; its keys are its own.
    const text = `${term.word}\n${keys}`;
    let number = this.#terms.get(text);
    if (number === undefined) {
      number = this.termWord.length;
      this.#terms.set(text, number);
      this.termWord.push(this.word(term.word));
      this.termKeys.push(keys);
    }
    return number;
  }
}

/** A normalized text: its terms and their words, by number, and its whole-name word (-1 for a text without words). */
interface TextWords {
  readonly terms: readonly number[];
  readonly words: readonly number[];
  readonly whole: number;
  /** The last call of searchWords that took its terms' vocabulary rows. */
  visited: number;
}

/**
 * A load repeats the same names and titles many times, within a batch and
 * across batches (a song carries its artists' names and album title; an
 * album is indexed again whenever a new song raises its popularity): each
 * text is normalized once while it is among the recently seen. Two
 * generations of MEMO_SIZE: when the newer fills, it becomes the older and
 * the texts still in use move up on their next use, so a load whose texts
 * outnumber one generation does not start again from nothing (the 1M demo
 * catalog has about 150,000 distinct texts). The normalizer is a pure
 * function, so a remembered result is always right. An import's IndexMemo
 * holds one for the whole import and drops it with the memo at its end, so
 * a server keeps none. The word numbers last as long as the texts that use
 * them: once they pass NUMBERED_WORDS (mostly whole names, about one a
 * distinct text), the next call of searchWords starts both again.
 */
const MEMO_SIZE = 100_000;
const NUMBERED_WORDS = 1_000_000;

/**
 * A group's words, by the group's identity: a song names its artists and
 * album, which many songs of every batch name too. Looking each of their
 * texts up by content in every batch was 5 s of the 1M import's main
 * thread. A group is the array an IndexMemo keeps the names in, so the
 * entry lives as long as the memo keeps the names.
 */
interface GroupWords {
  readonly words: readonly number[];
  readonly terms: readonly number[];
  visited: number;
}

export class NormalizedTexts {
  #wordNumbers = new WordNumbers();
  #recentTexts = new Map<string, TextWords>();
  #olderTexts = new Map<string, TextWords>();
  #calls = 0;
  #groupWords = new WeakMap<readonly string[], GroupWords>();

  #normalized(text: string): TextWords {
    let known = this.#recentTexts.get(text);
    if (known !== undefined) return known;
    known = this.#olderTexts.get(text);
    if (known === undefined) {
      const wordNumbers = this.#wordNumbers;
      const terms = searchTerms(text);
      const termNumbers = terms.map((term) => wordNumbers.term(term));
      known = {
        terms: termNumbers,
        words: termNumbers.map((term) => wordNumbers.termWord[term]!),
        whole: terms.length === 0 ? -1 : wordNumbers.word(wholeNameWord(terms.map((term) => term.word))),
        visited: 0,
      };
    }
    if (this.#recentTexts.size >= MEMO_SIZE) {
      this.#olderTexts = this.#recentTexts;
      this.#recentTexts = new Map();
    }
    this.#recentTexts.set(text, known);
    return known;
  }

  #forget(): void {
    this.#wordNumbers = new WordNumbers();
    this.#groupWords = new WeakMap();
    this.#recentTexts = new Map();
    this.#olderTexts = new Map();
  }

  /**
   * Each item's posting words (by number), the numbered words, and the
   * vocabulary rows of the items' search words (a word's keys as its first
   * appearance here has them). An item's list may name a word more than once
   * (a song's title word that is also its album's): writeSegment keeps one
   * posting an item, by its last number, instead of a set per item here.
   * (The loop that built the sets was 6.2 s of a 219 s profile of the 1M
   * import; the import's time did not measurably change without them on a
   * noisy machine, bench/README.md.)
   */
  searchWords(items: readonly IndexedItem[]): {
    wordsOf: ItemWords;
    words: readonly string[];
    vocabulary: { word: string; keys: string }[];
  } {
    if (this.#wordNumbers.words.length > NUMBERED_WORDS) this.#forget();
    const call = ++this.#calls;
    const { termWord, termKeys, kinds } = this.#wordNumbers;
    /** Each search word's first term here. */
    const firstTerms = new Map<number, number>();
    /** Takes the vocabulary rows of a text's or group's terms, once a call. */
    const visit = <Known extends { readonly terms: readonly number[]; visited: number }>(known: Known): Known => {
      if (known.visited !== call) {
        known.visited = call;
        for (const term of known.terms) if (!firstTerms.has(termWord[term]!)) firstTerms.set(termWord[term]!, term);
      }
      return known;
    };
    const wordsOfGroup = (group: readonly string[]): readonly number[] => {
      let known = this.#groupWords.get(group);
      if (known === undefined) {
        const texts = group.map((text) => this.#normalized(text));
        known = { words: texts.flatMap((text) => text.words), terms: texts.flatMap((text) => text.terms), visited: 0 };
        this.#groupWords.set(group, known);
      }
      return visit(known).words;
    };
    const all: number[] = [];
    const starts = new Uint32Array(items.length + 1);
    items.forEach((item, i) => {
      all.push(kinds[item.kind]);
      for (const text of item.texts) {
        const { words, whole } = visit(this.#normalized(text));
        if (whole >= 0) {
          all.push(whole);
          for (const word of words) all.push(word);
        }
      }
      for (const group of item.related) for (const word of wordsOfGroup(group)) all.push(word);
      starts[i + 1] = all.length;
    });
    const { words } = this.#wordNumbers;
    const vocabulary = [...firstTerms].map(([word, term]) => ({ word: words[word]!, keys: termKeys[term]! }));
    return {
      wordsOf: { numbers: Int32Array.from(all), starts },
      words,
      vocabulary: vocabulary.sort((a, b) => (a.word < b.word ? -1 : a.word > b.word ? 1 : 0)),
    };
  }
}

/** Every item's word numbers, one run after another: item i's are numbers[starts[i]] up to numbers[starts[i + 1]]. */
export interface ItemWords {
  readonly numbers: Int32Array;
  readonly starts: Uint32Array;
}

const CHUNK = 5000;

async function inChunks<T>(ids: readonly string[], read: (chunk: string[]) => Promise<T[]>): Promise<T[]> {
  const rows: T[] = [];
  for (let i = 0; i < ids.length; i += CHUNK) rows.push(...(await read(ids.slice(i, i + CHUNK))));
  return rows;
}

const textsOf = (json: string) => Object.values(JSON.parse(json) as Record<string, string>);

function withGroup(groups: (readonly string[])[], group: readonly string[] | undefined): (readonly string[])[] {
  if (group !== undefined) groups.push(group);
  return groups;
}

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
  /** Rows of `songIds` as the batch wrote them, so they need not be read back (an import's batch). */
  readonly songs?: ReadonlyMap<string, IndexedSongRow>;
  /** Songs of `songIds` that were not in the catalog before the batch, so not in the index either. */
  readonly newSongs?: ReadonlySet<string>;
}

/** The columns of a song the index reads. */
export interface IndexedSongRow {
  readonly id: string;
  readonly title_i18n: string;
  readonly artist_ids: string;
  readonly album_id: string;
  readonly popularity: number | string;
  readonly withdrawn?: number;
}

/** The most entries each of an IndexMemo's maps keeps (names, titles, album popularity). */
const MEMO_ENTRIES = 1_000_000;

/**
 * What an import's batches keep between them so that each need not read it
 * again: the names songs and albums are found by (their artists' names, a
 * song's album title). The 1M demo import read them back in every batch, 7 s
 * of its 137. The memo is right for the catalog version the import's last
 * batch wrote: a write by anyone else (another import, on any node) changes
 * the version, and a batch that rolled back leaves it unknown, so the next
 * batch starts again from the database. The batch's own artists and albums
 * are read again (they may be renamed).
 */
export class IndexMemo {
  /** The texts the import has normalized (kept across batches whatever the catalog version: normalizing is pure). */
  readonly normalizedTexts = new NormalizedTexts();
  readonly artistNames = new Map<string, readonly string[]>();
  readonly albumTitles = new Map<string, readonly string[]>();
  /**
   * The popularity the index holds for albums, as the import's batches wrote
   * or read it. A batch of new songs raises the albums of its songs where
   * they are more popular, which needs each one's indexed popularity: read
   * back from search_items, that was 4.3 s of the 77 s of statements of a 1M
   * demo import (each album gets songs in every batch). Bounded like the
   * texts.
   */
  readonly albumPopularity = new Map<string, number>();
  /** The catalog version the memo holds for; undefined while a batch is written, or after one failed. */
  #version: string | undefined;

  /** Called in the batch's transaction, after the index lock: forgets everything the catalog may have changed since. */
  async check(trx: Kysely<Database>, written: WrittenItems): Promise<void> {
    const row = await trx.selectFrom('settings').select('value').where('key', '=', 'catalog_version').executeTakeFirst();
    if (this.#version === undefined || this.#version !== row?.value) {
      this.artistNames.clear();
      this.albumTitles.clear();
      this.albumPopularity.clear();
    }
    this.#version = undefined;
    for (const id of written.artistIds) this.artistNames.delete(id);
    for (const id of written.albumIds) this.albumTitles.delete(id);
  }

  /** The batch that checked the memo committed, writing this catalog version. */
  committed(version: string): void {
    this.#version = version;
  }

  /** The texts of these ids: remembered, or read (and remembered). */
  texts(
    known: Map<string, readonly string[]>,
    ids: ReadonlySet<string>,
    read: (chunk: string[]) => Promise<{ id: string; texts: string }[]>,
  ): Promise<ReadonlyMap<string, readonly string[]>> {
    return recall(known, ids, read, (row) => [row.id, textsOf(row.texts)]);
  }
}

/**
 * `known` with these ids added: those it lacks are read, a chunk at a time,
 * and each row becomes an entry. An id no row answers stays absent. Bounded:
 * with a catalog of millions of albums it starts again rather than keep
 * them all.
 */
async function recall<V, Row>(
  known: Map<string, V>,
  ids: Iterable<string>,
  read: (chunk: string[]) => Promise<Row[]>,
  entry: (row: Row) => [string, V],
): Promise<Map<string, V>> {
  let missing = [...ids].filter((id) => !known.has(id));
  if (known.size + missing.length > MEMO_ENTRIES) {
    known.clear();
    missing = [...ids];
  }
  for (const row of await inChunks(missing, read)) known.set(...entry(row));
  return known;
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

  // The batch's own songs as it wrote them; the others (found through a renamed artist or album) as stored.
  const songs: IndexedSongRow[] = [];
  const stored: string[] = [];
  for (const id of songIds) {
    const row = written.songs?.get(id);
    if (row === undefined) stored.push(id);
    else if (row.withdrawn !== 1) songs.push(row);
  }
  songs.push(...await inChunks(stored, (chunk) =>
    trx.selectFrom('songs').select(['id', 'title_i18n', 'artist_ids', 'album_id', 'popularity']).where('id', 'in', chunk).where('withdrawn', '=', 0).execute()));
  const knownPopularity = await albumsWithNewPopularity(trx, songs, albumIds, written.albumsToRecount, memo);
  for (const album of knownPopularity.keys()) albumIds.add(album);

  const artists = await inChunks(artistIds, (chunk) =>
    trx.selectFrom('artists').select(['id', 'name_i18n', 'monthly_listeners']).where('id', 'in', chunk).where('withdrawn', '=', 0).execute());
  const albums = await inChunks(list(albumIds), (chunk) =>
    trx.selectFrom('albums').select(['id', 'title_i18n', 'artist_ids']).where('id', 'in', chunk).where('withdrawn', '=', 0).execute());
  const albumPopularity = await albumPopularityOf(trx, albums.map((a) => a.id).filter((id) => !knownPopularity.has(id)));
  for (const [id, popularity] of knownPopularity) albumPopularity.set(id, popularity);

  // The names the related texts come from: artists (of songs and albums) and albums (of songs).
  const creditIds = new Set<string>();
  for (const row of [...albums, ...songs]) for (const id of JSON.parse(row.artist_ids) as string[]) creditIds.add(id);
  const names = await memo.texts(memo.artistNames, creditIds, async (chunk) =>
    (await trx.selectFrom('artists').select(['id', 'name_i18n as texts']).where('id', 'in', chunk).execute()));
  const titles = await memo.texts(memo.albumTitles, new Set(songs.map((s) => s.album_id)), async (chunk) =>
    (await trx.selectFrom('albums').select(['id', 'title_i18n as texts']).where('id', 'in', chunk).execute()));
  const creditNames = (artistIdsJson: string): (readonly string[])[] => {
    const groups: (readonly string[])[] = [];
    for (const id of JSON.parse(artistIdsJson) as string[]) {
      const group = names.get(id);
      if (group !== undefined) groups.push(group);
    }
    return groups;
  };

  const items: IndexedItem[] = [
    ...artists.map((row) => ({ kind: 'artist' as const, id: row.id, texts: textsOf(row.name_i18n), related: [], popularity: popularityOf(row.monthly_listeners) })),
    ...albums.map((row) => ({ kind: 'album' as const, id: row.id, texts: textsOf(row.title_i18n), related: creditNames(row.artist_ids), popularity: albumPopularity.get(row.id) ?? 0 })),
    ...songs.map((row) => ({
      kind: 'song' as const, id: row.id, texts: textsOf(row.title_i18n),
      related: withGroup(creditNames(row.artist_ids), titles.get(row.album_id)), popularity: popularityOf(row.popularity),
    })),
  ];

  await deleteEarlierCopies(trx, upsert, [['artist', artistIds], ['album', list(albumIds)], ['song', list(songIds).filter((id) => !written.newSongs?.has(id))]]);
  const { wordsOf, words, vocabulary } = memo.normalizedTexts.searchWords(items);
  await writeSegment(trx, upsert, items, wordsOf, words);
  for (const id of albumIds) memo.albumPopularity.delete(id); // withdrawn ones left the index
  for (const item of items) if (item.kind === 'album') memo.albumPopularity.set(item.id, item.popularity);
  await upsert(trx, 'search_vocabulary', ['word'], vocabulary);
  await mergeSegments(trx, upsert, options.largestMerge);
}

/** Each album's popularity: its most popular song that is not withdrawn (0 without one). */
async function albumPopularityOf(trx: Kysely<Database>, albumIds: readonly string[]): Promise<Map<string, number>> {
  const rows = await inChunks(albumIds, (chunk) =>
    trx.selectFrom('songs').select((eb) => ['album_id', eb.fn.max<number>('popularity').as('popularity')])
      .where('album_id', 'in', chunk).where('withdrawn', '=', 0).groupBy('album_id').execute());
  return new Map(rows.map((row) => [row.album_id, popularityOf(row.popularity)]));
}

/**
 * Albums not already being indexed again whose popularity the batch changed,
 * with their popularity now: those with songs that were already there are
 * recounted; the others have only gained songs, which raise them where they
 * are more popular (the index holds each album's most popular song).
 */
async function albumsWithNewPopularity(
  trx: Kysely<Database>,
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
  const indexed = await recall(memo.albumPopularity, [...recount, ...raisedTo.keys()], (chunk) =>
    trx.selectFrom('search_items').select(['item_id', 'popularity']).where('kind', '=', 'album').where('item_id', 'in', chunk).execute(),
  (row) => [row.item_id, popularityOf(row.popularity)]);
  const now = await albumPopularityOf(trx, recount);
  const changed = new Map<string, number>();
  // An album not in the index is withdrawn (or has no indexable title): nothing to change.
  for (const id of recount) if (indexed.has(id) && indexed.get(id) !== (now.get(id) ?? 0)) changed.set(id, now.get(id) ?? 0);
  for (const [id, popularity] of raisedTo) if (indexed.has(id) && popularity > indexed.get(id)!) changed.set(id, popularity);
  return changed;
}

/** Removes these items' rows and marks their numbers deleted in their segments (a segment left empty goes). */
async function deleteEarlierCopies(trx: Kysely<Database>, upsert: BulkUpsert, byKind: readonly (readonly [SearchKind, readonly string[]])[]): Promise<void> {
  const numbers = new Map<number, number[]>();
  for (const [kind, ids] of byKind) {
    await inChunks(ids, async (chunk) => {
      const rows = await trx.selectFrom('search_items').select(['segment', 'number']).where('kind', '=', kind).where('item_id', 'in', chunk).execute();
      for (const row of rows) {
        const segment = Number(row.segment);
        const list = numbers.get(segment);
        if (list) list.push(Number(row.number));
        else numbers.set(segment, [Number(row.number)]);
      }
      if (rows.length > 0) await trx.deleteFrom('search_items').where('kind', '=', kind).where('item_id', 'in', chunk).execute();
      return [];
    });
  }
  if (numbers.size === 0) return;
  const segments = await trx.selectFrom('search_segments').select(['id', 'size', 'deleted']).where('id', 'in', [...numbers.keys()]).execute();
  const changed: Insertable<Database['search_segments']>[] = [];
  for (const segment of segments) {
    const id = Number(segment.id);
    const deleted = withDeleted(segment.deleted, Number(segment.size), numbers.get(id)!);
    const count = countBits(deleted);
    if (count >= Number(segment.size)) await dropSegments(trx, [id]);
    else changed.push({ id, size: Number(segment.size), deleted, deleted_count: count });
  }
  await upsert(trx, 'search_segments', ['id'], changed);
}

function countBits(bytes: Uint8Array): number {
  let count = 0;
  for (let byte of bytes) {
    while (byte !== 0) {
      byte &= byte - 1;
      count++;
    }
  }
  return count;
}

async function dropSegments(trx: Kysely<Database>, ids: readonly number[]): Promise<void> {
  if (ids.length === 0) return;
  await trx.deleteFrom('search_doclists').where('segment', 'in', [...ids]).execute();
  await trx.deleteFrom('search_items').where('segment', 'in', [...ids]).execute();
  await trx.deleteFrom('search_segments').where('id', 'in', [...ids]).execute();
}

/** Segment ids are never reused, so a search that read the list of segments before a merge cannot mix two of them. */
async function nextSegmentId(trx: Kysely<Database>, upsert: BulkUpsert): Promise<number> {
  const id = (await lastSegmentId(trx)) + 1;
  await upsert(trx, 'settings', ['key'], [{ key: 'search_segment_id', value: String(id) }]);
  return id;
}

/**
 * Writes items as a new segment, numbered in walk order, with each word's
 * postings (`wordsOf`, parallel to `items`, may repeat a word; `words` are
 * the words by number). Postings are counted first and then filled, one
 * array for all words.
 */
async function writeSegment(
  trx: Kysely<Database>,
  upsert: BulkUpsert,
  items: readonly IndexedItem[],
  wordsOf: ItemWords,
  words: readonly string[],
): Promise<void> {
  if (items.length === 0) return;
  const order = items.map((_, i) => i).sort((a, b) => compareWalk(items[a]!, items[b]!));
  const { numbers, starts } = wordsOf;
  // The last item each word was counted for: a word the item's list names again has its posting already.
  const last = new Int32Array(words.length);
  const eachPosting = (add: (word: number, number: number) => void) => {
    last.fill(-1);
    for (let number = 0; number < order.length; number++) {
      const index = order[number]!;
      for (let at = starts[index]!; at < starts[index + 1]!; at++) {
        const word = numbers[at]!;
        if (last[word] !== number) {
          last[word] = number;
          add(word, number);
        }
      }
    }
  };
  // Only the words this batch's items name: the import's numbers may run to a million.
  const named: number[] = [];
  const counts = new Uint32Array(words.length);
  eachPosting((word) => {
    if (counts[word] === 0) named.push(word);
    counts[word]!++;
  });
  const firsts = new Uint32Array(words.length);
  let total = 0;
  for (const word of named) {
    firsts[word] = total;
    total += counts[word]!;
  }
  const all = new Int32Array(total);
  const filled = firsts.slice();
  eachPosting((word, number) => (all[filled[word]!++] = number));
  const postings = new Map<string, Int32Array>();
  for (const word of named) postings.set(words[word]!, all.subarray(firsts[word]!, firsts[word]! + counts[word]!));
  await insertSegment(trx, upsert, order.map((index) => items[index]!), postings);
}

/** search_items rows built at once: 6,000 rows of 5 columns fill a SQLite statement (bulk-upsert.ts). */
const ITEM_ROWS_AT_ONCE = 60_000;

/** Stores a new segment: its items (in walk order: an item's number is its place) and each word's ascending numbers. */
async function insertSegment(
  trx: Kysely<Database>,
  upsert: BulkUpsert,
  items: readonly { kind: SearchKind; id: string; popularity: number }[],
  postings: ReadonlyMap<string, ArrayLike<number>>,
): Promise<void> {
  const id = await nextSegmentId(trx, upsert);
  await upsert(trx, 'search_segments', ['id'], [{ id, size: items.length, deleted: null, deleted_count: 0 }]);
  // A slice of rows at a time (a multiple of the rows a SQLite statement takes): a merge writes a million.
  for (let start = 0; start < items.length; start += ITEM_ROWS_AT_ONCE) {
    const slice = items.slice(start, start + ITEM_ROWS_AT_ONCE);
    await upsert(trx, 'search_items', ['segment', 'number'], slice.map((item, i) => ({ segment: id, number: start + i, kind: item.kind, item_id: item.id, popularity: item.popularity })));
  }
  await upsert(trx, 'search_doclists', ['segment', 'chunk', 'word'], doclistRows(id, postings));
}

/** A segment's stored chunks of each word's ascending item numbers. */
function doclistRows(segment: number, postings: ReadonlyMap<string, ArrayLike<number>>): Insertable<Database['search_doclists']>[] {
  const rows: Insertable<Database['search_doclists']>[] = [];
  for (const [word, numbers] of postings) {
    let start = 0;
    while (start < numbers.length) {
      const chunk = Math.floor(numbers[start]! / CHUNK_SIZE);
      let end = start;
      const offsets: number[] = [];
      while (end < numbers.length && Math.floor(numbers[end]! / CHUNK_SIZE) === chunk) offsets.push(numbers[end++]! - chunk * CHUNK_SIZE);
      rows.push({ segment, chunk, word, offsets: encodeChunk(offsets) });
      start = end;
    }
  }
  // In primary-key order: each goes in at the end of the segment's range.
  return rows.sort((a, b) => a.chunk - b.chunk || (a.word < b.word ? -1 : a.word > b.word ? 1 : 0));
}

/**
 * Segments merge by size, ten of a size at a time (sizes 1-9, 10-99, ...),
 * so each item is rewritten about once per tenfold growth of the catalog
 * and a search reads at most nine segments of each size. A segment whose
 * items are mostly deleted is rewritten on its own. Merges of more than
 * `largestMerge` live items wait: an import's batches leave them to the
 * import's end, which rewrites all the import's segments as one anyway.
 */
const MERGE_FACTOR = 10;

async function mergeSegments(trx: Kysely<Database>, upsert: BulkUpsert, largestMerge = Infinity): Promise<void> {
  for (;;) {
    const segments = (await trx.selectFrom('search_segments').select(['id', 'size', 'deleted_count']).orderBy('id').execute())
      .map((row) => ({ id: Number(row.id), live: Number(row.size) - Number(row.deleted_count), size: Number(row.size) }));
    const bySize = new Map<number, (typeof segments)[number][]>();
    const waiting = new Set<number>();
    let merge: (typeof segments)[number][] | undefined;
    for (const segment of segments) {
      if (segment.size >= 1000 && segment.live * 2 < segment.size && segment.live <= largestMerge) {
        merge = [segment];
        break;
      }
      const level = Math.floor(Math.log10(Math.max(1, segment.live)));
      if (waiting.has(level)) continue;
      const same = bySize.get(level) ?? [];
      same.push(segment);
      bySize.set(level, same);
      if (same.length >= MERGE_FACTOR) {
        if (same.reduce((sum, { live }) => sum + live, 0) > largestMerge) {
          waiting.add(level);
          continue;
        }
        merge = same;
        break;
      }
    }
    if (merge === undefined) return;
    await mergeInto(trx, upsert, merge);
  }
}

/** An item as a merge reads it from its segment. */
interface SegmentItem {
  readonly kind: SearchKind;
  readonly id: string;
  readonly popularity: number;
}

/**
 * Rewrites these segments' live items as one new segment. A segment's items
 * are numbered in walk order (writeSegment, and this), so each segment is a
 * sorted run and the new order is their k-way merge: an item is compared
 * about log2(segments) times instead of log2(items) in a sort of them all.
 * Segments are read one at a time and the new rows built a slice at a time:
 * an import's end merges every segment it wrote, 1.14 million items for the
 * 1M demo catalog, and holding all their rows at once (as read, as sorted
 * and as written) took the importer's heap from about 0.9 to 1.5 GB.
 */
async function mergeInto(trx: Kysely<Database>, upsert: BulkUpsert, segments: readonly { id: number; size: number }[]): Promise<void> {
  const runs: SegmentItem[][] = [];
  /** Per run, each live item's number in its segment. */
  const numbersOf: Int32Array[] = [];
  for (const segment of segments) {
    const rows = await trx.selectFrom('search_items').select(['number', 'kind', 'item_id', 'popularity']).where('segment', '=', segment.id).orderBy('number').execute();
    const run: SegmentItem[] = new Array(rows.length);
    const numbers = new Int32Array(rows.length);
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]!;
      run[i] = { kind: row.kind as SearchKind, id: row.item_id, popularity: popularityOf(row.popularity) };
      numbers[i] = Number(row.number);
    }
    runs.push(run);
    numbersOf.push(numbers);
  }
  const { items, renumber } = mergeRuns(runs, numbersOf, segments);

  const postings = new Map<string, number[]>();
  for (const segment of segments) {
    const map = renumber.get(segment.id)!;
    const chunks = await trx.selectFrom('search_doclists').select(['chunk', 'word', 'offsets']).where('segment', '=', segment.id).execute();
    for (const row of chunks) {
      const base = Number(row.chunk) * CHUNK_SIZE;
      let numbers = postings.get(row.word);
      if (numbers === undefined) postings.set(row.word, (numbers = []));
      for (const offset of decodeChunk(row.offsets)) {
        const number = map[base + offset]!;
        if (number >= 0) numbers.push(number);
      }
    }
  }
  const ascending = new Map<string, Int32Array>();
  for (const [word, numbers] of postings) if (numbers.length > 0) ascending.set(word, Int32Array.from(numbers).sort());
  postings.clear();

  await dropSegments(trx, segments.map((segment) => segment.id));
  if (items.length > 0) await insertSegment(trx, upsert, items, ascending);
}

/**
 * The k-way merge of sorted runs (one a segment, with their items' numbers), by a binary heap of each
 * run's next item: the items in their new order, and each segment's old numbers mapped to the new ones
 * (-1: not live).
 */
function mergeRuns(
  runs: readonly SegmentItem[][],
  numbersOf: readonly Int32Array[],
  segments: readonly { id: number; size: number }[],
): { items: SegmentItem[]; renumber: Map<number, Int32Array> } {
  const renumber = new Map(segments.map((segment) => [segment.id, new Int32Array(segment.size).fill(-1)]));
  const maps = segments.map((segment) => renumber.get(segment.id)!);
  const next = new Int32Array(runs.length);
  const heap: number[] = [];
  const less = (a: number, b: number) => compareWalk(runs[a]![next[a]!]!, runs[b]![next[b]!]!) < 0;
  const siftDown = (at: number) => {
    for (;;) {
      const left = 2 * at + 1;
      if (left >= heap.length) return;
      const child = left + 1 < heap.length && less(heap[left + 1]!, heap[left]!) ? left + 1 : left;
      if (!less(heap[child]!, heap[at]!)) return;
      const run = heap[at]!;
      heap[at] = heap[child]!;
      heap[child] = run;
      at = child;
    }
  };
  for (let run = 0; run < runs.length; run++) if (runs[run]!.length > 0) heap.push(run);
  for (let at = (heap.length >> 1) - 1; at >= 0; at--) siftDown(at);
  const items: SegmentItem[] = [];
  while (heap.length > 0) {
    const run = heap[0]!;
    const position = next[run]!;
    maps[run]![numbersOf[run]![position]!] = items.length;
    items.push(runs[run]![position]!);
    if (position + 1 < runs[run]!.length) {
      next[run] = position + 1;
    } else {
      // The run is done: the heap's last run takes its place.
      const last = heap.pop()!;
      if (heap.length > 0) heap[0] = last;
    }
    siftDown(0);
  }
  return { items, renumber };
}

/** The id of the last segment written so far (0 for none): the segments an import writes after it have larger ids. */
export async function lastSegmentId(db: Kysely<Database>): Promise<number> {
  const row = await db.selectFrom('settings').select('value').where('key', '=', 'search_segment_id').executeTakeFirst();
  return Number(row?.value ?? 0);
}

/**
 * Rewrites the segments written after segment `after` (an import's) as one,
 * then merges as the policy says. An import of many batches leaves many
 * segments, and a search reads each: on the seeded 1M catalog the bench's
 * queries took 2.0 ms in twelve segments and 0.9 ms in one.
 */
export async function mergeSegmentsAfter(trx: Kysely<Database>, _lock: CatalogWriteLock, upsert: BulkUpsert, after: number): Promise<void> {
  const written = (await trx.selectFrom('search_segments').select(['id', 'size']).where('id', '>', after).orderBy('id').execute())
    .map((row) => ({ id: Number(row.id), size: Number(row.size) }));
  if (written.length > 1) await mergeInto(trx, upsert, written);
  await mergeSegments(trx, upsert);
}
