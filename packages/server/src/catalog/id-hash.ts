/**
 * The hash of a catalog id that the fragment cache's off-heap index probes
 * by: FNV-1a over a seed,
 * a number and the id's UTF-16 code units, finished with murmur3's mixer
 * (linear probing wants every bit mixed). Each cache draws its seed at
 * random per process, and only catalog ids are ever inserted, so a client
 * choosing ids cannot build the long probe runs a collision attack needs.
 */
export function idHash(seed: number, salt: number, id: string): number {
  let hash = Math.imul(0x811c9dc5 ^ seed ^ salt, 0x01000193);
  for (let i = 0; i < id.length; i++) hash = Math.imul(hash ^ id.charCodeAt(i), 0x01000193);
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  return hash ^ (hash >>> 16);
}

/** A seed for idHash, drawn at random. */
export function randomHashSeed(): number {
  return (Math.random() * 2 ** 32) >>> 0;
}
