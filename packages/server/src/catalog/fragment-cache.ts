import { idHash, randomHashSeed } from './id-hash.ts';

/**
 * A bounded cache of serialized JSON fragments, kept in one preallocated
 * arena so its memory is exactly its budget and evictions make no garbage.
 *
 * The arena is cut into segments written in turn, like a log. When the writer
 * comes back to a segment, fragments read since they were written are kept
 * (compacted to the front of the segment) and the rest are evicted: CLOCK at
 * segment granularity. Each entry counts its reads up to three, and each
 * pass of the writer takes one off, so a fragment read often outlives a few
 * passes without a read, where a one-bit CLOCK forgets it on the second
 * (GCLOCK). A hit only bumps a byte, which matters when one request makes a
 * hundred lookups.
 *
 * The index is off the JavaScript heap too: an open-addressing hash table in
 * typed arrays, with each key stored in the arena in front of its fragment.
 * The cache holds no string or object per entry, so it adds nothing for the
 * garbage collector to trace and, as entries come and go, nothing to promote
 * and then collect: with a Map per locale chain, the keys of evicted ids
 * piled up in the old generation between full collections.
 *
 * Once the cache is full, a fragment is admitted on its second sighting:
 * the first `set` of a key only marks it in a doorkeeper (a bitset of hashed
 * keys, emptied once it has seen a quarter as many keys as the cache holds),
 * as W-TinyLFU does. Most ids of a long-tailed stream are asked for once;
 * caching them evicted ids that come back. Until it is full (more than two
 * segments free: a new process, or after a `clear`), every fragment is
 * admitted, since nothing is evicted for it.
 *
 * Replaying the Zipf stream of bench/batch-get against this cache alone at
 * 128 MB (misses a request once warm): 17.0 with neither the doorkeeper nor
 * the counts, 14.2 with a doorkeeper as wide as the cache and a one-bit
 * CLOCK, 12.4 now; 21.0 misses in the first pass over the stream before,
 * 18.4 now. At 32 and 64 MB: 25.8 and 19.5 misses instead of 27.2 and 21.1.
 *
 * Entry numbers and offsets stay valid only until the next `set` or
 * `clear`: callers copy what they found under the `lease` they took, which
 * `copyTo` checks (a copy after the cache changed throws StaleLeaseError
 * instead of sending another fragment's bytes). Fragments rendered from rows
 * read before a `clear` are refused by `set` through the version they carry,
 * so a catalog change cannot be undone by a request that was in flight.
 */
const MAX_SEGMENT_BYTES = 1 << 20;
/** Fragments are a few hundred bytes: how many a cache holds, to size the doorkeeper's window. */
const TYPICAL_FRAGMENT_BYTES = 600;
/**
 * The doorkeeper forgets after noting this share of the fragments the cache
 * holds: the narrower the window, the more often a key must come back to be
 * admitted. A quarter did best in the replays above (a half: 12.5 misses,
 * the whole: 13.0, an eighth: 12.7 with a slower start).
 */
const DOORKEEPER_WINDOW_SHARE = 0.25;
/** The most reads an entry counts: it survives that many passes of the writer without another. */
const MAX_USES = 3;
/** Offsets are 32-bit. */
export const MAX_FRAGMENT_CACHE_BYTES = 2 ** 32 - 2;
const NONE = -1;
/** In `findAll`'s answer: a key the cache lacks, and a key found at an earlier position of the same call. */
export const NOT_CACHED = -1;

/** An entry number used after the cache changed (see FragmentCache.lease): a bug, never a client's doing. */
export class StaleLeaseError extends Error {
  override name = 'StaleLeaseError';
  constructor() {
    super('fragment cache: an entry was used after the cache changed (an await between the lookup and the copy?)');
  }
}
export const REPEATED = -2;
/** In `findAll`, between its phases: a key whose home slot holds some other entry, so its lookup probes on. */
const PROBE_ON = -3;

