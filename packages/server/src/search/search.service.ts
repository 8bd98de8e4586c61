import type { Negotiation } from '../locale/negotiation.ts';
import type { CatalogFragments } from '../catalog/catalog.service.ts';
import { keysetPage, type PageCursorCodec, type PageRequest } from '../catalog/page-cursor.ts';
import { listAnswer } from '../catalog/answer-writer.ts';
import { searchTerms, type SearchTerm } from '../text/normalize.ts';
import { BitmapPool, bitmapWords, CHUNK_SIZE, type ChunkBitmap, decodeChunk } from './doclist.ts';
import { PostingsCache } from './postings-cache.ts';
import { compareWalk, kindWord, RATED_KINDS, ratedKindWord, wholeNameWord, type SearchKind } from './search-item.ts';
import { SEARCH_TYPES } from '@maqam/contract';
import { NO_CAP, type ViewerCap } from '../video/age-rating.ts';
import type { VideoService } from '../video/video.service.ts';
import type { ItemRow, SearchReads, SearchRepo, SegmentInfo } from './search.repo.ts';
import { MATCH, Vocabulary } from './vocabulary.ts';

type Position = [tier: number, popularity: number, id: string, kind: string];


/** The contract's order: relevance tier, then popularity (highest first), then id; kind breaks a tie of ids. */
function compare(a: Position, b: Position): number {
  return a[0] - b[0] || compareWalk({ popularity: a[1], id: a[2], kind: a[3] }, { popularity: b[1], id: b[2], kind: b[3] });
}

/** Relevance tiers, best first: the whole name, whole words, prefixes, variants (typos, transliterations, other script). */
const TIERS = [0, MATCH.whole, MATCH.prefix, MATCH.variant] as const;

/** What an item must have to be in a tier: for each query word, a posting of one of its words, and none of the better tiers. */
interface TierFilter {
  /** For each query word, the words that stand for it in this tier. */
  readonly all: readonly (readonly string[])[];
  /** Items with this word (their whole name) are in tier 0. */
  readonly notWholeName?: string;
  /** Items that have, for every query word, a posting of one of these words are in a better tier. */
  readonly notAll?: readonly (readonly string[])[];
  /** The kinds asked for, as their posting words; undefined for all. */
  readonly kinds?: readonly string[];
}

/** The items of one chunk in a tier, given the chunk's postings of the tier's words; undefined when there are none. */
function chunkMatches(lists: ReadonlyMap<string, Uint16Array | null>, filter: TierFilter, deleted: Uint8Array | null, chunk: number, width: number, pool: BitmapPool): ChunkBitmap | undefined {
  // A query word none of whose words is in this chunk: nothing here.
  if (filter.all.some((group) => group.every((word) => !lists.get(word)))) return undefined;
  pool.reset();
  const union = (group: readonly string[]) => {
    const bitmap = pool.take(width);
    for (const word of group) {
      const list = lists.get(word);
      if (list) bitmap.add(list);
    }
    return bitmap;
  };
  const matches = union(filter.all[0]!);
  for (const group of filter.all.slice(1)) matches.and(union(group));
  if (filter.kinds !== undefined) matches.and(union(filter.kinds));
  if (filter.notWholeName !== undefined && lists.get(filter.notWholeName)) matches.andNot(union([filter.notWholeName]));
  if (filter.notAll !== undefined) {
    const better = union(filter.notAll[0]!);
    for (const group of filter.notAll.slice(1)) better.and(union(group));
    matches.andNot(better);
  }
  if (deleted !== null) matches.andNotDeleted(deleted, chunk);
  return matches;
}

/**
 * The kind words an item must have one of, or undefined when every item
 * qualifies: the kinds asked for, and of a rated kind (show, movie) only the
 * ranks the viewer's cap admits (video/age-rating.ts), so a title above the
 * cap is never on a page.
 */
function kindFilter(kinds: readonly SearchKind[], cap: ViewerCap): string[] | undefined {
  const capped = cap < NO_CAP && kinds.some((kind) => RATED_KINDS.includes(kind));
  if (!capped && kinds.length === SEARCH_TYPES.length) return undefined;
  return kinds.flatMap((kind) => (capped && RATED_KINDS.includes(kind) ? Array.from({ length: cap + 1 }, (_, rank) => ratedKindWord(kind, rank)) : [kindWord(kind)]));
}

