import { fork, type ChildProcess } from 'node:child_process';
import { closeSync, constants, openSync, read, readSync, unlinkSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { BufferPool } from './buffer-pool.ts';
import { idHash, randomHashSeed } from './id-hash.ts';

/**
 * Every song template of one catalog version (song-template.ts), copied out
 * of SQLite into a file of their own, with an index of where each one is.
 *
 * A song the fragment cache lacks costs one read of its template. From the
 * SQLite file that is a walk of the id's index and of the table's B-tree,
 * each ending on a page that the 8 MB page cache rarely holds (the 1M
 * catalog's templates are 650 MB), so two reads through the OS and SQLite's
 * work around them: about 8.8 us a song in a scratch run on the 1M catalog,
 * against 3.2 us for one `pread` at an offset an in-memory index gives.
 * The templates stay out of the process's memory (the OS page cache holds
 * them, as it held SQLite's pages); only the index is resident: 10 bytes a
 * slot, 14 MB for 1M songs.
 *
 * SQLite stays the truth. A snapshot is built by a process of its own
 * (song-snapshot-build.ts) inside one read transaction, so it holds exactly
 * the templates of the catalog version it read in that transaction, and it
 * is used only while that is the version the server's catalog watch last
 * saw (catalog-watch.ts): the same staleness bound as every other cache of
 * catalog data. Imports never write it; a new version drops it, and a new
 * one is built once the catalog has been quiet for a while.
 *
 * Beside each template the file holds the song's finished fragment in each
 * of a few locale chains (`renderedChains`: the default one and each catalog
 * language's), rendered by the building process as the server would render
 * them. A song the cache lacks in one of those chains costs one `pread` and
 * no rendering: in a profile of the server under uniform misses, parsing and
 * expanding templates and looking up the credited artists' refs took about
 * three fifths of the time spent on songs the cache lacked. Other chains
 * expand the template as before. A record is the template and then the
 * fragments, so a song's bytes are side by side in the file.
 *
 * The file is created beside the database and unlinked at once: it lives
 * as long as the descriptor, so nothing is left behind by a crash. It takes
 * as much disk as the templates and fragments (650 MB for 1M songs' templates, and
 * about 640 MB a rendered chain: 2.57 GB for the demo's three; the old one is closed
 * before a new one is built); a build that fails (a full disk, say) is
 * logged, and misses read SQLite until the catalog changes again.
 */

/** Songs a slot, at most: a lookup that misses probes about six slots at this load, a hit about two. */
export const SNAPSHOT_LOAD = 0.7;
/** Templates start at multiples of this, so a 32-bit offset (in these units) reaches 32 GB. */
export const SNAPSHOT_ALIGN = 8;
/** `n` rounded up to a multiple of SNAPSHOT_ALIGN: where a template, and each of the index's arrays, starts. */
export function alignUp(n: number): number {
  return Math.ceil(n / SNAPSHOT_ALIGN) * SNAPSHOT_ALIGN;
}

/** A length at or above this is kept aside (`overflow`): the length arrays are 16-bit. */
export const LONG_TEMPLATE = 0xffff;

/** The slot hash of an id: never 0, which marks an empty slot. */
export function snapshotHash(seed: number, id: string): number {
  return idHash(seed, 0, id) >>> 0 || 1;
}

/** Locale chains rendered into a snapshot, at most: each takes about as much disk as the templates. */
export const MAX_RENDERED_CHAINS = 4;

/**
 * Words a slot takes in the index's slot records: the record's offset (in
 * SNAPSHOT_ALIGN units), then its parts' lengths two to a word (the low half
 * first). Side by side, they share a line of the processor's cache, so
 * reading a song the cache lacks waits for one miss there, not one per part:
 * under uniform misses (bench/batch-get) the reads of a part's place took 7%
 * of the server's time in separate arrays, and fresh uniform went from 290
 * to 268 us a request with them side by side.
 */
export function slotRecordWords(parts: number): number {
  return 1 + Math.ceil(parts / 2);
}

/** Where part `part`'s length is in a slot record, as a word (after the offset) and a shift. */
export function lengthWord(part: number): number {
  return 1 + (part >> 1);
}
export function lengthShift(part: number): number {
  return (part & 1) * 16;
}

/**
 * What the building process answers. Its file holds the songs' records (the
 * template, then the fragment in each of `chainKeys`), then the index's
 * arrays from `indexOffset`, each starting at a multiple of SNAPSHOT_ALIGN:
 * the hashes as u32, `capacity` of them, then `capacity` slot records of
 * slotRecordWords(1 + chainKeys.length) u32s each. `overflow` pairs
 * `slot * parts + part` with a length too long for a record's 16 bits.
 */
export type SnapshotBuildResult =
  | {
    readonly kind: 'built'; readonly version: string; readonly songs: number; readonly capacity: number; readonly indexOffset: number;
    readonly chainKeys: readonly string[]; readonly overflow: readonly number[];
  }
  | { readonly kind: 'skipped'; readonly version: string; readonly songs: number }
  | { readonly kind: 'failed'; readonly message: string };

/** What the building process is sent; the file is its descriptor 3. */
export interface SnapshotBuildJob {
  readonly databasePath: string;
  readonly seed: number;
  /** A catalog of fewer songs is not copied: the fragment cache holds most of it anyway. */
  readonly minSongs: number;
  /** The locale chains to render each song in. */
  readonly chains: readonly (readonly string[])[];
  /** MAQAM_PUBLIC_URL as it reads inside a JSON string (without the quotes): rendered fragments hold it. */
  readonly publicUrlInJson: string;
}

const quote = JSON.stringify as (value: string) => string;
const readAt = promisify(read);
type BuiltSnapshot = Extract<SnapshotBuildResult, { kind: 'built' }>;
const BUILD_SCRIPT = fileURLToPath(new URL('./song-snapshot-build.ts', import.meta.url));

/**
 * True when the `headLength` bytes at `at` start with the batch result key
 * of `id`, `"<id>":`. An id of plain ASCII (every catalog id the demo and
 * most catalogs have) is compared byte by byte, without building the key.
 */
function startsWithKey(bytes: Buffer, at: number, headLength: number, id: string): boolean {
  let plain = headLength >= id.length + 3 && bytes[at] === 0x22;
  for (let i = 0; plain && i < id.length; i++) {
    const unit = id.charCodeAt(i);
    // Beyond ASCII, a quote, a backslash or a control character: its key is not its code units.
    if (unit < 0x20 || unit > 0x7e || unit === 0x22 || unit === 0x5c) plain = false;
    else if (bytes[at + 1 + i] !== unit) return false;
  }
  if (plain) return bytes[at + 1 + id.length] === 0x22 && bytes[at + 2 + id.length] === 0x3a;
  const key = `${quote(id)}:`;
  const keyBytes = Buffer.byteLength(key);
  return headLength >= keyBytes && bytes.toString('utf8', at, at + keyBytes) === key;
}

export class SongSnapshot {
  readonly version: string;
  readonly songs: number;
  readonly #fd: number;
  readonly #seed: number;
  readonly #hashes: Uint32Array;
  /** Each slot's record offset and part lengths (slotRecordWords). */
  readonly #records: Uint32Array;
  /** Words a slot takes in #records. */
  readonly #stride: number;
  readonly #partCount: number;
  /** Lengths of LONG_TEMPLATE bytes or more, by slot * #partCount + part. */
  readonly #overflow: Map<number, number>;
  /** The part each rendered chain's fragments are, by chain key. */
  readonly #parts: ReadonlyMap<string, number>;
  #closed = false;

  private constructor(fd: number, seed: number, built: BuiltSnapshot, hashes: Uint32Array, records: Uint32Array) {
    this.version = built.version;
    this.songs = built.songs;
    this.#fd = fd;
    this.#seed = seed;
    this.#hashes = hashes;
    this.#records = records;
    this.#partCount = 1 + built.chainKeys.length;
    this.#stride = slotRecordWords(this.#partCount);
    this.#overflow = new Map();
    for (let i = 0; i < built.overflow.length; i += 2) this.#overflow.set(built.overflow[i]!, built.overflow[i + 1]!);
    this.#parts = new Map(built.chainKeys.map((key, i) => [key, 1 + i]));
  }

  /** Reads the index the building process wrote after the records: the snapshot is the file's from then on. */
  static async open(fd: number, seed: number, built: BuiltSnapshot): Promise<SongSnapshot> {
    const hashes = new Uint32Array(built.capacity);
    const records = new Uint32Array(built.capacity * slotRecordWords(1 + built.chainKeys.length));
    let at = built.indexOffset;
    for (const array of [hashes, records]) {
      const bytes = new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
      for (let done = 0; done < bytes.length; ) {
        const { bytesRead } = await readAt(fd, bytes, done, bytes.length - done, at + done);
        if (bytesRead === 0) throw new Error('song snapshot: its index ends early');
        done += bytesRead;
      }
      at = alignUp(at + bytes.length);
    }
    return new SongSnapshot(fd, seed, built, hashes, records);
  }

  /** The locale chains (by key) this snapshot holds rendered fragments in. */
  get renderedChains(): readonly string[] {
    return [...this.#parts.keys()];
  }

  /**
   * The templates of the ids this snapshot holds, one after another, as
   * `CatalogRepo.songTemplates` answers them, in a block of `buffers` (give
   * it back once the templates are rendered); null when it holds none of
   * them. An id it lacks is not in the catalog at its version.
   */
  read(ids: readonly string[], buffers: BufferPool): Buffer | null {
    const { slots, owners, total } = this.#find(ids, 0);
    if (slots.length === 0) return null;
    const bytes = buffers.take(total);
    let at = 0;
    for (let i = 0; i < slots.length; i++) {
      const length = this.#readPart(slots[i]!, 0, bytes, at);
      // A template starts with its head's length, then `"<id>":`. Keep it only if that is this id's key: another
      // id's (of the same hash) would only cost its copy, since the caller renders each template under its own id.
      if (startsWithKey(bytes, at + 4, bytes.readUInt32LE(at), owners[i]!)) at += length;
    }
    if (at === 0) {
      buffers.give(bytes);
      return null;
    }
    return bytes.subarray(0, at);
  }

  /**
   * The finished fragments (`"<id>":{"song":...}`) of the ids this snapshot
   * holds, in the locale chain `chainKey`, each a view of one new buffer;
   * undefined when it holds no fragments in that chain (then `read` the
   * templates). An id it lacks is not in the catalog at its version.
   */
  readRendered(ids: readonly string[], chainKey: string): Map<string, Buffer> | undefined {
    const part = this.#parts.get(chainKey);
    if (part === undefined) return undefined;
    const { slots, owners, total } = this.#find(ids, part);
    const rendered = new Map<string, Buffer>();
    if (slots.length === 0) return rendered;
    // One allocation for all of them: the fragments outlive the request in the cache only as copies.
    const bytes = Buffer.allocUnsafe(total);
    let at = 0;
    for (let i = 0; i < slots.length; i++) {
      const length = this.#readPart(slots[i]!, part, bytes, at);
      if (startsWithKey(bytes, at, length, owners[i]!)) {
        rendered.set(owners[i]!, bytes.subarray(at, at + length));
        at += length;
      }
    }
    return rendered;
  }

  /**
   * Where this snapshot holds the finished fragments of these ids in the
   * locale chain `chainKey`, for a batch that reads them straight into its
   * answer: undefined when it holds no fragments in that chain, or when an
   * id's hash names more than one slot (then `readRendered` tells them apart).
   */
  placeRendered(ids: readonly string[], chainKey: string): RenderedPlacement | undefined {
    const part = this.#parts.get(chainKey);
    if (part === undefined) return undefined;
    const hashes = this.#hashes;
    const capacity = hashes.length;
    const slots = new Int32Array(ids.length).fill(-1);
    for (let i = 0; i < ids.length; i++) {
      const hash = snapshotHash(this.#seed, ids[i]!);
      for (let slot = hash % capacity; hashes[slot] !== 0; slot = slot + 1 === capacity ? 0 : slot + 1) {
        if (hashes[slot] !== hash) continue;
        if (slots[i] !== -1) return undefined;
        slots[i] = slot;
      }
    }
    return new RenderedPlacement(this, part, ids, slots);
  }

  /** Reads part `part` of slot `slot` into `target` at `at` when it is `id`'s; false when it is another id's of the same hash. */
  readOwnPart(slot: number, part: number, id: string, target: Buffer, at: number): boolean {
    const length = this.#readPart(slot, part, target, at);
    return startsWithKey(target, at, length, id);
  }

  /** The length of part `part` of slot `slot`. */
  partLength(slot: number, part: number): number {
    return this.#lengthOf(slot, part);
  }

  /**
   * Every slot whose hash is an id's, with that id, and the length of their
   * `part`s in all: almost always one slot an id found, and none an id not
   * found. Two ids of the same hash each get both slots; the caller's key
   * check keeps the right one.
   */
  #find(ids: readonly string[], part: number): { slots: number[]; owners: string[]; total: number } {
    const hashes = this.#hashes;
    const capacity = hashes.length;
    const slots: number[] = [];
    const owners: string[] = [];
    let total = 0;
    for (const id of ids) {
      const hash = snapshotHash(this.#seed, id);
      for (let slot = hash % capacity; hashes[slot] !== 0; slot = slot + 1 === capacity ? 0 : slot + 1) {
        if (hashes[slot] !== hash) continue;
        slots.push(slot);
        owners.push(id);
        total += this.#lengthOf(slot, part);
      }
    }
    return { slots, owners, total };
  }

  /** Reads part `part` of the record in `slot` into `target` at `at`; answers its length. */
  #readPart(slot: number, part: number, target: Buffer, at: number): number {
    let position = this.#records[slot * this.#stride]! * SNAPSHOT_ALIGN;
    // A record is its parts one after another.
    for (let before = 0; before < part; before++) position += this.#lengthOf(slot, before);
    const length = this.#lengthOf(slot, part);
    const read = readSync(this.#fd, target, at, length, position);
    if (read !== length) throw new Error(`song snapshot: read ${read} of ${length} bytes`);
    return length;
  }

  #lengthOf(slot: number, part: number): number {
    const length = (this.#records[slot * this.#stride + lengthWord(part)]! >>> lengthShift(part)) & 0xffff;
    return length === LONG_TEMPLATE ? this.#overflow.get(slot * this.#partCount + part)! : length;
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    closeSync(this.#fd);
  }
}

/**
 * Ids of one batch placed in a snapshot (`placeRendered`): each id's slot,
 * or none for an id not in the catalog at the snapshot's version. Valid
 * until the snapshot is closed: the caller reads without awaiting.
 */
export class RenderedPlacement {
  readonly #snapshot: SongSnapshot;
  readonly #part: number;
  readonly #ids: readonly string[];
  readonly #slots: Int32Array;

  constructor(snapshot: SongSnapshot, part: number, ids: readonly string[], slots: Int32Array) {
    this.#snapshot = snapshot;
    this.#part = part;
    this.#ids = ids;
    this.#slots = slots;
  }

  /** The byte length of the `i`th id's fragment (behind its key), or -1 when the snapshot lacks the id. */
  lengthOf(i: number): number {
    const slot = this.#slots[i]!;
    return slot === -1 ? -1 : this.#snapshot.partLength(slot, this.#part);
  }

  /**
   * Reads the `i`th id's fragment into `target` at `at` (`lengthOf(i)`
   * bytes); false when the slot turned out to be another id's of the same
   * hash, which means the `i`th id is not in the catalog.
   */
  readInto(i: number, target: Buffer, at: number): boolean {
    return this.#snapshot.readOwnPart(this.#slots[i]!, this.#part, this.#ids[i]!, target, at);
  }
}

export interface SongSnapshotsOptions {
  /** The SQLite database file. */
  readonly databasePath: string;
  /** A catalog of fewer songs is not copied (default 10,000): the fragment cache holds most of it anyway. */
  readonly minSongs?: number;
  /**
   * Polls of the catalog watch that must see the same version before a
   * snapshot of it is built (default 10: ten seconds). An import's batches
   * each make a new version; a build in between would be dropped at the next.
   */
  readonly quietPolls?: number;
  /**
   * At least as many songs as the catalog has templates, cheaply (SQLite: the
   * templates' largest rowid): below minSongs no process is started.
   */
  readonly songsAtMost: () => Promise<number>;
  /** Told when a build failed; misses read SQLite meanwhile. */
  readonly onError: (error: Error) => void;
  /** The hash seed (tests pick one to make two ids collide); random by default. */
  readonly hashSeed?: number;
  /**
   * The locale chains to render every song in, asked at each build (the
   * first MAX_RENDERED_CHAINS are kept); none by default.
   */
  readonly renderedChains?: () => readonly (readonly string[])[];
  /** MAQAM_PUBLIC_URL, which rendered fragments hold; needed with renderedChains. */
  readonly publicUrl?: string;
}

interface Building {
  child?: ChildProcess;
  done?: Promise<void>;
}

/**
 * The server's song snapshot: builds one for the catalog version its watch
 * sees (`observe`, after every poll), and drops it when that changes.
 */
export class SongSnapshots {
  readonly #options: SongSnapshotsOptions;
  readonly #seed: number;
  readonly #minSongs: number;
  readonly #quietPolls: number;
  #current: SongSnapshot | undefined;
  /** The version the watch saw last, and for how many polls since it changed. */
  #version: string | undefined;
  #quiet = 0;
  /** The version last built, skipped or failed: not tried again until the catalog changes. */
  #attempted: string | undefined;
  /** The build under way: its process, once started, and its end. */
  #building: Building | undefined;
  #closed = false;

  constructor(options: SongSnapshotsOptions) {
    this.#options = options;
    this.#seed = options.hashSeed ?? randomHashSeed();
    this.#minSongs = options.minSongs ?? 10_000;
    this.#quietPolls = options.quietPolls ?? 10;
  }

  /** The snapshot of the version the watch saw last, once built. */
  get current(): SongSnapshot | undefined {
    return this.#current;
  }

  /** The catalog version the watch just read. The first one counts as quiet: nothing was seen changing. */
  observe(version: string): void {
    if (this.#closed) return;
    if (version !== this.#version) {
      this.#quiet = this.#version === undefined ? this.#quietPolls : 0;
      this.#version = version;
      if (this.#current !== undefined && this.#current.version !== version) {
        this.#current.close();
        this.#current = undefined;
      }
    } else {
      this.#quiet++;
    }
    if (this.#current === undefined && this.#building === undefined && this.#attempted !== version && this.#quiet >= this.#quietPolls) {
      this.#attempted = version;
      const building: Building = {};
      this.#building = building;
      building.done = this.#build(building).then(
        (snapshot) => {
          if (snapshot !== undefined && this.#wanted(snapshot.version)) this.#current = snapshot;
          else snapshot?.close();
        },
        (error: Error) => {
          if (!this.#closed) this.#options.onError(error);
        },
      ).finally(() => {
        this.#building = undefined;
      });
    }
  }

  /** A snapshot of the catalog as its building process reads it; undefined when it has too few songs, or they changed meanwhile. */
  async #build(building: Building): Promise<SongSnapshot | undefined> {
    if ((await this.#options.songsAtMost()) < this.#minSongs || this.#closed) return undefined;
    const { databasePath } = this.#options;
    const path = join(dirname(databasePath), `.${basename(databasePath)}.songs-${process.pid}-${randomBytes(6).toString('hex')}`);
    // No access times: every read of a song the cache lacks would otherwise check whether to update one
    // (1.3% of the server's time under uniform misses). The process owns the file, as O_NOATIME requires.
    const fd = openSync(path, constants.O_RDWR | constants.O_CREAT | constants.O_EXCL | (constants.O_NOATIME ?? 0), 0o600);
    try {
      unlinkSync(path);
      const result = await this.#run(building, fd);
      if (result.kind === 'failed') throw new Error(`song snapshot: ${result.message}`);
      // Built or skipped for a version that is gone already: try the new one at the next quiet poll.
      if (result.version !== this.#version) this.#attempted = undefined;
      if (result.kind === 'skipped' || !this.#wanted(result.version)) {
        closeSync(fd);
        return undefined;
      }
      return await SongSnapshot.open(fd, this.#seed, result);
    } catch (error) {
      closeSync(fd);
      throw error;
    }
  }

  /** Runs the building process on the file `fd`; its answer. */
  #run(building: Building, fd: number): Promise<SnapshotBuildResult> {
    const chains = (this.#options.renderedChains?.() ?? []).slice(0, MAX_RENDERED_CHAINS);
    const job: SnapshotBuildJob = {
      databasePath: this.#options.databasePath, seed: this.#seed, minSongs: this.#minSongs, chains,
      publicUrlInJson: quote(this.#options.publicUrl ?? '').slice(1, -1),
    };
    // Node's own flags only (the server's NODE_OPTIONS and shebang flags are for a server); the file as descriptor 3.
    const child = fork(BUILD_SCRIPT, [], { execArgv: [], stdio: ['ignore', 'ignore', 'pipe', fd, 'ipc'] });
    building.child = child;
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (text: string) => {
      if (stderr.length < 4096) stderr += text;
    });
    child.send(job);
    return new Promise<SnapshotBuildResult>((resolve) => {
      let answer: SnapshotBuildResult | undefined;
      child.once('message', (message: SnapshotBuildResult) => (answer = message));
      child.once('error', (error) => resolve({ kind: 'failed', message: error.message }));
      child.once('close', (code, signal) =>
        resolve(answer ?? { kind: 'failed', message: `the building process ended (${signal ?? code})${stderr ? `: ${stderr.trim()}` : ''}` }));
    });
  }

  /** A snapshot of this version is still wanted: the watch sees it, and none is in use. */
  #wanted(version: string): boolean {
    return !this.#closed && version === this.#version && this.#current === undefined;
  }

  async close(): Promise<void> {
    this.#closed = true;
    const building = this.#building;
    building?.child?.kill();
    // What it was building is closed as unwanted when it ends.
    await building?.done;
    this.#current?.close();
    this.#current = undefined;
  }
}
