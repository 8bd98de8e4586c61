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

  constructor(length = BITMAP_WORDS) {
    this.words = new Uint32Array(length);
  }

  static of(lists: Iterable<Uint16Array>, length = BITMAP_WORDS): ChunkBitmap {
    const bitmap = new ChunkBitmap(length);
    for (const list of lists) bitmap.add(list);
    return bitmap;
  }

  static full(length = BITMAP_WORDS): ChunkBitmap {
    const bitmap = new ChunkBitmap(length);
    bitmap.words.fill(0xffffffff);
    return bitmap;
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

/** A segment's deleted item numbers: bit n of byte n >> 3. */
export function isDeleted(deleted: Uint8Array | null, number: number): boolean {
  return deleted !== null && (number >>> 3) < deleted.length && (deleted[number >>> 3]! & (1 << (number & 7))) !== 0;
}

/** The deleted item numbers of one chunk, as a bitmap. */
export function deletedInChunk(deleted: Uint8Array | null, chunk: number): ChunkBitmap | undefined {
  if (deleted === null) return undefined;
  const start = (chunk * CHUNK_SIZE) >>> 3;
  if (start >= deleted.length) return undefined;
  const bitmap = new ChunkBitmap(Math.ceil(Math.min(CHUNK_SIZE / 8, deleted.length - start) / 4));
  const end = Math.min(deleted.length, start + CHUNK_SIZE / 8);
  const bytes = new Uint8Array(bitmap.words.buffer);
  if (isLittleEndian) bytes.set(deleted.subarray(start, end));
  else for (let n = 0; n < (end - start) * 8; n++) if (isDeleted(deleted, chunk * CHUNK_SIZE + n)) bitmap.words[n >>> 5]! |= 1 << (n & 31);
  return bitmap;
}

/** `deleted` with these item numbers added (a new value; the stored one is not changed). */
export function withDeleted(deleted: Uint8Array | null, size: number, numbers: Iterable<number>): Buffer {
  const next = Buffer.alloc((size + 7) >>> 3);
  if (deleted !== null) next.set(deleted.subarray(0, next.length));
  for (const number of numbers) next[number >>> 3]! |= 1 << (number & 7);
  return next;
}
