/** Storage.writeVersion: what VersionedCache keys on. */
export type WriteVersion = () => string | null | Promise<string | null>;

/**
 * Rows read from the database, answered again without reading while the
 * database has certainly not changed (Storage.writeVersion): a revocation,
 * expiry change or any other write, by this process or another, empties it
 * before the next lookup. Where changes cannot be known (PostgreSQL without
 * a shared Redis, or Redis not answering), every lookup reads. Only found
 * rows are kept (an attacker's made-up keys must not fill memory), and at
 * most `maxEntries`.
 */
export class VersionedCache<V> {
  readonly #writeVersion: WriteVersion;
  readonly #maxEntries: number;
  readonly #entries = new Map<string, V>();
  #version: string | null = null;

  constructor(writeVersion: WriteVersion, maxEntries = 10_000) {
    this.#writeVersion = writeVersion;
    this.#maxEntries = maxEntries;
  }

  /** The row kept for `key`, while the database has certainly not changed since it was read; never reads. */
  async peek(key: string): Promise<V | undefined> {
    const version = await this.#currentVersion();
    return version === null ? undefined : this.#entries.get(key);
  }

  /**
   * Reads the row, whatever is kept, and keeps what it finds. It asks the
   * version before and after reading whether or not a row is found, so a
   * missing key costs what a present one does (API keys: answer times must
   * not tell which ids exist).
   */
  async load(key: string, read: () => Promise<V | undefined>): Promise<V | undefined> {
    return this.#load(key, read, await this.#currentVersion());
  }

  /** The kept row, or the row read (and kept) when there is none. */
  async get(key: string, read: () => Promise<V | undefined>): Promise<V | undefined> {
    const version = await this.#currentVersion();
    const cached = version === null ? undefined : this.#entries.get(key);
    return cached ?? this.#load(key, read, version);
  }

  /** The current version; what was kept under another one is dropped. */
  async #currentVersion(): Promise<string | null> {
    const version = await this.#writeVersion();
    // Null: changes cannot be known now (Redis not answering), and what was kept may be stale by the time they can.
    if (version === null || version !== this.#version) this.#entries.clear();
    this.#version = version;
    return version;
  }

  async #load(key: string, read: () => Promise<V | undefined>, version: string | null): Promise<V | undefined> {
    const value = await read();
    // Kept only if nothing was written while it was read (it might be older than the write).
    const unchanged = (await this.#writeVersion()) === version && version !== null && this.#version === version;
    if (value !== undefined && unchanged) {
      if (this.#entries.size >= this.#maxEntries) this.#entries.clear();
      this.#entries.set(key, value);
    }
    return value;
  }
}