// An entry's fields in FragmentCache's #entryFields. Its bytes in the arena are its key then its fragment;
// OFFSET is where the key starts (a u32 kept in an i32: read it with >>> 0). A key takes a byte a code
// unit when all of them fit (ids are ASCII), else two (KEY_UNIT_BYTES). USES counts reads since the
// writer last passed, up to MAX_USES. NEXT links the entries of a segment, or the free ones.
const OFFSET = 0;
const KEY_LENGTH = 1;
const LENGTH = 2;
const HASH = 3;
const CHAIN = 4;
const NEXT = 5;
const USES = 6;
const KEY_UNIT_BYTES = 7;
/** Eight i32s: 32 bytes, so an entry never straddles two 64-byte cache lines. */
const ENTRY_FIELDS = 8;

/**
 * Keys seen once, recently: a bitset of key hashes, emptied after `window`
 * keys were first marked (older sightings stop counting). A false positive
 * admits a key on its first sighting, as if there were no doorkeeper.
 */
class Doorkeeper {
  readonly #bits: Uint32Array;
  /** 32 minus the bitset's log2 size: a bit is picked by the top bits of a multiplied hash. */
  readonly #shift: number;
  readonly #window: number;
  #marked = 0;

  constructor(window: number) {
    this.#window = window;
    // About 8 bits a key: one key in ten or so passes on its first sighting.
    let size = 1 << 16;
    while (size < window * 8 && size < 2 ** 31) size *= 2;
    this.#bits = new Uint32Array(size / 32);
    this.#shift = 32 - Math.log2(size);
  }

