import { describe, expect, it } from 'vitest';
import { BitmapPool, CHUNK_SIZE, ChunkBitmap, decodeChunk, encodeChunk, withDeleted } from '../../src/search/doclist.ts';

describe('packed postings', () => {
  it('stores a chunk as 16-bit little-endian offsets and reads them back, aligned or not', () => {
    const offsets = [0, 1, 255, 256, 4097, 65_535];
    const stored = encodeChunk(offsets);
    expect([...stored.subarray(0, 6)]).toEqual([0, 0, 1, 0, 255, 0]);
    expect([...decodeChunk(stored)]).toEqual(offsets);
    // PostgreSQL's driver may hand out a slice of a larger buffer at an odd offset.
    const shifted = new Uint8Array(stored.length + 1);
    shifted.set(stored, 1);
    expect([...decodeChunk(shifted.subarray(1))]).toEqual(offsets);
  });

  const bitmapOf = (...lists: number[][]) => {
    const bitmap = new ChunkBitmap();
    for (const list of lists) bitmap.add(Uint16Array.from(list));
    return bitmap;
  };
  const full = (length?: number) => {
    const bitmap = new ChunkBitmap(length);
    bitmap.words.fill(0xffffffff);
    return bitmap;
  };

  it('intersects, subtracts and lists a chunk in ascending order from a starting offset', () => {
    const a = bitmapOf([1, 31, 32, 33, 64, 1000, 65_535]);
    const b = bitmapOf([31, 32, 1000], [64, 65_535]);
    expect(a.and(b).take(0, 100)).toEqual([31, 32, 64, 1000, 65_535]);
    expect(a.andNot(bitmapOf([32])).take(0, 100)).toEqual([31, 64, 1000, 65_535]);
    expect(a.take(32, 100)).toEqual([64, 1000, 65_535]);
    expect(a.take(31, 2)).toEqual([31, 64]);
    expect(a.take(CHUNK_SIZE, 5)).toEqual([]);
    expect(full().take(65_534, 5)).toEqual([65_534, 65_535]);
  });

  it('marks deleted item numbers in a segment and leaves them out of each chunk', () => {
    const size = CHUNK_SIZE + 100;
    const deleted = withDeleted(withDeleted(null, size, [3, 65_535]), size, [CHUNK_SIZE + 7, CHUNK_SIZE + 99]);
    expect(deleted.length).toBe(Math.ceil(size / 8));
    expect(full().andNotDeleted(deleted, 0).take(0, 4)).toEqual([0, 1, 2, 4]);
    expect(full().andNotDeleted(deleted, 0).take(65_530, 10)).toEqual([65_530, 65_531, 65_532, 65_533, 65_534]);
    expect(full(4).andNotDeleted(deleted, 1).take(0, 200)).toEqual(Array.from({ length: 128 }, (_, i) => i).filter((n) => n !== 7 && n !== 99));
  });

  it('hands out cleared bitmaps of the length asked, reused after a reset', () => {
    const pool = new BitmapPool();
    const first = pool.take(4);
    first.add(Uint16Array.from([1, 100]));
    expect(first.words.length).toBe(4);
    pool.reset();
    const again = pool.take(2048);
    expect(again.words.buffer).toBe(first.words.buffer);
    expect(again.take(0, 10)).toEqual([]);
    expect(pool.take(2048).words.buffer).not.toBe(again.words.buffer);
  });
});
