/**
 * A bounded cache of serialized JSON fragments with CLOCK eviction.
 *
 * CLOCK approximates LRU without reordering on a hit (a hit only sets a bit),
 * which matters when one request makes a hundred lookups. Memory is bounded by
 * the bytes of the cached buffers, not by their count.
 */
export class FragmentCache {
  readonly #maxBytes: number;
  readonly #slotOf = new Map<string, number>();
  #keys: (string | undefined)[] = [];
  #values: (Buffer | undefined)[] = [];
  #referenced: Uint8Array = new Uint8Array(1024);
  #hand = 0;
  #bytes = 0;
  #free: number[] = [];

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  get bytes(): number {
    return this.#bytes;
  }

  get size(): number {
    return this.#slotOf.size;
  }

  get(key: string): Buffer | undefined {
    const slot = this.#slotOf.get(key);
    if (slot === undefined) return undefined;
    this.#referenced[slot] = 1;
    return this.#values[slot];
  }

  set(key: string, value: Buffer): void {
    if (value.length > this.#maxBytes || this.#slotOf.has(key)) return;
    while (this.#bytes + value.length > this.#maxBytes) this.#evictOne();
    const slot = this.#free.pop() ?? this.#keys.length;
    if (slot === this.#keys.length) {
      this.#keys.push(key);
      this.#values.push(value);
      if (slot >= this.#referenced.length) {
        const grown = new Uint8Array(this.#referenced.length * 2);
        grown.set(this.#referenced);
        this.#referenced = grown;
      }
    } else {
      this.#keys[slot] = key;
      this.#values[slot] = value;
    }
    this.#referenced[slot] = 0;
    this.#slotOf.set(key, slot);
    this.#bytes += value.length;
  }

  clear(): void {
    this.#slotOf.clear();
    this.#keys = [];
    this.#values = [];
    this.#referenced = new Uint8Array(1024);
    this.#free = [];
    this.#hand = 0;
    this.#bytes = 0;
  }

  #evictOne(): void {
    const slots = this.#keys.length;
    for (;;) {
      if (this.#hand >= slots) this.#hand = 0;
      const slot = this.#hand++;
      const key = this.#keys[slot];
      if (key === undefined) continue;
      if (this.#referenced[slot] === 1) {
        this.#referenced[slot] = 0; // second chance
        continue;
      }
      this.#bytes -= this.#values[slot]!.length;
      this.#slotOf.delete(key);
      this.#keys[slot] = undefined;
      this.#values[slot] = undefined;
      this.#free.push(slot);
      return;
    }
  }
}
