/**
 * Reusable blocks of memory for the Batch* answers and their scratch copies.
 *
 * Each BatchGetSongs answer is tens of kilobytes, allocated with malloc and
 * freed only when the garbage collector finds its Buffer dead. Under load
 * thousands of them a second waited for that, and glibc kept the memory they
 * had used: under the 1M catalog's Zipf stream the malloc heap stood at
 * 88 MB (63 MB with this pool), against 12 MB for an idle server. A block
 * lent here is given back as soon as its holder is done with it (the
 * answer's response has closed, the scratch copy's request has its answer),
 * so the same few blocks serve request after request.
 *
 * A block is only ever reused after it was given back, and `give` takes back
 * only a block `take` lent and not yet returned: a holder that never gives
 * its block back (a request whose client went away before the answer was
 * sent) leaves it to the garbage collector, as if it had not been pooled.
 */

/** The smallest block: below it, Buffer.allocUnsafe's shared 8 KB slabs already make allocation cheap. */
const MIN_BLOCK_BYTES = 8 * 1024;
/** Larger answers are allocated as before: they are rare (a batch of long texts) and would hold too much idle memory. */
const MAX_BLOCK_BYTES = 1024 * 1024;

export class BufferPool {
  /** Free blocks per size class: class k holds blocks of MIN_BLOCK_BYTES << k bytes. */
  readonly #free: Buffer[][] = [];
  /** The blocks lent and not yet given back, by their memory. */
  readonly #lent = new WeakSet<ArrayBufferLike>();
  readonly #maxIdleBytes: number;
  #idleBytes = 0;

  /** `maxIdleBytes`: at most this much memory is kept in blocks no one holds; a block given back beyond it is dropped. */
  constructor(maxIdleBytes: number) {
    this.#maxIdleBytes = maxIdleBytes;
    for (let size = MIN_BLOCK_BYTES; size <= MAX_BLOCK_BYTES; size *= 2) this.#free.push([]);
  }

  /** A buffer of exactly `size` bytes, uninitialized; give it back with `give` once nothing reads it any more. */
  take(size: number): Buffer {
    if (size > MAX_BLOCK_BYTES) return Buffer.allocUnsafe(size);
    const sizeClass = classOf(size);
    let block = this.#free[sizeClass]!.pop();
    if (block === undefined) {
      // Its own memory, not a slice of a shared slab, so it can be told apart and kept.
      block = Buffer.allocUnsafeSlow(MIN_BLOCK_BYTES << sizeClass);
    } else {
      this.#idleBytes -= block.length;
    }
    this.#lent.add(block.buffer);
    return block.subarray(0, size);
  }

  /** Takes back the block behind a buffer from `take`. Any other buffer, or one already given back, is ignored. */
  give(buffer: Buffer): void {
    const memory = buffer.buffer;
    if (!this.#lent.delete(memory)) return;
    if (this.#idleBytes + memory.byteLength > this.#maxIdleBytes) return;
    this.#idleBytes += memory.byteLength;
    this.#free[classOf(memory.byteLength)]!.push(Buffer.from(memory));
  }
}

/** The size class whose blocks are the smallest that hold `size` bytes. */
function classOf(size: number): number {
  let sizeClass = 0;
  while (MIN_BLOCK_BYTES << sizeClass < size) sizeClass++;
  return sizeClass;
}