  /** True when the key of this hash was seen since the last reset; marks it seen. */
  seenBefore(hash: number): boolean {
    // Fibonacci hashing: every bit of the hash counts, not only the low ones that pick the table's slot.
    const bit = Math.imul(hash, 0x9e3779b1) >>> this.#shift;
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

/** Bytes an entry takes in the arena: its key and fragment, rounded up to even (entries start aligned to a code unit). */
function entryBytes(keyBytes: number, fragmentBytes: number): number {
  return (keyBytes + fragmentBytes + 1) & ~1;
}

/** True when every code unit of `key` fits a byte. */
function narrow(key: string): boolean {
  for (let i = 0; i < key.length; i++) if (key.charCodeAt(i) > 0xff) return false;
  return true;
}

/** Lookups in one locale chain: the entry number of a key, valid until the next `set` or `clear`. */
export interface FragmentIndex {
  get(key: string): number | undefined;
}

export class FragmentCache {
  readonly #arena: Buffer;
  /** The arena as UTF-16 code units, for keys beyond Latin-1 (entries start at even offsets). */
  readonly #units: Uint16Array;
  readonly #segmentBytes: number;
  /** Each segment's entries in offset order, linked through #next. */
  readonly #segmentHead: Int32Array;
  readonly #segmentTail: Int32Array;
  readonly #chains = new Map<string, number>();
  readonly #views = new Map<string, FragmentIndex>();
  /** Entry number + 1 per slot, 0 for none; linear probing, at most half full. */
  #slots = new Int32Array(1024);
  /**
   * Per entry, ENTRY_FIELDS numbers side by side (see OFFSET and the rest),
   * so a lookup and its copy touch one cache line of them. (With an array
   * per field, a hit touched six lines besides its slot and its bytes: a
   * line-level profile under the fresh Zipf stream of bench/batch-get put a
   * third of batchGet's own time on the two loads that begin a lookup.)
   */
  #entryFields = new Int32Array(1024 * ENTRY_FIELDS);
  /** Entry numbers handed out so far; freed ones are linked from #free through #next. */
  #entries = 0;
  #free = NONE;
  #count = 0;
  #segment = 0;
  #writeAt = 0;
  #bytes = 0;
  #version = 0;
  /** Changes whenever an entry is written, moved or dropped: what a lease is checked against. */
  #mutations = 0;
  readonly #doorkeeper: Doorkeeper | undefined;
  /** findAll's scratch: a table of the entries found (a power of two, at least twice the keys). */
  #seen = new Int32Array(256);
  #touched = 0;

  /** Seeds the keys' hashes (id-hash.ts); drawn at random per cache. */
  readonly #seed: number;

  /**
   * `admitFirstSight` turns the doorkeeper off: every `set` is cached (tests
   * of the eviction policy). `hashSeed` replaces the random seed (tests
   * that make two keys' hashes collide).
   */
  constructor(maxBytes: number, options: { admitFirstSight?: boolean; hashSeed?: number } = {}) {
    this.#seed = options.hashSeed ?? randomHashSeed();
    if (maxBytes > MAX_FRAGMENT_CACHE_BYTES) throw new RangeError(`a fragment cache holds at most ${MAX_FRAGMENT_CACHE_BYTES} bytes`);
    const segments = Math.max(2, Math.floor(maxBytes / MAX_SEGMENT_BYTES));
    // Even, so every entry (and the key at its start) is aligned to a code unit.
    this.#segmentBytes = maxBytes === 0 ? 0 : Math.max(2, Math.floor(maxBytes / segments) & ~1);
    this.#arena = Buffer.allocUnsafeSlow(this.#segmentBytes * segments);
    this.#units = new Uint16Array(this.#arena.buffer, this.#arena.byteOffset, this.#arena.length >>> 1);
    this.#segmentHead = new Int32Array(segments).fill(NONE);
    this.#segmentTail = new Int32Array(segments).fill(NONE);
    this.#doorkeeper = options.admitFirstSight || maxBytes === 0
      ? undefined
      : new Doorkeeper(Math.max(1024, Math.floor((maxBytes / TYPICAL_FRAGMENT_BYTES) * DOORKEEPER_WINDOW_SHARE)));
  }

  /** Bytes of cached entries (their keys and fragments). */
  get bytes(): number {
    return this.#bytes;
  }

  /** Fragments cached. */
  get size(): number {
    return this.#count;
  }

  /** Changes on every `clear`; read it before reading what you will `set`. */
  get version(): number {
    return this.#version;
  }

  /**
   * A lease on entry numbers: the entries `findAll` and `index` answer stay
   * where they are only until the cache next changes (a `set`, a `clear`),
   * which any await may let another request do. Read the lease before the
   * lookup and hand it to `copyTo`: a lease the cache has
   * changed since fails loudly, rather than copy another key's bytes.
   */
  get lease(): number {
    return this.#mutations;
  }

  /** The index of one locale chain; callers making many lookups fetch it once. */
  index(chain: string): FragmentIndex | undefined {
    let view = this.#views.get(chain);
    if (view === undefined) {
      const number = this.#chains.get(chain);
      if (number === undefined) return undefined;
      view = { get: (key) => this.#find(number, key) };
      this.#views.set(chain, view);
    }
    return view;
  }

  /**
   * Looks up many keys of one chain at once: fills `entries` with each key's
   * entry number, NOT_CACHED for a key the cache lacks, or REPEATED for a
   * key found at an earlier position too; answers the fragments' bytes of the
   * entries found (each once). Valid until the next `set` or `clear`.
   * `hashes` gets each key's hash (what tells the misses apart cheaply).
   *
   * The lookups go in phases over all the keys (their home slots, then those
   * slots' entries, then the keys' bytes) rather than one after another: a
   * batch's keys are scattered over the slots, the entries and the arena, so
   * each step of a lookup is a cache miss. Within a phase the loads do not
   * depend on one another and the processor overlaps their misses; one
   * lookup after another waited for each miss in turn.
   */
  findAll(chain: string, keys: readonly string[], entries: Int32Array, hashes: Int32Array): number {
    const count = keys.length;
    const number = this.#chainNumber(chain);
    const slots = this.#slots;
    const fields = this.#entryFields;
    const mask = slots.length - 1;
    if (this.#seen.length < 2 * count) this.#seen = new Int32Array(2 ** Math.ceil(Math.log2(2 * count)));
    // 1. Each key's hash, and what its home slot holds (entry number + 1, or 0).
    for (let i = 0; i < count; i++) {
      const hash = this.#hashOf(number, keys[i]!);
      hashes[i] = hash;
      entries[i] = slots[hash & mask]!;
    }
    // 2. Whether that entry has the key's hash, chain and length: then it is almost surely the key's.
    for (let i = 0; i < count; i++) {
      const held = entries[i]!;
      const base = (held - 1) * ENTRY_FIELDS;
      entries[i] = held !== 0 && fields[base + HASH] === hashes[i] && fields[base + CHAIN] === number && fields[base + KEY_LENGTH] === keys[i]!.length
        ? held - 1
        : held === 0 ? NOT_CACHED : PROBE_ON;
    }
    // 3. A byte of every 64 of each candidate (its key, then its fragment), and its last: its arena lines, read now
    // beside the others' (kept in #touched so the reads are not optimized away), are in the processor's cache for
    // the comparison below and the copy after it. Read line by line inside the copy, each fragment's misses waited
    // on one another: copying a hundred 620-byte fragments from a 64 MB arena took 25 us with only the first line
    // read ahead, 17.5 us with every line (bench/batch-get/arena-copy.ts).
    const arena = this.#arena;
    let touched = 0;
    for (let i = 0; i < count; i++) {
      const entry = entries[i]!;
      if (entry < 0) continue;
      const base = entry * ENTRY_FIELDS;
      const start = fields[base + OFFSET]! >>> 0;
      const end = start + fields[base + KEY_UNIT_BYTES]! * fields[base + KEY_LENGTH]! + fields[base + LENGTH]!;
      for (let at = start; at < end; at += 64) touched += arena[at]!;
      touched += arena[end - 1]!;
    }
    this.#touched = touched;
    // 4. The keys' bytes, and the lookups that probe past their home slot.
    const seen = this.#seen.fill(0);
    const seenMask = seen.length - 1;
    // Fibonacci hashing into the table: the top bits of the entry number times the golden ratio.
    const seenShift = Math.clz32(seen.length) + 1;
    let bytes = 0;
    for (let i = 0; i < count; i++) {
      let entry = entries[i]!;
      if (entry === NOT_CACHED) continue;
      if (entry === PROBE_ON || !this.#holdsKey(entry, keys[i]!)) entry = this.#lookup(number, keys[i]!, hashes[i]!) ?? NOT_CACHED;
      if (entry !== NOT_CACHED) {
        // Each entry once: a small table of the entries found so far (entry number + 1 per slot).
        let slot = Math.imul(entry, 0x9e3779b1) >>> seenShift;
        while (seen[slot] !== 0 && seen[slot] !== entry + 1) slot = (slot + 1) & seenMask;
        if (seen[slot] === 0) {
          seen[slot] = entry + 1;
          bytes += fields[entry * ENTRY_FIELDS + LENGTH]!;
        } else entry = REPEATED;
      }
      entries[i] = entry;
    }
    return bytes;
  }

  /** The byte length of an entry's fragment, found through `index`. */
  lengthOf(entry: number): number {
    return this.#entryFields[entry * ENTRY_FIELDS + LENGTH]!;
  }

  /** Copies an entry's fragment into `target` at `at`, counts the read, and returns the bytes copied. */
  copyTo(entry: number, target: Buffer, at: number, lease: number): number {
    if (lease !== this.#mutations) throw new StaleLeaseError();
    const fields = this.#entryFields;
    const base = entry * ENTRY_FIELDS;
    if (fields[base + USES]! < MAX_USES) fields[base + USES]!++;
    const start = (fields[base + OFFSET]! >>> 0) + fields[base + KEY_UNIT_BYTES]! * fields[base + KEY_LENGTH]!;
    return this.#arena.copy(target, at, start, start + fields[base + LENGTH]!);
  }

  /** A copy of one fragment (tests and cold paths). */
  get(chain: string, key: string): Buffer | undefined {
    const entry = this.index(chain)?.get(key);
    if (entry === undefined) return undefined;
    const copy = Buffer.allocUnsafe(this.lengthOf(entry));
    this.copyTo(entry, copy, 0, this.#mutations);
    return copy;
  }

  /** Caches a fragment rendered from what was read while `version` was current (else it is dropped). */
  set(chain: string, key: string, value: Buffer, version = this.#version): void {
    if (version !== this.#version) return;
    const number = this.#chainNumber(chain);
    const hash = this.#hashOf(number, key);
    if (this.#lookup(number, key, hash) === undefined) this.#insertIfAdmitted(number, key, value, hash);
  }

  /** The number of a locale chain, given one at its first sight: it salts the chain's hashes. */
  #chainNumber(chain: string): number {
    let number = this.#chains.get(chain);
    if (number === undefined) this.#chains.set(chain, (number = this.#chains.size));
    return number;
  }

  /** Caches a fragment the cache lacks, if the doorkeeper lets it in. */
  #insertIfAdmitted(number: number, key: string, value: Buffer, hash: number): void {
    const unitBytes = narrow(key) ? 1 : 2;
    const size = entryBytes(unitBytes * key.length, value.length);
    if (size > this.#segmentBytes) return;
    // The doorkeeper notes every key, also while the cache fills, so a full cache starts with what came back.
    if (this.#doorkeeper !== undefined && !this.#doorkeeper.seenBefore(hash) && !this.#hasRoomFor(size)) return;
    // Move on through the segments until one has room; each step frees part of the next. Once a whole pass found
    // every entry read (each kept costs a copy), the next segment is emptied: a set never compacts more than the
    // arena once, where counts of three could take three passes.
    this.#mutations++;
    let steps = 0;
    while (this.#writeAt + size > this.#segmentBytes) this.#advance(++steps > this.#segmentHead.length);
    const entry = this.#newEntry();
    const start = this.#segment * this.#segmentBytes + this.#writeAt;
    if (unitBytes === 1) for (let i = 0; i < key.length; i++) this.#arena[start + i] = key.charCodeAt(i);
    else for (let i = 0, unit = start >>> 1; i < key.length; i++) this.#units[unit + i] = key.charCodeAt(i);
    value.copy(this.#arena, start + unitBytes * key.length);
    const fields = this.#entryFields;
    const base = entry * ENTRY_FIELDS;
    fields[base + OFFSET] = start;
    fields[base + KEY_LENGTH] = key.length;
    fields[base + KEY_UNIT_BYTES] = unitBytes;
    fields[base + LENGTH] = value.length;
    fields[base + HASH] = hash;
    fields[base + CHAIN] = number;
    fields[base + USES] = 0;
    this.#append(this.#segment, entry);
    this.#insert(entry);
    this.#writeAt += size;
    this.#bytes += size;
  }

  clear(): void {
    this.#version++;
    this.#mutations++;
    // The doorkeeper and the chains' numbers stay: which keys are asked for does not change with the catalog.
    this.#slots.fill(0);
    this.#segmentHead.fill(NONE);
    this.#segmentTail.fill(NONE);
    this.#entries = 0;
    this.#free = NONE;
    this.#count = 0;
    this.#segment = 0;
    this.#writeAt = 0;
    this.#bytes = 0;
  }

  /** True while more than two segments of the arena are free after `size` more bytes: nothing is evicted yet. */
  #hasRoomFor(size: number): boolean {
    return this.#bytes + size <= this.#arena.length - 2 * this.#segmentBytes;
  }

  #find(chain: number, key: string): number | undefined {
    return this.#lookup(chain, key, this.#hashOf(chain, key));
  }

  /** A key's hash, salted with its chain's number so chains never share probe runs. */
  #hashOf(chain: number, key: string): number {
    return idHash(this.#seed, chain, key);
  }

  #lookup(chain: number, key: string, hash: number): number | undefined {
    const slots = this.#slots;
    const fields = this.#entryFields;
    const mask = slots.length - 1;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const held = slots[slot]!;
      if (held === 0) return undefined;
      const base = (held - 1) * ENTRY_FIELDS;
      if (fields[base + HASH] === hash && fields[base + CHAIN] === chain && fields[base + KEY_LENGTH] === key.length && this.#holdsKey(held - 1, key)) return held - 1;
    }
  }

  #keyBytes(entry: number): number {
    const base = entry * ENTRY_FIELDS;
    return this.#entryFields[base + KEY_UNIT_BYTES]! * this.#entryFields[base + KEY_LENGTH]!;
  }

  #holdsKey(entry: number, key: string): boolean {
    const start = this.#entryFields[entry * ENTRY_FIELDS + OFFSET]! >>> 0;
    if (this.#entryFields[entry * ENTRY_FIELDS + KEY_UNIT_BYTES] === 1) {
      for (let i = 0; i < key.length; i++) if (this.#arena[start + i] !== key.charCodeAt(i)) return false;
    } else {
      for (let i = 0, unit = start >>> 1; i < key.length; i++) if (this.#units[unit + i] !== key.charCodeAt(i)) return false;
    }
    return true;
  }

  #insert(entry: number): void {
    if (++this.#count * 2 > this.#slots.length) this.#rehash(this.#slots.length * 2);
    else this.#place(this.#slots, entry);
  }

  #place(slots: Int32Array, entry: number): void {
    const mask = slots.length - 1;
    let slot = this.#entryFields[entry * ENTRY_FIELDS + HASH]! & mask;
    while (slots[slot] !== 0) slot = (slot + 1) & mask;
    slots[slot] = entry + 1;
  }

  #rehash(size: number): void {
    const slots = new Int32Array(size);
    for (let segment = 0; segment < this.#segmentHead.length; segment++) {
      for (let entry = this.#segmentHead[segment]!; entry !== NONE; entry = this.#entryFields[entry * ENTRY_FIELDS + NEXT]!) this.#place(slots, entry);
    }
    this.#slots = slots;
  }

  /** Takes an entry out of the table, shifting back the entries after it that probed past its slot. */
  #remove(entry: number): void {
    const slots = this.#slots;
    const mask = slots.length - 1;
    let hole = this.#entryFields[entry * ENTRY_FIELDS + HASH]! & mask;
    while (slots[hole] !== entry + 1) hole = (hole + 1) & mask;
    for (let slot = (hole + 1) & mask; slots[slot] !== 0; slot = (slot + 1) & mask) {
      const home = this.#entryFields[(slots[slot]! - 1) * ENTRY_FIELDS + HASH]! & mask;
      // It may move into the hole when the hole lies on its probe path: from its home up to its slot.
      if (((slot - home) & mask) >= ((slot - hole) & mask)) {
        slots[hole] = slots[slot]!;
        hole = slot;
      }
    }
    slots[hole] = 0;
    this.#count--;
  }

  #append(segment: number, entry: number): void {
    this.#entryFields[entry * ENTRY_FIELDS + NEXT] = NONE;
    const tail = this.#segmentTail[segment]!;
    if (tail === NONE) this.#segmentHead[segment] = entry;
    else this.#entryFields[tail * ENTRY_FIELDS + NEXT] = entry;
    this.#segmentTail[segment] = entry;
  }

  /** Moves to the next segment: keeps (compacted) what was read since the last pass, one read fewer; evicts the rest (all of it if `evictAll`). */
  #advance(evictAll: boolean): void {
    const segment = (this.#segment = (this.#segment + 1) % this.#segmentHead.length);
    const base = segment * this.#segmentBytes;
    let entry = this.#segmentHead[segment]!;
    this.#segmentHead[segment] = this.#segmentTail[segment] = NONE;
    let writeAt = 0;
    const fields = this.#entryFields;
    while (entry !== NONE) {
      const at = entry * ENTRY_FIELDS;
      const next = fields[at + NEXT]!;
      const size = entryBytes(this.#keyBytes(entry), fields[at + LENGTH]!);
      if (!evictAll && fields[at + USES]! > 0) {
        // Entries are in offset order, so the destination never overtakes the source.
        const from = fields[at + OFFSET]! >>> 0;
        if (from !== base + writeAt) this.#arena.copy(this.#arena, base + writeAt, from, from + size);
        fields[at + OFFSET] = base + writeAt;
        fields[at + USES]!--;
        writeAt += size;
        this.#append(segment, entry);
      } else {
        this.#remove(entry);
        fields[at + NEXT] = this.#free;
        this.#free = entry;
        this.#bytes -= size;
      }
      entry = next;
    }
    this.#writeAt = writeAt;
  }

  #newEntry(): number {
    if (this.#free !== NONE) {
      const reused = this.#free;
      this.#free = this.#entryFields[reused * ENTRY_FIELDS + NEXT]!;
      return reused;
    }
    const entry = this.#entries++;
    if ((entry + 1) * ENTRY_FIELDS > this.#entryFields.length) {
      const grown = new Int32Array(this.#entryFields.length * 2);
      grown.set(this.#entryFields);
      this.#entryFields = grown;
    }
    return entry;
  }
}
