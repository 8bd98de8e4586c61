/**
 * The search index's posting lists, packed (contract section 11's index, on
 * both dialects). Items of a segment are numbered in the order a search
 * reads them (relevance aside): most popular first, then id and kind in byte
 * order. A word's postings in a segment are its items' numbers, ascending,
 * cut into chunks of CHUNK_SIZE numbers; a chunk is stored as one value of
 * 16-bit offsets from the chunk's start (little-endian). So intersecting
 * words is a few bitwise operations over a chunk's bitmap, and a search that
 * fills its page in the first chunk never reads the others.
 */

/** Item numbers a chunk covers: offsets fit in 16 bits. */
export const CHUNK_SIZE = 65_536;
/** 32-bit words of a chunk's bitmap. */
const BITMAP_WORDS = CHUNK_SIZE / 32;

/** The stored value of a chunk: the offsets (ascending, each below CHUNK_SIZE) as little-endian 16-bit numbers. */
export function encodeChunk(offsets: ArrayLike<number>): Buffer {
  const bytes = Buffer.allocUnsafe(offsets.length * 2);
  for (let i = 0; i < offsets.length; i++) {
    const offset = offsets[i]!;
    bytes[2 * i] = offset & 0xff;
    bytes[2 * i + 1] = offset >>> 8;
  }
  return bytes;
}

/** The offsets of a stored chunk. */
export function decodeChunk(bytes: Uint8Array): Uint16Array {
  const count = bytes.length >>> 1;
  // A view when aligned (node:sqlite hands out fresh buffers); pg's may be slices of a shared one.
  if (bytes.byteOffset % 2 === 0 && isLittleEndian) return new Uint16Array(bytes.buffer, bytes.byteOffset, count);
  const offsets = new Uint16Array(count);
  for (let i = 0; i < count; i++) offsets[i] = bytes[2 * i]! | (bytes[2 * i + 1]! << 8);
  return offsets;
}

const isLittleEndian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** 32-bit words of the bitmap of a chunk that starts at `base` in a segment of `size` items (the last chunk is shorter). */
export function bitmapWords(size: number, base: number): number {
  return Math.ceil(Math.min(CHUNK_SIZE, size - base) / 32);
}

/** A set of one chunk's item numbers (offsets), as a bitmap of `length` 32-bit words. */
export class ChunkBitmap {
  readonly words: Uint32Array;

  /** A cleared bitmap of `length` words, or one over these words (not copied). */
  constructor(length: number | Uint32Array = BITMAP_WORDS) {
    this.words = typeof length === 'number' ? new Uint32Array(length) : length;
  }

  /** Adds the offsets (those past the bitmap's end are not items of the chunk: none are stored). */
  add(offsets: Uint16Array): void {
    const words = this.words;
    for (let i = 0; i < offsets.length; i++) {
      const offset = offsets[i]!;
      words[offset >>> 5]! |= 1 << (offset & 31);
    }
  }

  and(other: ChunkBitmap): this {
    const a = this.words;
    const b = other.words;
    const shared = Math.min(a.length, b.length);
    for (let i = 0; i < shared; i++) a[i]! &= b[i]!;
    a.fill(0, shared);
    return this;
  }

  andNot(other: ChunkBitmap): this {
    const a = this.words;
    const b = other.words;
    const shared = Math.min(a.length, b.length);
    for (let i = 0; i < shared; i++) a[i]! &= ~b[i]!;
    return this;
  }

  /** Leaves out the chunk's items marked in a segment's deleted bitmap (bit n of byte n >> 3). */
  andNotDeleted(deleted: Uint8Array, chunk: number): this {
    const a = this.words;
    const start = (chunk * CHUNK_SIZE) >>> 3;
    const end = Math.min(deleted.length, start + a.length * 4);
    for (let byte = start; byte < end; byte++) {
      const bits = deleted[byte]!;
      if (bits !== 0) a[(byte - start) >>> 2]! &= ~(bits << (((byte - start) & 3) * 8));
    }
    return this;
  }

  /** The offsets set, from `from` up, ascending, at most `limit` of them. */
  take(from: number, limit: number): number[] {
    const found: number[] = [];
    const words = this.words;
    let index = from >>> 5;
    if (index >= words.length || limit <= 0) return found;
    // The first word without the bits below `from`.
    let word = words[index]! & (~0 << (from & 31));
    for (;;) {
      while (word !== 0) {
        const low = word & -word;
        found.push(index * 32 + 31 - Math.clz32(low));
        if (found.length >= limit) return found;
        word ^= low;
      }
      if (++index >= words.length) return found;
      word = words[index]!;
    }
  }
}

/**
 * Bitmaps for one chunk's evaluation, reused: allocating (and zeroing, and
 * collecting) a fresh 8 KB bitmap for every word group of every chunk was the
 * largest cost of a search over many chunks. Only for synchronous use: what
 * `take` returned is overwritten by the next `reset`.
 */
export class BitmapPool {
  readonly #free: Uint32Array[] = [];
  readonly #used: Uint32Array[] = [];

  /** A cleared bitmap of `length` words. */
  take(length: number): ChunkBitmap {
    const buffer = this.#free.pop() ?? new Uint32Array(BITMAP_WORDS);
    this.#used.push(buffer);
    const bitmap = new ChunkBitmap(buffer.subarray(0, length));
    bitmap.words.fill(0);
    return bitmap;
  }

  /** Makes every bitmap taken since the last reset free again. */
  reset(): void {
    while (this.#used.length > 0) this.#free.push(this.#used.pop()!);
  }
}

/** `deleted` with these item numbers added (a new value; the stored one is not changed). */
export function withDeleted(deleted: Uint8Array | null, size: number, numbers: Iterable<number>): Buffer {
  const next = Buffer.alloc((size + 7) >>> 3);
  if (deleted !== null) next.set(deleted.subarray(0, next.length));
  for (const number of numbers) next[number >>> 3]! |= 1 << (number & 7);
  return next;
}
