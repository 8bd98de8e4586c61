/**
 * A bounded cache of serialized JSON fragments, kept in one preallocated
 * arena so its memory is exactly its budget and evictions make no garbage.
 *
 * The arena is cut into segments written in turn, like a log. When the writer
 * comes back to a segment, fragments read since they were written get a
 * second chance (they are compacted to the front of the segment) and the rest
 * are evicted: CLOCK at segment granularity. A hit only sets a bit, which
 * matters when one request makes a hundred lookups.
 *
 * Each locale chain has its own index keyed by the bare id, so a lookup hashes
 * the id string the request already holds.
 *
 * A fragment is admitted on its second sighting: the first `set` of a key
 * only marks it in a doorkeeper (a bitset of hashed keys, emptied once it
 * has seen about as many keys as the cache holds), as W-TinyLFU does. Most
 * ids of a long-tailed stream are asked for once; caching them evicted ids
 * that come back. Replaying the Zipf stream of bench/batch-get against this
 * cache at 128 MB: 14.1 misses a request instead of 17.0; on the uniform
 * stream as many misses, most of them no longer written into the arena.
 *
 * Entry numbers and offsets stay valid only until the next `set` or
 * `clear`: callers copy what they found before they insert or await anything
 * (another request may insert meanwhile). Fragments rendered from rows read
 * before a `clear` are refused by `set` through the generation they carry,
 * so a catalog change cannot be undone by a request that was in flight.
 */
const MAX_SEGMENT_BYTES = 1 << 20;
/** Fragments are a few hundred bytes: the doorkeeper's window is about the number the cache holds. */
const TYPICAL_FRAGMENT_BYTES = 600;

/**
 * Keys seen once, recently: a bitset of FNV-1a hashes, emptied after
 * `window` keys were first marked (older sightings stop counting). A false
 * positive admits a key on its first sighting, as if there were no doorkeeper.
 */
class Doorkeeper {
  readonly #bits: Uint32Array;
  readonly #mask: number;
  readonly #window: number;
  #marked = 0;

  constructor(window: number) {
    this.#window = window;
    // About 8 bits a key: one key in ten or so passes on its first sighting.
    let size = 1 << 16;
    while (size < window * 8) size *= 2;
    this.#bits = new Uint32Array(size / 32);
    this.#mask = size - 1;
  }

  /** True when `key` of `chain` was seen since the last reset; marks it seen. */
  seenBefore(chain: string, key: string): boolean {
    let hash = 0x811c9dc5;
    for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193);
    hash = Math.imul(hash ^ 0x1f, 0x01000193); // a separator, so chain and key do not run together
    for (let i = 0; i < chain.length; i++) hash = Math.imul(hash ^ chain.charCodeAt(i), 0x01000193);
    const bit = (hash ^ (hash >>> 15)) & this.#mask;
    const word = bit >>> 5;
    const flag = 1 << (bit & 31);
    if ((this.#bits[word]! & flag) !== 0) return true;
    if (++this.#marked > this.#window) {
      this.#bits.fill(0);
      this.#marked = 1;
    }
    this.#bits[word]! |= flag;
    return false;
  }
}

export class FragmentCache {
  readonly #arena: Buffer;
  readonly #segmentBytes: number;
  readonly #segmentEntries: number[][];
  readonly #indexes = new Map<string, Map<string, number>>();
  #offset = new Int32Array(1024);
  #length = new Int32Array(1024);
  #referenced = new Uint8Array(1024);
  #keys: (string | undefined)[] = [];
  #chains: (string | undefined)[] = [];
  #freeEntries: number[] = [];
  #segment = 0;
  #writeAt = 0;
  #bytes = 0;
  #generation = 0;
  readonly #doorkeeper: Doorkeeper | undefined;

  /** `admitFirstSight` turns the doorkeeper off: every `set` is cached (tests of the eviction policy). */
  constructor(maxBytes: number, options: { admitFirstSight?: boolean } = {}) {
    const segments = Math.max(2, Math.floor(maxBytes / MAX_SEGMENT_BYTES));
    this.#segmentBytes = maxBytes === 0 ? 0 : Math.max(1, Math.floor(maxBytes / segments));
    this.#arena = Buffer.allocUnsafeSlow(this.#segmentBytes * segments);
    this.#segmentEntries = Array.from({ length: segments }, () => []);
    this.#doorkeeper = options.admitFirstSight || maxBytes === 0 ? undefined : new Doorkeeper(Math.max(1024, Math.floor(maxBytes / TYPICAL_FRAGMENT_BYTES)));
  }

