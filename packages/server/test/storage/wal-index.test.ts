import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { WalIndexWatch } from '../../src/storage/wal-index.ts';

/**
 * The WAL index's header tells commits by other connections apart from
 * rest and from checkpoints; credentials are kept in memory on its word
 * (credential-cache.test.ts checks revocations end to end).
 */
describe('WalIndexWatch', () => {
  const dirs: string[] = [];
  const open: DatabaseSync[] = [];
  afterEach(() => {
    for (const db of open.splice(0)) db.close();
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const database = () => {
    const dir = mkdtempSync(join(tmpdir(), 'maqam-wal-'));
    dirs.push(dir);
    const path = join(dir, 'catalog.db');
    const connect = () => {
      const db = new DatabaseSync(path);
      db.exec('PRAGMA journal_mode = WAL');
      open.push(db);
      return db;
    };
    return { path, connect };
  };

  it('cannot tell before the -shm file exists, then changes at every commit of another connection and only then', () => {
    const { path, connect } = database();
    const watch = new WalIndexWatch(path);
    expect(watch.version()).toBeUndefined();
    const reader = connect();
    const writer = connect();
    writer.exec('CREATE TABLE keys (id TEXT PRIMARY KEY, revoked INTEGER)');
    reader.prepare('SELECT count(*) FROM keys').get();
    const first = watch.version();
    expect(first).toBeTypeOf('number');
    expect(watch.version()).toBe(first);
    expect(reader.prepare('SELECT count(*) FROM keys').get()).toBeDefined();
    expect(watch.version()).toBe(first);

    const seen = new Set([first]);
    for (let i = 0; i < 20; i++) {
      writer.prepare('INSERT INTO keys VALUES (?, 0)').run(`k${i}`);
      const version = watch.version();
      expect(seen.has(version)).toBe(false);
      seen.add(version);
      expect(watch.version()).toBe(version);
    }
    // A checkpoint copies the WAL into the database and changes no data: nothing to tell.
    const before = watch.version();
    writer.exec('PRAGMA wal_checkpoint(PASSIVE)');
    expect(watch.version()).toBe(before);
    // The write after a full checkpoint starts the WAL over: a change all the same.
    writer.exec('PRAGMA wal_checkpoint(RESTART)');
    writer.prepare('UPDATE keys SET revoked = 1 WHERE id = ?').run('k0');
    expect(watch.version()).not.toBe(before);
    watch.close();
  });

  it('cannot tell while the two copies of the header differ, as while a commit writes them', async () => {
    const { path, connect } = database();
    const db = connect();
    db.exec('CREATE TABLE t (x)');
    const watch = new WalIndexWatch(path);
    const settled = watch.version();
    expect(settled).toBeTypeOf('number');
    // The second copy (bytes 48 to 96) one commit ahead of the first, as a commit leaves them between its two copies.
    const { openSync, readSync, writeSync, closeSync } = await import('node:fs');
    const fd = openSync(`${path}-shm`, 'r+');
    const header = Buffer.alloc(96);
    readSync(fd, header, 0, 96, 0);
    const ahead = Buffer.from(header.subarray(48, 96));
    ahead.writeUInt32LE(ahead.readUInt32LE(8) + 1, 8);
    writeSync(fd, ahead, 0, 48, 48);
    expect(watch.version()).toBeUndefined();
    writeSync(fd, header, 48, 48, 48);
    closeSync(fd);
    expect(watch.version()).toBe(settled);
    watch.close();
  });
});
