/**
 * The integer a song's template is stored under: a 53-bit hash of its id.
 *
 * On SQLite, an INTEGER PRIMARY KEY is the table's rowid, so a template read
 * is one descent of a B-tree whose inner pages hold only integers (hundreds
 * of children a page: three levels for millions of songs, all of them in the
 * page cache). Keyed by the text id, the table had to be WITHOUT ROWID, whose
 * inner pages hold whole rows: about five 650-byte templates a page, eight
 * levels, and most lookups read two or three pages from outside SQLite's
 * cache. With 1,000,000 songs, random reads of 14 and 85 ids cost 6.5 and
 * 5.5 us an id keyed by text, 4.8 and 3.8 through a rowid table with an index
 * on the id, and 3.6 and 2.5 keyed by this hash (bench/README.md).
 *
 * Two ids can share a key (about one chance in 18,000 for a million songs):
 * the first to be written holds it, the other is kept by id in a table of
 * its own (song-templates.repo.ts). Keys are stored, so this function must
 * never change without a migration that rewrites them.
 *
 * Two 32-bit FNV-1a-style hashes of the UTF-16 code units (different offsets and multipliers),
 * each finished with murmur3's mixer; 32 bits of one and 21 of the other.
 * Any result is a safe integer, bound as a plain number on both dialects.
 */
export function songKey(id: string): number {
  let high = 0x811c9dc5;
  let low = 0x050c5d1f;
  for (let i = 0; i < id.length; i++) {
    const unit = id.charCodeAt(i);
    high = Math.imul(high ^ unit, 0x01000193);
    low = Math.imul(low ^ unit, 0x5bd1e995);
  }
  return (mix(high) >>> 0) * 0x200000 + (mix(low) >>> 11);
}

/** murmur3's fmix32: every input bit moves every output bit. */
function mix(hash: number): number {
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  return hash ^ (hash >>> 16);
}