  /** Bytes of cached fragments. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Changes on every `clear`; read it before reading what you will `set`. */
  get generation(): number {
    return this.#generation;
  }

  /** The index of one locale chain; callers making many lookups fetch it once. */
  index(chain: string): ReadonlyMap<string, number> | undefined {
    return this.#indexes.get(chain);
  }

  /** The byte length of an entry found through `index`. */
  lengthOf(entry: number): number {
    return this.#length[entry]!;
  }

  /** Copies an entry into `target` at `at`, marks it used, and returns the bytes copied. */
  copyTo(entry: number, target: Buffer, at: number): number {
    this.#referenced[entry] = 1;
    const start = this.#offset[entry]!;
    return this.#arena.copy(target, at, start, start + this.#length[entry]!);
  }

  /** A copy of one fragment (tests and cold paths). */
  get(chain: string, key: string): Buffer | undefined {
    const entry = this.#indexes.get(chain)?.get(key);
    if (entry === undefined) return undefined;
    const copy = Buffer.allocUnsafe(this.#length[entry]!);
    this.copyTo(entry, copy, 0);
    return copy;
  }

  /** Caches a fragment rendered from what was read while `generation` was current (else it is dropped). */
  set(chain: string, key: string, value: Buffer, generation = this.#generation): void {
    if (value.length > this.#segmentBytes || generation !== this.#generation) return;
    let index = this.#indexes.get(chain);
    if (index === undefined) this.#indexes.set(chain, (index = new Map()));
    if (index.has(key)) return;
    if (this.#doorkeeper !== undefined && !this.#doorkeeper.seenBefore(chain, key)) return;
    // Move on through the segments until one has room; each step frees part of the next.
    while (this.#writeAt + value.length > this.#segmentBytes) this.#advance();
    const entry = this.#newEntry();
    const start = this.#segment * this.#segmentBytes + this.#writeAt;
    value.copy(this.#arena, start);
    this.#offset[entry] = start;
    this.#length[entry] = value.length;
    this.#referenced[entry] = 0;
    this.#keys[entry] = key;
    this.#chains[entry] = chain;
    this.#segmentEntries[this.#segment]!.push(entry);
    index.set(key, entry);
    this.#writeAt += value.length;
    this.#bytes += value.length;
  }

  clear(): void {
    this.#generation++;
    this.#indexes.clear();
    // The doorkeeper stays: which keys are asked for does not change with the catalog.
    for (const list of this.#segmentEntries) list.length = 0;
    this.#keys = [];
    this.#chains = [];
    this.#freeEntries = [];
    this.#segment = 0;
    this.#writeAt = 0;
    this.#bytes = 0;
  }

  /** Moves to the next segment: keeps (compacted) what was read since it was written, evicts the rest. */
  #advance(): void {
    this.#segment = (this.#segment + 1) % this.#segmentEntries.length;
    const base = this.#segment * this.#segmentBytes;
    const entries = this.#segmentEntries[this.#segment]!;
    const kept: number[] = [];
    let writeAt = 0;
    for (const entry of entries) {
      const length = this.#length[entry]!;
      if (this.#referenced[entry] === 1) {
        // Entries are in offset order, so the destination never overtakes the source.
        const from = this.#offset[entry]!;
        if (from !== base + writeAt) this.#arena.copy(this.#arena, base + writeAt, from, from + length);
        this.#offset[entry] = base + writeAt;
        this.#referenced[entry] = 0;
        writeAt += length;
        kept.push(entry);
      } else {
        this.#indexes.get(this.#chains[entry]!)!.delete(this.#keys[entry]!);
        this.#keys[entry] = undefined;
        this.#chains[entry] = undefined;
        this.#freeEntries.push(entry);
        this.#bytes -= length;
      }
    }
    this.#segmentEntries[this.#segment] = kept;
    this.#writeAt = writeAt;
  }

  #newEntry(): number {
    const reused = this.#freeEntries.pop();
    if (reused !== undefined) return reused;
    const entry = this.#keys.length;
    this.#keys.push(undefined);
    this.#chains.push(undefined);
    if (entry >= this.#offset.length) {
      const grow = <T extends Int32Array | Uint8Array>(old: T, make: (n: number) => T): T => {
        const grown = make(old.length * 2);
        grown.set(old);
        return grown;
      };
      this.#offset = grow(this.#offset, (n) => new Int32Array(n));
      this.#length = grow(this.#length, (n) => new Int32Array(n));
      this.#referenced = grow(this.#referenced, (n) => new Uint8Array(n));
    }
    return entry;
  }
}
