/**
 * Rows read from the database, answered again without reading while the
 * database has certainly not changed (Storage.changeStamp): a revocation,
 * expiry change or any other write, by this process or another, empties it
 * before the next lookup. Where changes cannot be known without asking the
 * database (PostgreSQL), every lookup reads. Only found rows are kept (an
 * attacker's made-up keys must not fill memory), and at most `maxEntries`.
 */
export class StampedCache<V> {
  readonly #changeStamp: () => string | null;
  readonly #maxEntries: number;
  readonly #entries = new Map<string, V>();
  #stamp: string | null = null;

  constructor(changeStamp: () => string | null, maxEntries = 10_000) {
    this.#changeStamp = changeStamp;
    this.#maxEntries = maxEntries;
  }

  async get(key: string, read: () => Promise<V | undefined>): Promise<V | undefined> {
    const stamp = this.#changeStamp();
    if (stamp === null) return read();
    if (stamp !== this.#stamp) {
      this.#entries.clear();
      this.#stamp = stamp;
    }
    const cached = this.#entries.get(key);
    if (cached !== undefined) return cached;
    const value = await read();
    // Kept only if nothing was written while it was read (it might be older than the write).
    if (value !== undefined && this.#changeStamp() === stamp) {
      if (this.#entries.size >= this.#maxEntries) this.#entries.clear();
      this.#entries.set(key, value);
    }
    return value;
  }
}
