import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { openStorage, type Storage } from '@maqam/server';

/**
 * A SQLite server's write version changes at every commit, by any connection
 * of any process, and stays put otherwise: credentials and other rows are
 * kept in memory on its word (credential-cache.test.ts checks revocations end
 * to end). A reader that kept a row across a commit it was not told of would
 * answer a revoked key.
 */
describe('SQLite writeVersion', () => {
  const dirs: string[] = [];
  const open: { close(): unknown }[] = [];
  afterEach(async () => {
    for (const db of open.splice(0).reverse()) await db.close();
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  /** A server's storage on a new file, and other connections to the same file. */
  const database = async () => {
    const dir = mkdtempSync(join(tmpdir(), 'maqam-write-version-'));
    dirs.push(dir);
    const path = join(dir, 'catalog.db');
    const storage: Storage = openStorage(`sqlite:${path}`);
    open.push(storage);
    await sql`CREATE TABLE keys (id TEXT PRIMARY KEY, revoked INTEGER)`.execute(storage.db);
    const connect = () => {
      const db = new DatabaseSync(path);
      open.push(db);
      return db;
    };
    return { path, storage, connect };
  };

  it('changes at every commit of another connection, and only then', async () => {
    const { storage, connect } = await database();
    const writer = connect();
    const first = await storage.writeVersion();
    expect(await storage.writeVersion()).toBe(first);
    // Reads, on the server's connection or another, change nothing.
    await sql`SELECT count(*) FROM keys`.execute(storage.db);
    writer.prepare('SELECT count(*) FROM keys').get();
    expect(await storage.writeVersion()).toBe(first);

    const seen = new Set([first]);
    for (let i = 0; i < 20; i++) {
      writer.prepare('INSERT INTO keys VALUES (?, 0)').run(`k${i}`);
      const version = await storage.writeVersion();
      expect(seen.has(version)).toBe(false);
      seen.add(version);
      expect(await storage.writeVersion()).toBe(version);
    }
    // A transaction rolled back commits nothing.
    const before = await storage.writeVersion();
    writer.exec('BEGIN; UPDATE keys SET revoked = 1; ROLLBACK');
    expect(await storage.writeVersion()).toBe(before);
  });

  it('changes at every write of its own connection', async () => {
    const { storage } = await database();
    const seen = new Set([await storage.writeVersion()]);
    for (let i = 0; i < 5; i++) {
      await sql`INSERT INTO keys VALUES (${`own-${i}`}, 0)`.execute(storage.db);
      const version = await storage.writeVersion();
      expect(seen.has(version)).toBe(false);
      seen.add(version);
    }
  });

  it('changes at a commit of another process', async () => {
    const { path, storage } = await database();
    const before = await storage.writeVersion();
    execFileSync(process.execPath, ['-e', `
      const { DatabaseSync } = require('node:sqlite');
      new DatabaseSync(${JSON.stringify(path)}).prepare("INSERT INTO keys VALUES ('from-another-process', 0)").run();
    `]);
    expect(await storage.writeVersion()).not.toBe(before);
  });

  it('changes at a commit after a checkpoint starts the WAL over', async () => {
    const { storage, connect } = await database();
    const writer = connect();
    writer.prepare('INSERT INTO keys VALUES (?, 0)').run('k0');
    for (const mode of ['PASSIVE', 'RESTART', 'TRUNCATE']) {
      const before = await storage.writeVersion();
      writer.exec(`PRAGMA wal_checkpoint(${mode})`);
      // A checkpoint copies the WAL into the database and changes no data. A TRUNCATE one empties the WAL file,
      // and readers are told as of a change (a cache reads again: more reads, never a stale row).
      if (mode !== 'TRUNCATE') expect(await storage.writeVersion()).toBe(before);
      const checkpointed = await storage.writeVersion();
      // The next write starts the WAL from its beginning: a change all the same.
      writer.prepare('UPDATE keys SET revoked = 1 - revoked WHERE id = ?').run('k0');
      expect(await storage.writeVersion()).not.toBe(checkpointed);
    }
  });
});
