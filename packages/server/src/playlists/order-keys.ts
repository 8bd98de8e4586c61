/**
 * Where a playlist's entries stand: each has an integer order key, and the
 * entries are in the order of their keys. Keys leave gaps (ORDER_KEY_GAP
 * between entries appended one after another), so adding or moving entries
 * gives keys to those entries only, between their new neighbours' keys. When
 * no gap is left there (about 20 inserts at one spot), the playlist's keys
 * are renumbered in the same transaction (playlists.repo.ts renumber).
 */
export const ORDER_KEY_GAP = 1 << 20;
/** Keys stay exact in a double: appending past this renumbers first. 10,000 entries renumbered reach 2^33.3. */
const MAX_ORDER_KEY = 2 ** 52;

/**
 * `count` increasing keys strictly between `before` (the key of the entry
 * they follow; null: the start) and `after` (the key of the entry they
 * precede; null: the end), spread evenly; null when there is no room.
 */
export function keysBetween(before: number | null, after: number | null, count: number): number[] | null {
  const low = before ?? 0;
  if (after === null) {
    const keys = Array.from({ length: count }, (_, i) => low + ORDER_KEY_GAP * (i + 1));
    return keys[keys.length - 1]! > MAX_ORDER_KEY ? null : keys;
  }
  const span = after - low;
  if (span <= count) return null;
  const step = span / (count + 1);
  return Array.from({ length: count }, (_, i) => low + Math.floor(step * (i + 1)));
}

/** The key of the `rank`-th entry (from 0) once a playlist is renumbered. */
export const renumberedKey = (rank: number) => (rank + 1) * ORDER_KEY_GAP;
