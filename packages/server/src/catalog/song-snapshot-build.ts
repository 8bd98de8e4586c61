// The process that builds a SongSnapshot (song-snapshot.ts): copies every song template of one catalog version into
// the file it is given as its descriptor 3, each followed by the song's fragment rendered in each locale chain it is
// asked for, then their index, and tells the server where that is. One read
// transaction on a connection of its own, so the copy is of exactly the version it reads, whatever imports commit
// meanwhile. A process, not a thread: what the copy allocated (tens of MB that glibc kept in a thread's arena, in a
// first version) goes back to the OS when it exits, instead of staying in the server's resident memory.
import { DatabaseSync } from 'node:sqlite';
import { writeSync } from 'node:fs';
import {
  alignUp, lengthShift, lengthWord, LONG_TEMPLATE, SNAPSHOT_ALIGN, SNAPSHOT_LOAD, slotRecordWords, snapshotHash, type SnapshotBuildJob, type SnapshotBuildResult,
} from './song-snapshot.ts';
import { expandSongTemplate, parseSongTemplates } from './song-template.ts';
import { renderSongArtistRef } from './render.ts';
import type { ArtistName } from './artist-names.ts';

/** The descriptor the server passes the snapshot's file as. */
const FILE_FD = 3;

/** Templates are written a block at a time. */
const WRITE_BLOCK_BYTES = 4 * 1024 * 1024;

/** Writes all of `bytes` to the file at `position` (a write may take fewer). */
function writeAt(bytes: Uint8Array, position: number): void {
  for (let written = 0; written < bytes.length; ) written += writeSync(FILE_FD, bytes, written, bytes.length - written, position + written);
}

/**
 * Renders songs' fragments in one locale chain from their templates, exactly
 * as the server's catalog service does: the same expansion, and artist refs
 * rendered by the same function from the same rows.
 */
class ChainRenderer {
  readonly #chain: readonly string[];
  readonly #names: ReadonlyMap<string, ArtistName>;
  readonly #publicUrl: Buffer;
  /** Each artist's rendered ref, or null for an artist not in the catalog. */
  readonly #refs = new Map<string, Buffer | null>();

  constructor(chain: readonly string[], names: ReadonlyMap<string, ArtistName>, publicUrl: Buffer) {
    this.#chain = chain;
    this.#names = names;
    this.#publicUrl = publicUrl;
  }

  render(templates: ReturnType<typeof parseSongTemplates>): Buffer {
    const refs = templates.artistIds.map((id) => {
      let ref = this.#refs.get(id);
      if (ref === undefined) {
        const name = this.#names.get(id);
        this.#refs.set(id, (ref = name === undefined ? null : Buffer.from(renderSongArtistRef(id, name, this.#chain))));
      }
      return ref ?? undefined;
    });
    return expandSongTemplate(templates, 0, this.#chain, refs, this.#publicUrl);
  }
}

function build({ databasePath, seed, minSongs, chains, publicUrlInJson }: SnapshotBuildJob): SnapshotBuildResult {
  const db = new DatabaseSync(databasePath, { timeout: 60_000 });
  try {
    // A small page cache: the scan reads each page once.
    db.exec('PRAGMA cache_size = -2048; BEGIN');
    const version = (db.prepare("select value from settings where key = 'catalog_version'").get() as { value: string } | undefined)?.value ?? '0';
    const { songs } = db.prepare('select count(*) as songs from song_templates').get() as { songs: number };
    if (songs < minSongs) return { kind: 'skipped', version, songs };

    const names = new Map<string, ArtistName>();
    if (chains.length > 0) {
      for (const row of db.prepare('select id, name_i18n, original_language from artists').iterate() as Iterable<{ id: string; name_i18n: string; original_language: string }>) {
        names.set(row.id, { texts: JSON.parse(row.name_i18n) as Record<string, string>, originalLanguage: row.original_language });
      }
    }
    const publicUrl = Buffer.from(publicUrlInJson);
    const renderers = chains.map((chain) => new ChainRenderer(chain, names, publicUrl));
    const parts = 1 + renderers.length;

    const capacity = Math.max(8, Math.ceil(songs / SNAPSHOT_LOAD));
    const hashes = new Uint32Array(capacity);
    const stride = slotRecordWords(parts);
    const records = new Uint32Array(capacity * stride);
    const overflow: number[] = [];
    const block = Buffer.alloc(WRITE_BLOCK_BYTES);
    let blockStart = 0; // the file offset of block[0]
    let used = 0;
    const flush = () => {
      writeAt(block.subarray(0, used), blockStart);
      blockStart += used;
      used = 0;
    };
    /** Appends `bytes` to the file, through the block; answers their file offset. */
    const append = (bytes: Uint8Array): number => {
      if (used + bytes.length > block.length) flush();
      const offset = blockStart + used;
      if (bytes.length > block.length) {
        writeAt(bytes, offset);
        blockStart = offset + bytes.length;
      } else {
        block.set(bytes, used);
        used += bytes.length;
      }
      return offset;
    };
    let count = 0;
    for (const row of db.prepare('select id, template from song_templates').iterate() as Iterable<{ id: string; template: Uint8Array }>) {
      const { id, template } = row;
      // A record starts aligned in the file (a flush between two parts of a record may leave blockStart unaligned):
      // its offset is kept in units of SNAPSHOT_ALIGN.
      used = alignUp(blockStart + used) - blockStart;
      if (used > block.length) flush();
      const record = [template as Uint8Array];
      if (renderers.length > 0) {
        const templates = parseSongTemplates(Buffer.from(template.buffer, template.byteOffset, template.byteLength));
        for (const renderer of renderers) record.push(renderer.render(templates));
      }
      const offset = append(record[0]!);
      for (let part = 1; part < parts; part++) append(record[part]!);
      if (offset / SNAPSHOT_ALIGN >= 2 ** 32) throw new Error('the songs pass 32 GB');

      const hash = snapshotHash(seed, id);
      let slot = hash % capacity;
      while (hashes[slot] !== 0) slot = slot + 1 === capacity ? 0 : slot + 1;
      hashes[slot] = hash;
      records[slot * stride] = offset / SNAPSHOT_ALIGN;
      for (let part = 0; part < parts; part++) {
        const length = record[part]!.length;
        if (length >= LONG_TEMPLATE) overflow.push(slot * parts + part, length);
        records[slot * stride + lengthWord(part)]! |= Math.min(length, LONG_TEMPLATE) << lengthShift(part);
      }
      // The count read above is of the same transaction: more rows would overfill the table.
      if (++count > songs) throw new Error('more templates than counted');
    }
    flush();
    // The index after the records, each array at a multiple of SNAPSHOT_ALIGN.
    const indexOffset = alignUp(blockStart);
    let at = indexOffset;
    for (const array of [hashes, records]) {
      writeAt(new Uint8Array(array.buffer, array.byteOffset, array.byteLength), at);
      at = alignUp(at + array.byteLength);
    }
    return { kind: 'built', version, songs: count, capacity, indexOffset, chainKeys: chains.map((chain) => chain.join(',')), overflow };
  } finally {
    db.close();
  }
}

process.once('message', (job: SnapshotBuildJob) => {
  let result: SnapshotBuildResult;
  try {
    result = build(job);
  } catch (error) {
    result = { kind: 'failed', message: (error as Error).message };
  }
  process.send!(result, () => process.disconnect());
});
