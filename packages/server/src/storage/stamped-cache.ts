/** Storage.changeStamp: what StampedCache keys on. */
export type ChangeStamp = () => string | null | Promise<string | null>;

/**
 * Rows read from the database, answered again without reading while the
 * database has certainly not changed (Storage.changeStamp): a revocation,
 * expiry change or any other write, by this process or another, empties it
 * before the next lookup. Where changes cannot be known (PostgreSQL without
 * a shared Redis, or Redis not answering), every lookup reads. Only found
 * rows are kept (an attacker's made-up keys must not fill memory), and at
 * most `maxEntries`.
 */
export class StampedCache<V> {
  readonly #changeStamp: ChangeStamp;
  readonly #maxEntries: number;
  readonly #entries = new Map<string, V>();
  #stamp: string | null = null;

  constructor(changeStamp: ChangeStamp, maxEntries = 10_000) {
    this.#changeStamp = changeStamp;
    this.#maxEntries = maxEntries;
  }

  async get(key: string, read: () => Promise<V | undefined>): Promise<V | undefined> {
    const stamp = await this.#changeStamp();
    if (stamp === null) {
      // Changes cannot be known now (Redis not answering): what was kept may be stale by the time they can.
      this.#entries.clear();
      this.#stamp = null;
      return read();
    }
    if (stamp !== this.#stamp) {
      this.#entries.clear();
      this.#stamp = stamp;
    }
    const cached = this.#entries.get(key);
    if (cached !== undefined) return cached;
    const value = await read();
    // Kept only if nothing was written while it was read (it might be older than the write).
    if (value !== undefined && (await this.#changeStamp()) === stamp && this.#stamp === stamp) {
      if (this.#entries.size >= this.#maxEntries) this.#entries.clear();
      this.#entries.set(key, value);
    }
    return value;
  }
}