/**
 * Decoded postings a node keeps (postings-cache.ts). The first chunks of every word of the 1M demo catalog
 * would take about 16 MB of it by its accounting: 5 MB of postings, the rest 142,000 mostly tiny lists.
 */
const POSTINGS_CACHE_BYTES = 32 * 1024 * 1024;

export interface SearchServiceDeps {
  repo: SearchRepo;
  catalog: CatalogFragments;
  /** Shows and films are rendered by the video catalog, for the viewer's cap. */
  video: Pick<VideoService, 'fragments'>;
  cursors: PageCursorCodec;
}

/**
 * DiscoveryService.Search (contract section 11): the query's words are
 * expanded against the in-memory vocabulary into the indexed words they
 * match and how well; the page is read tier by tier from each segment's
 * packed postings (search/doclist.ts), chunk by chunk in walk order, until
 * it is full (so a common word costs a chunk, not all its items), and
 * rendered from the same fragments as the catalog's operations.
 * Ties break in byte order on both dialects, so both answer the same pages.
 */
export function createSearchService({ repo, catalog, video, cursors }: SearchServiceDeps) {
  let vocabulary: Promise<Vocabulary> | undefined;
  const postings = new PostingsCache(POSTINGS_CACHE_BYTES);

  function loadVocabulary(): Promise<Vocabulary> {
    vocabulary ??= repo.vocabulary().then((rows) => new Vocabulary(rows), (error: unknown) => {
      vocabulary = undefined;
      throw error;
    });
    return vocabulary;
  }

  /**
   * Each segment's deleted bitmap, from the node's memory while the
   * segment's count of deleted items is the one it was read with (bits are
   * only ever added), else read again: on PostgreSQL the bitmap of the
   * seeded 1M catalog's large segment is 92 KB, sent as 184 KB of hex.
   */
  const deletedKept = new Map<number, { count: number; deleted: Uint8Array | null }>();
  async function deletedBitmaps(reads: SearchReads, segments: readonly SegmentInfo[]): Promise<Map<number, Uint8Array | null>> {
    const stale = segments.filter((segment) => segment.deletedCount > 0 && deletedKept.get(segment.id)?.count !== segment.deletedCount);
    for (const row of await reads.deleted(stale.map((segment) => segment.id))) {
      // A newer count than the list's (a batch committed in between) is kept too: it only adds deletions.
      if (row.count >= (deletedKept.get(row.id)?.count ?? 0)) deletedKept.set(row.id, { count: row.count, deleted: row.deleted });
    }
    const live = new Set(segments.map((segment) => segment.id));
    for (const id of deletedKept.keys()) if (!live.has(id)) deletedKept.delete(id);
    return new Map(segments.map((segment) => [segment.id, segment.deletedCount > 0 ? deletedKept.get(segment.id)?.deleted ?? null : null]));
  }

  /**
   * The first `need` items after `after` in the contract's order, tier by
   * tier. A segment numbers its items in walk order, so its first matches
   * in a tier are its best: the largest segment's first `limit`, and the
   * others' up to the last of those, are merged.
   */
  async function rankedPage(terms: SearchTerm[], kinds: readonly SearchKind[], cap: ViewerCap, after: Position | null, need: number): Promise<Position[]> {
    const words = await loadVocabulary();
    return repo.snapshot((reads) => rankedPageIn(reads, words, terms, kinds, cap, after, need));
  }

  /** rankedPage's reads, all in one snapshot of the index (SearchRepo.snapshot). */
  async function rankedPageIn(
    reads: SearchReads, words: Vocabulary, terms: SearchTerm[], kinds: readonly SearchKind[], cap: ViewerCap, after: Position | null, need: number,
  ): Promise<Position[]> {
    const expansions = terms.map((term, index) => words.expand(term.word, term.keys, index === terms.length - 1));
    if (expansions.some((found) => found.size === 0)) return [];
    const within = (tier: number) => expansions.map((found) => [...found].filter(([, quality]) => quality <= tier).map(([word]) => word));
    const whole = wholeNameWord(terms.map((term) => term.word));
    const kindWords = kindFilter(kinds, cap);

    const filters: { tier: number; filter: TierFilter }[] = [];
    for (const tier of TIERS) {
      if (after !== null && tier < after[0]) continue;
      if (tier === 0) {
        filters.push({ tier, filter: { all: [[whole]], ...(kindWords && { kinds: kindWords }) } });
        continue;
      }
      const allowed = within(tier);
      if (allowed.some((list) => list.length === 0)) continue;
      const better = tier > MATCH.whole ? within(tier - 1) : [];
      // Nothing new at this tier: every item it would hold ranked above.
      if (better.length > 0 && better.every((list, i) => list.length === allowed[i]!.length)) continue;
      const notAll = better.length > 0 && better.every((list) => list.length > 0) ? better : undefined;
      filters.push({ tier, filter: { all: allowed, notWholeName: whole, ...(notAll && { notAll }), ...(kindWords && { kinds: kindWords }) } });
    }
    if (filters.length === 0) return [];
    const segments = await reads.segments();
    const deletedOf = await deletedBitmaps(reads, segments);
    const keyset = after === null ? undefined : ([after[1], after[2], after[3]] as const);
    const startOf = keyset === undefined ? new Map<number, number>() : await reads.firstAfter(segments.map((segment) => segment.id), keyset);
    // Postings this search uses, by chunk and word (null: the word has none there): from the node's cache, or
    // read, all missing chunks and words in one statement. A tier reads only its own words.
    const loaded = new Map<number, Map<string, Uint16Array | null>>();
    const pool = new BitmapPool();
    const load = async (chunks: readonly { segment: number; chunk: number }[], words: readonly string[]) => {
      const unread: typeof chunks[number][] = [];
      const missing = new Set<string>();
      for (const { segment, chunk } of chunks) {
        const key = PostingsCache.key(segment, chunk);
        let known = loaded.get(key);
        if (known === undefined) loaded.set(key, (known = new Map()));
        const kept = postings.chunk(key);
        let complete = true;
        for (const word of words) {
          if (known.has(word)) continue;
          const list = kept?.get(word);
          if (list !== undefined) known.set(word, list);
          else {
            missing.add(word);
            complete = false;
          }
        }
        if (!complete) unread.push({ segment, chunk });
      }
      if (unread.length === 0) return;
      const read = new Map<number, Map<string, Uint16Array>>();
      for (const row of await reads.chunks(unread, [...missing])) {
        const key = PostingsCache.key(row.segment, row.chunk);
        let lists = read.get(key);
        if (lists === undefined) read.set(key, (lists = new Map()));
        lists.set(row.word, decodeChunk(row.offsets));
      }
      for (const { segment, chunk } of unread) {
        const key = PostingsCache.key(segment, chunk);
        const known = loaded.get(key)!;
        for (const word of missing) {
          if (known.has(word)) continue;
          const list = read.get(key)?.get(word) ?? null;
          known.set(word, list);
          postings.add(key, word, list);
        }
      }
    };

    /**
     * In each segment, the first `limit` numbers in the tier, from the
     * segment's `from` up to (not including) its `to`. A segment's chunks are
     * read one the first round, then twice as many each round the page is not
     * full: a common word fills it from the first, a rare one (a whole name)
     * costs a few statements, not one a chunk.
     */
    const scan = async (filter: TierFilter, words: readonly string[], limit: number, ranges: readonly { segment: SegmentInfo; from: number; to: number }[]) => {
      const found = new Map<number, number[]>();
      let pending = ranges.filter(({ from, to }) => from < to).map((range) => ({ ...range, chunk: Math.floor(range.from / CHUNK_SIZE) }));
      for (let span = 1; pending.length > 0; span *= 2) {
        const chunksOf = ({ segment, to, chunk }: (typeof pending)[number]) =>
          Array.from({ length: Math.min(span, Math.ceil(to / CHUNK_SIZE) - chunk) }, (_, i) => ({ segment: segment.id, chunk: chunk + i }));
        await load(pending.flatMap(chunksOf), words);
        const next: typeof pending = [];
        for (const entry of pending) {
          const { segment, from, to } = entry;
          const numbers = found.get(segment.id) ?? [];
          found.set(segment.id, numbers);
          let chunk = entry.chunk;
          for (const { chunk: read } of chunksOf(entry)) {
            if (numbers.length >= limit) break;
            const base = read * CHUNK_SIZE;
            const matches = chunkMatches(loaded.get(PostingsCache.key(segment.id, read))!, filter, deletedOf.get(segment.id) ?? null, read, bitmapWords(segment.size, base), pool);
            for (const offset of matches?.take(Math.max(0, from - base), limit - numbers.length) ?? []) if (base + offset < to) numbers.push(base + offset);
            chunk = read + 1;
          }
          if (numbers.length < limit && chunk * CHUNK_SIZE < to) next.push({ ...entry, chunk });
        }
        pending = next;
      }
      return found;
    };

    // The largest segment first: once it gives `limit` items, the others are read only up to the last of
    // them (where the seek in firstAfter puts it), so a small segment adds a few items, not `limit`.
    const [largest, ...rest] = [...segments].sort((a, b) => b.size - a.size || a.id - b.id);
    if (largest === undefined) return [];
    const page: Position[] = [];
    for (const { tier, filter } of filters) {
      if (page.length >= need) break;
      const limit = need - page.length;
      const words = [...new Set([...filter.all.flat(), ...(filter.notWholeName === undefined ? [] : [filter.notWholeName]), ...(filter.notAll ?? []).flat(), ...(filter.kinds ?? [])])];
      const from = (segment: SegmentInfo) => (after !== null && tier === after[0] ? startOf.get(segment.id) ?? segment.size : 0);
      const positionOf = (item: ItemRow): Position => [tier, item.popularity, item.id, item.kind];
      const found = (await reads.items(await scan(filter, words, limit, [{ segment: largest, from: from(largest), to: largest.size }]))).map(positionOf).sort(compare);
      if (rest.length > 0) {
        const last = found.length >= limit ? found[limit - 1] : undefined;
        const upTo = last === undefined ? new Map<number, number>() : await reads.firstAfter(rest.map((segment) => segment.id), [last[1], last[2], last[3]]);
        const ranges = rest.map((segment) => ({ segment, from: from(segment), to: upTo.get(segment.id) ?? segment.size }));
        found.push(...(await reads.items(await scan(filter, words, limit, ranges))).map(positionOf));
      }
      page.push(...found.sort(compare).slice(0, limit));
    }
    return page;
  }

  return {
    /** Drops the vocabulary; the next search reads it again (the catalog changed). */
    clear(): void {
      vocabulary = undefined;
      postings.clear();
      deletedKept.clear();
    },

    async search(q: string, kinds: readonly SearchKind[], request: PageRequest, negotiation: Negotiation, cap: ViewerCap): Promise<Buffer> {
      const terms = searchTerms(q);
      // The cap is part of the scope: a page token of one viewer's results does not page another's.
      const scope = `search\u0000${terms.map((t) => t.word).join(' ')}\u0000${[...kinds].sort().join(',')}\u0000${cap}`;
      const { rows: page, nextPageToken } = await keysetPage<Position>(cursors, request, scope, ['number', 'number', 'string', 'string'])
        .read(async (after, limit) => (terms.length > 0 ? rankedPage(terms, kinds, cap, after, limit) : []), (position) => position);

      const byKind = new Map<SearchKind, string[]>();
      for (const [, , id, kind] of page) {
        const list = byKind.get(kind as SearchKind) ?? [];
        list.push(id);
        byKind.set(kind as SearchKind, list);
      }
      const rendered = new Map<string, Buffer>();
      for (const [kind, ids] of byKind) {
        const fragments = kind === 'show' || kind === 'movie' ? await video.fragments(kind, ids, negotiation, cap) : await catalog.fragments(kind, ids, negotiation);
        ids.forEach((id, i) => {
          const fragment = fragments[i];
          if (fragment) rendered.set(`${kind}\u0000${id}`, fragment);
        });
      }
      // An item withdrawn between the index read and the render is left out.
      const items = page.map(([, , id, kind]) => rendered.get(`${kind}\u0000${id}`)).filter((fragment): fragment is Buffer => fragment !== undefined);
      return listAnswer('results', items, nextPageToken);
    },
  };
}

export type SearchService = ReturnType<typeof createSearchService>;
