import { closeSync, openSync, readSync } from 'node:fs';
import { resolve } from 'node:path';

/**
 * Whether other connections committed to a SQLite database in WAL mode,
 * told from the WAL-index header in its `-shm` file ("The WAL-Index Header"
 * in SQLite's description of its WAL format), at the cost of one 96-byte
 * `pread`.
 *
 * `PRAGMA data_version` answers the same question, but it opens a read
 * transaction to do so: file locks taken and released. Every credential
 * check asks (VersionedCache): on their own, 3.1 us a question against 0.9 us
 * for the `pread`; under load the `pread` still cost about 2.5 us, and a
 * cached BatchGetSongs request about 3 us less (A/B, bench/README.md at 9b0c7f5).
 *
 * The header is two copies of a 48-byte record that every commit rewrites
 * (its change counter, last frame and checksums move), the second copy
 * first. Both copies equal and initialized is a header at rest; they differ
 * while a commit is writing them, and then this says it cannot tell, and the
 * caller asks SQLite. The `-shm` file is mapped shared by every connection,
 * so a read of the file sees a commit's header as soon as the commit returns.
 * A checkpoint writes past the header and changes nothing here.
 *
 * The file is opened once it exists (SQLite creates it at the first read
 * in WAL mode) and stays valid while this process's own connection is
 * open: SQLite removes it only when the last connection closes.
 */
export class WalIndexWatch {
  readonly #path: string;
  #fd: number | undefined;
  /** The header as last read: both copies. */
  readonly #header = new Uint32Array(HEADER_WORDS * 2);
  readonly #headerBytes = new Uint8Array(this.#header.buffer);
  readonly #last = new Uint32Array(HEADER_WORDS);
  #version = 0;

  constructor(databasePath: string) {
    // Absolute, as SQLite names it: a later change of directory does not change which file this reads.
    this.#path = `${resolve(databasePath)}-shm`;
  }

  /**
   * A number that changes whenever the header did since the last call: at
   * every commit by any connection, in any process. Undefined when it cannot
   * tell now (no `-shm` file yet, or a commit writing the header).
   */
  version(): number | undefined {
    if (this.#fd === undefined) {
      try {
        this.#fd = openSync(this.#path, 'r');
      } catch {
        return undefined;
      }
    }
    const header = this.#header;
    try {
      if (readSync(this.#fd, this.#headerBytes, 0, this.#headerBytes.length, 0) !== this.#headerBytes.length) return undefined;
    } catch {
      // SQLite's own read answers instead, and turns a failing disk into its 503.
      return undefined;
    }
    // Byte 12 is isInit: 1 once a connection has built the index.
    if (this.#headerBytes[IS_INIT_BYTE] !== 1) return undefined;
    for (let i = 0; i < HEADER_WORDS; i++) if (header[i] !== header[HEADER_WORDS + i]) return undefined;
    const last = this.#last;
    let changed = false;
    for (let i = 0; i < HEADER_WORDS; i++) {
      if (header[i] !== last[i]) {
        changed = true;
        last[i] = header[i]!;
      }
    }
    if (changed) this.#version++;
    return this.#version;
  }

  close(): void {
    if (this.#fd !== undefined) closeSync(this.#fd);
    this.#fd = undefined;
  }
}

/** A copy of the header: 48 bytes. */
const HEADER_WORDS = 12;
const IS_INIT_BYTE = 12;
