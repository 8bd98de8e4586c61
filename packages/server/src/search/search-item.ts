// What the search index is made of: the kinds of item, their words' shapes and the walk order (search-index.ts writes it; search.service.ts reads it).

import type { SearchType } from '@maqam/contract';

export type SearchKind = SearchType;
/** The kinds whose items carry an age rating, filtered by a viewer's parental cap (video/age-rating.ts). */
export const RATED_KINDS: readonly SearchKind[] = ['show', 'movie'];

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
  /** A rated kind's rank (video/age-rating.ts): the item also has the posting word ratedKindWord(kind, rank). */
  readonly rank?: number;
}

/** The posting word of a whole name: '=' and its search words. */
export function wholeNameWord(words: readonly string[]): string {
  return `=${words.join(' ')}`;
}

/** The posting word every item of a kind has ('#' is never part of a search word), to filter by `types`. */
export function kindWord(kind: SearchKind): string {
  return `#${kind}`;
}

/** The posting word every item of a rated kind with this rank has, so a search under a cap takes the ranks it admits. */
export function ratedKindWord(kind: SearchKind, rank: number): string {
  return `#${kind}@${rank}`;
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

/** What a batch wrote, and what it changed of songs already there (for album popularity). */
export interface WrittenItems {
  readonly artistIds: ReadonlySet<string>;
  readonly albumIds: ReadonlySet<string>;
  readonly songIds: ReadonlySet<string>;
  readonly showIds?: ReadonlySet<string>;
  readonly movieIds?: ReadonlySet<string>;
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
