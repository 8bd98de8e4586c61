/**
 * A node's memory of the postings it has read: a segment's chunks never
 * change once written (a merge writes a new segment, and segment ids are
 * never reused), so a decoded list stays right for as long as it is held;
 * only which items are deleted changes, and that is read with the list of
 * segments on every search. Held least recently used first, up to a budget
 * of bytes. A search-as-you-type burst asks for the same few words' first
 * chunks again and again: from here they cost no statement and no copy.
 */
export class PostingsCache {
  readonly #lists = new Map<string, Uint16Array | null>();
  readonly #budget: number;
  #bytes = 0;

  constructor(budgetBytes: number) {
    this.#budget = budgetBytes;
  }

  static key(segment: number, chunk: number, word: string): string {
    return `${segment}:${chunk}:${word}`;
  }

  /** The list (null: the word has no postings there), or undefined when not held. */
  get(key: string): Uint16Array | null | undefined {
    const list = this.#lists.get(key);
    if (list === undefined) return undefined;
    // Most recently used last.
    this.#lists.delete(key);
    this.#lists.set(key, list);
    return list;
  }

  set(key: string, list: Uint16Array | null): void {
    const before = this.#lists.get(key);
    if (before !== undefined) {
      this.#bytes -= sizeOf(key, before);
      this.#lists.delete(key);
    }
    this.#lists.set(key, list);
    this.#bytes += sizeOf(key, list);
    for (const [oldest, held] of this.#lists) {
      if (this.#bytes <= this.#budget) break;
      this.#lists.delete(oldest);
      this.#bytes -= sizeOf(oldest, held);
    }
  }

  clear(): void {
    this.#lists.clear();
    this.#bytes = 0;
  }
}

/** About what an entry holds: its offsets, its key, and the map's own overhead. */
function sizeOf(key: string, list: Uint16Array | null): number {
  return (list === null ? 0 : list.byteLength) + 2 * key.length + 64;
}
