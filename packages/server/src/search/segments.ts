import type { Insertable, Kysely } from 'kysely';
import type { Database } from '../storage/database.ts';
import type { BulkUpsert } from '../storage/bulk-upsert.ts';
import type { CatalogWriteLock } from '../storage/catalog-write-lock.ts';
import { CHUNK_SIZE, decodeChunk, encodeChunk, withDeleted } from './doclist.ts';
import type { ItemWords } from './normalized-texts.ts';
import { compareWalk, type IndexedItem, type SearchKind } from './search-item.ts';
import { createSearchIndexRepo, type SearchIndexRepo } from './search-index.repo.ts';

// The search index's segments (doclist.ts packs their postings): writing a batch's items as a new segment,
// marking the earlier copies of items indexed again as deleted, and merging segments as the policy says.


/** Removes these items' rows and marks their numbers deleted in their segments (a segment left empty goes). */
export async function deleteEarlierCopies(index: SearchIndexRepo, byKind: readonly (readonly [SearchKind, readonly string[]])[]): Promise<void> {
  const numbers = new Map<number, number[]>();
  for (const [kind, ids] of byKind) {
    for (const { segment, number } of await index.removeItems(kind, ids)) {
      const list = numbers.get(segment);
      if (list) list.push(number);
      else numbers.set(segment, [number]);
    }
  }
  if (numbers.size === 0) return;
  const changed: Insertable<Database['search_segments']>[] = [];
  for (const segment of await index.segments([...numbers.keys()])) {
    const deleted = withDeleted(segment.deleted, segment.size, numbers.get(segment.id)!);
    const count = countBits(deleted);
    if (count >= segment.size) await index.dropSegments([segment.id]);
    else changed.push({ id: segment.id, size: segment.size, deleted, deleted_count: count });
  }
  await index.saveSegments(changed);
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

/** Segment ids are never reused, so a search that read the list of segments before a merge cannot mix two of them. */
async function nextSegmentId(index: SearchIndexRepo): Promise<number> {
  const id = (await index.lastSegmentId()) + 1;
  await index.setLastSegmentId(id);
  return id;
}

/**
 * Writes items as a new segment, numbered in walk order, with each word's
 * postings (`wordsOf`, parallel to `items`, may repeat a word; `words` are
 * the words by number). Postings are counted first and then filled, one
 * array for all words.
 */
export async function writeSegment(
  index: SearchIndexRepo,
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
  await insertSegment(index, order.map((index) => items[index]!), postings);
}

/** search_items rows built at once: 6,000 rows of 5 columns fill a SQLite statement (bulk-upsert.ts). */
const ITEM_ROWS_AT_ONCE = 60_000;

/** Stores a new segment: its items (in walk order: an item's number is its place) and each word's ascending numbers. */
async function insertSegment(
  index: SearchIndexRepo,
  items: readonly { kind: SearchKind; id: string; popularity: number }[],
  postings: ReadonlyMap<string, ArrayLike<number>>,
): Promise<void> {
  const id = await nextSegmentId(index);
  await index.saveSegments([{ id, size: items.length, deleted: null, deleted_count: 0 }]);
  // A slice of rows at a time (a multiple of the rows a SQLite statement takes): a merge writes a million.
  for (let start = 0; start < items.length; start += ITEM_ROWS_AT_ONCE) {
    const slice = items.slice(start, start + ITEM_ROWS_AT_ONCE);
    await index.saveItems(slice.map((item, i) => ({ segment: id, number: start + i, kind: item.kind, item_id: item.id, popularity: item.popularity })));
  }
  await index.saveDoclists(doclistRows(id, postings));
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

export async function mergeSegments(index: SearchIndexRepo, largestMerge = Infinity): Promise<void> {
  for (;;) {
    const segments = (await index.segments()).map((segment) => ({ id: segment.id, live: segment.size - segment.deletedCount, size: segment.size }));
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
    await mergeInto(index, merge);
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
async function mergeInto(index: SearchIndexRepo, segments: readonly { id: number; size: number }[]): Promise<void> {
  const runs: SegmentItem[][] = [];
  /** Per run, each live item's number in its segment. */
  const numbersOf: Int32Array[] = [];
  for (const segment of segments) {
    const rows = await index.segmentItems(segment.id);
    const run: SegmentItem[] = new Array(rows.length);
    const numbers = new Int32Array(rows.length);
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]!;
      run[i] = { kind: row.kind, id: row.id, popularity: row.popularity };
      numbers[i] = row.number;
    }
    runs.push(run);
    numbersOf.push(numbers);
  }
  const { items, renumber } = mergeRuns(runs, numbersOf, segments);

  const postings = new Map<string, number[]>();
  for (const segment of segments) {
    const map = renumber.get(segment.id)!;
    for (const row of await index.segmentDoclists(segment.id)) {
      const base = row.chunk * CHUNK_SIZE;
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

  await index.dropSegments(segments.map((segment) => segment.id));
  if (items.length > 0) await insertSegment(index, items, ascending);
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
export function lastSegmentId(db: Kysely<Database>, upsert: BulkUpsert): Promise<number> {
  return createSearchIndexRepo(db, upsert).lastSegmentId();
}

/**
 * Rewrites the segments written after segment `after` (an import's) as one,
 * then merges as the policy says. An import of many batches leaves many
 * segments, and a search reads each: on the seeded 1M catalog the bench's
 * queries took 2.0 ms in twelve segments and 0.9 ms in one.
 */
export async function mergeSegmentsAfter(trx: Kysely<Database>, _lock: CatalogWriteLock, upsert: BulkUpsert, after: number): Promise<void> {
  const index = createSearchIndexRepo(trx, upsert);
  const written = await index.segmentsAfter(after);
  if (written.length > 1) await mergeInto(index, written);
  await mergeSegments(index);
}
