/**
 * A node's memory of the postings it has read: a segment's chunks never
 * change once written (a merge writes a new segment, and segment ids are
 * never reused), so a decoded list stays right for as long as it is held;
 * only which items are deleted changes, and every search checks that with
 * the list of segments. Held by chunk, least recently used first, up to
 * a budget of bytes. A search-as-you-type burst asks for the same few
 * words' first chunks again and again: from here they cost no statement
 * and no copy.
 */
export class PostingsCache {
  readonly #chunks = new Map<number, Map<string, Uint16Array | null>>();
  readonly #budget: number;
  #bytes = 0;

  constructor(budgetBytes: number) {
    this.#budget = budgetBytes;
  }

  /** A chunk's key: chunk numbers stay below 65,536 (item numbers are 32-bit). */
  static key(segment: number, chunk: number): number {
    return segment * 65_536 + chunk;
  }

  /** The lists held of a chunk, by word (null: the word has no postings there). */
  chunk(key: number): ReadonlyMap<string, Uint16Array | null> | undefined {
    const lists = this.#chunks.get(key);
    if (lists === undefined) return undefined;
    // Most recently used last.
    this.#chunks.delete(key);
    this.#chunks.set(key, lists);
    return lists;
  }

  add(key: number, word: string, list: Uint16Array | null): void {
    let lists = this.#chunks.get(key);
    if (lists === undefined) this.#chunks.set(key, (lists = new Map()));
    if (lists.has(word)) return;
    lists.set(word, list);
    this.#bytes += sizeOf(word, list);
    for (const [oldest, held] of this.#chunks) {
      if (this.#bytes <= this.#budget || oldest === key) break;
      this.#chunks.delete(oldest);
      for (const [heldWord, heldList] of held) this.#bytes -= sizeOf(heldWord, heldList);
    }
  }

  clear(): void {
    this.#chunks.clear();
    this.#bytes = 0;
  }
}

/** About what an entry holds: its offsets, its word, and the map's own overhead. */
function sizeOf(word: string, list: Uint16Array | null): number {
  return (list === null ? 0 : list.byteLength) + 2 * word.length + 48;
}
