// The process that builds a SongSnapshot (song-snapshot.ts): copies every song template of one catalog version into
// the file it is given as its descriptor 3, then their index, and tells the server where that is. One read
// transaction on a connection of its own, so the copy is of exactly the version it reads, whatever imports commit
// meanwhile. A process, not a thread: what the copy allocated (tens of MB that glibc kept in a thread's arena, in a
// first version) goes back to the OS when it exits, instead of staying in the server's resident memory.
import { DatabaseSync } from 'node:sqlite';
import { writeSync } from 'node:fs';
import { alignUp, LONG_TEMPLATE, SNAPSHOT_ALIGN, SNAPSHOT_LOAD, snapshotHash, type SnapshotBuildJob, type SnapshotBuildResult } from './song-snapshot.ts';

/** The descriptor the server passes the snapshot's file as. */
const FILE_FD = 3;

/** Templates are written a block at a time. */
const WRITE_BLOCK_BYTES = 4 * 1024 * 1024;

/** Writes all of `bytes` to the file at `position` (a write may take fewer). */
function writeAt(bytes: Uint8Array, position: number): void {
  for (let written = 0; written < bytes.length; ) written += writeSync(FILE_FD, bytes, written, bytes.length - written, position + written);
}

function build({ databasePath, seed, minSongs }: SnapshotBuildJob): SnapshotBuildResult {
  const db = new DatabaseSync(databasePath, { timeout: 60_000 });
  try {
    // A small page cache: the scan reads each page once.
    db.exec('PRAGMA cache_size = -2048; BEGIN');
    const version = (db.prepare("select value from settings where key = 'catalog_version'").get() as { value: string } | undefined)?.value ?? '0';
    const { songs } = db.prepare('select count(*) as songs from song_templates').get() as { songs: number };
    if (songs < minSongs) return { kind: 'skipped', version, songs };

    const capacity = Math.max(8, Math.ceil(songs / SNAPSHOT_LOAD));
    const hashes = new Uint32Array(capacity);
    const offsets = new Uint32Array(capacity);
    const lengths = new Uint16Array(capacity);
    const overflow: number[] = [];
    const block = Buffer.alloc(WRITE_BLOCK_BYTES);
    let blockStart = 0; // the file offset of block[0]
    let used = 0;
    const flush = () => {
      writeAt(block.subarray(0, used), blockStart);
      blockStart += used;
      used = 0;
    };
    let count = 0;
    for (const row of db.prepare('select id, template from song_templates').iterate() as Iterable<{ id: string; template: Uint8Array }>) {
      const { id, template } = row;
      used = alignUp(used);
      if (used + template.length > block.length) flush();
      const offset = blockStart + used;
      if (offset / SNAPSHOT_ALIGN >= 2 ** 32) throw new Error('the templates pass 32 GB');
      if (template.length > block.length) {
        writeAt(template, offset);
        blockStart = offset + template.length;
      } else {
        block.set(template, used);
        used += template.length;
      }
      const hash = snapshotHash(seed, id);
      let slot = hash % capacity;
      while (hashes[slot] !== 0) slot = slot + 1 === capacity ? 0 : slot + 1;
      hashes[slot] = hash;
      offsets[slot] = offset / SNAPSHOT_ALIGN;
      if (template.length >= LONG_TEMPLATE) {
        lengths[slot] = LONG_TEMPLATE;
        overflow.push(slot, template.length);
      } else {
        lengths[slot] = template.length;
      }
      // The count read above is of the same transaction: more rows would overfill the table.
      if (++count > songs) throw new Error('more templates than counted');
    }
    flush();
    // The index after the templates, each array at a multiple of SNAPSHOT_ALIGN.
    const indexOffset = alignUp(blockStart);
    let at = indexOffset;
    for (const array of [hashes, offsets, lengths]) {
      writeAt(new Uint8Array(array.buffer, array.byteOffset, array.byteLength), at);
      at = alignUp(at + array.byteLength);
    }
    return { kind: 'built', version, songs: count, capacity, indexOffset, overflow };
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
