import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { buildApp, createClientsService, createUsersService, loadConfig, openStorage } from '@maqam/server';
import { restoreSqliteBackup } from '../../src/backup/operations.ts';
import { dialects } from '../dialects.ts';
import { startTestServer, type TestServer } from '../harness.ts';
import { REDIRECT, tokensFor } from '../oauth/oauth-helpers.ts';

const USERS = 4;
const CLIENTS = 32;
/** Writes acknowledged before the backup begins: enough that it starts in the middle of the traffic. */
const WRITES_BEFORE_BACKUP = 300;
const SONGS = ['song-ar', 'song-en', 'song-fr'];

interface Writer {
  readonly userId: string;
  readonly token: string;
  readonly playlistId: string;
}

/** What a client was told, and when (performance.now()) it was told. */
type Acknowledged =
  | { kind: 'save'; at: number; userId: string; songId: string }
  | { kind: 'play'; at: number; userId: string; playId: string }
  | { kind: 'add'; at: number; playlistId: string; itemId: string; version: number }
  | { kind: 'move'; at: number; playlistId: string; version: number };

const sqlite = dialects.filter((dialect) => dialect.name === 'sqlite');

/**
 * A backup taken while 32 clients write over HTTP (issue 57): restored, it
 * passes integrity_check, every playlist in it is consistent (positions
 * 0..n-1, its version the number of its changes in the feed), and it holds
 * every write acknowledged before the backup began. SQLite only: PostgreSQL
 * is backed up with its own tools (backup.test.ts in the CLI checks the
 * command says so).
 */
describe.each(sqlite.map((d) => [d.name, d] as const))('a backup under 32 writing clients on %s', (_name, dialect) => {
  let server: TestServer;
  let dir: string;
  let base: string;
  const writers: Writer[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'maqam-backup-'));
    server = await startTestServer(dialect, { MAQAM_RATE_LIMIT: '0', MAQAM_BACKUP_SCHEDULE: '1d', MAQAM_BACKUP_DIR: join(dir, 'backups') });
    await server.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(server.app.server.address() as { port: number }).port}`;
    const users = createUsersService(server.storage.db);
    const client = await createClientsService(server.storage.db).create({ name: 'Writers', redirectUris: [REDIRECT], scopes: ['read', 'write'] });
    for (let i = 0; i < USERS; i++) {
      const user = await users.create(`writer${i}`, 'صوت الموسيقى 123');
      const token = (await tokensFor(server, client.clientId, user.username, 'read write')).access_token;
      const created = await fetch(`${base}/v1/playlists`, {
        method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: `Mix ${i}` }),
      });
      expect(created.status).toBe(201);
      writers.push({ userId: user.id, token, playlistId: ((await created.json()) as { playlist: { id: { value: string } } }).playlist.id.value });
    }
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('restores to a whole, consistent database holding every write acknowledged before it began', async () => {
    const acknowledged: Acknowledged[] = [];
    let stop = false;
    let reachedBackupPoint: () => void;
    const backupPoint = new Promise<void>((resolve) => (reachedBackupPoint = resolve));
    const post = async (writer: Writer, path: string, body: unknown) => {
      const res = await fetch(`${base}${path}`, { method: 'POST', headers: { authorization: `Bearer ${writer.token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const answer = await res.json() as Record<string, any>;
      expect(res.status, JSON.stringify(answer)).toBe(200);
      return answer;
    };
    const clientLoop = async (n: number) => {
      const writer = writers[n % USERS]!;
      const mine: string[] = [];
      for (let i = 0; !stop; i++) {
        const songId = SONGS[(n + i) % SONGS.length]!;
        if (i % 3 === 0) {
          await post(writer, '/v1/library/saved:batchAdd', { songIdList: [{ value: songId }] });
          acknowledged.push({ kind: 'save', at: performance.now(), userId: writer.userId, songId });
        } else if (i % 3 === 1) {
          const playId = `c${n}-${i}`;
          await post(writer, '/v1/library/history:report', { plays: [{ playId, songId: { value: songId }, startedAt: new Date(Date.now() - 60_000).toISOString(), msPlayed: 40_000 }] });
          acknowledged.push({ kind: 'play', at: performance.now(), userId: writer.userId, playId });
        } else if (i % 6 === 5 && mine.length > 0) {
          const { version } = await post(writer, `/v1/playlists/${writer.playlistId}/items:move`, { itemIds: [mine[0]] });
          acknowledged.push({ kind: 'move', at: performance.now(), playlistId: writer.playlistId, version: Number(version) });
        } else {
          const { items, version } = await post(writer, `/v1/playlists/${writer.playlistId}/items:batchAdd`, { songIdList: [{ value: songId }] });
          mine.push(items[0].itemId);
          acknowledged.push({ kind: 'add', at: performance.now(), playlistId: writer.playlistId, itemId: items[0].itemId, version: Number(version) });
        }
        if (acknowledged.length >= WRITES_BEFORE_BACKUP) reachedBackupPoint();
      }
    };
    const clients = Array.from({ length: CLIENTS }, (_, n) => clientLoop(n));
    await backupPoint;
    const began = performance.now();
    const ackedBefore = acknowledged.filter((write) => write.at < began);
    const taken = await server.app.backups!.runDue();
    const ackedDuring = acknowledged.length - ackedBefore.length;
    stop = true;
    await Promise.all(clients);
    expect(taken).toBeDefined();
    // The clients kept writing while it ran: it was taken online.
    expect(ackedDuring).toBeGreaterThan(0);
    process.stdout.write(`backup under ${CLIENTS} clients: ${ackedBefore.length} writes acknowledged before it began, ${ackedDuring} while it ran\n`);

    const restoredUrl = `sqlite:${join(dir, 'restored', 'maqam.db')}`;
    const summary = await restoreSqliteBackup({ file: taken!.path, databaseUrl: restoredUrl, force: false });
    expect(summary.users).toBe(USERS);
    expect(summary.playlists).toBe(USERS);

    const restored = new DatabaseSync(join(dir, 'restored', 'maqam.db'));
    try {
      expect(restored.prepare('PRAGMA integrity_check').all()).toEqual([{ integrity_check: 'ok' }]);
      const has = (query: string, ...values: string[]) => restored.prepare(query).get(...values) !== undefined;
      for (const write of ackedBefore) {
        if (write.kind === 'save') expect(has("select 1 from library_items where user_id = ? and kind = 'song' and item_id = ?", write.userId, write.songId), `save ${write.songId}`).toBe(true);
        if (write.kind === 'play') expect(has('select 1 from play_history where user_id = ? and play_id = ?', write.userId, write.playId), `play ${write.playId}`).toBe(true);
        if (write.kind === 'add') expect(has('select 1 from playlist_items where playlist_id = ? and item_id = ?', write.playlistId, write.itemId), `entry ${write.itemId}`).toBe(true);
      }
      for (const { playlistId } of writers) {
        const { version, item_count: itemCount } = restored.prepare('select version, item_count from playlists where id = ?').get(playlistId) as { version: number; item_count: number };
        const acknowledgedVersions = ackedBefore.flatMap((write) => ('version' in write && write.playlistId === playlistId ? [write.version] : []));
        expect(version).toBeGreaterThanOrEqual(Math.max(1, ...acknowledgedVersions));
        const { changes } = restored.prepare("select count(*) as changes from library_changes where kind = 'playlist' and item_id = ?").get(playlistId) as { changes: number };
        expect(changes, `changes of ${playlistId}`).toBe(version);
        const { entries } = restored.prepare('select count(*) as entries from playlist_items where playlist_id = ?').get(playlistId) as { entries: number };
        expect(entries).toBe(itemCount);
      }
    } finally {
      restored.close();
    }

    // Read through the API on the restored database: every playlist's positions are 0..n-1, in pages.
    const storage = openStorage(restoredUrl);
    const app = await buildApp({ config: loadConfig({ DATABASE_URL: restoredUrl, MAQAM_SECRET: 'x'.repeat(40), MAQAM_RATE_LIMIT: '0' }), storage, logger: false });
    try {
      for (const writer of writers) {
        const positions: number[] = [];
        let token = '';
        do {
          const res = await app.inject({ url: `/v1/playlists/${writer.playlistId}/items?page_size=100${token ? `&page_token=${token}` : ''}`, headers: { authorization: `Bearer ${writer.token}` } });
          expect(res.statusCode, res.body).toBe(200);
          const page = res.json() as { items: { position: number }[]; nextPageToken: string };
          positions.push(...page.items.map((item) => item.position));
          token = page.nextPageToken;
        } while (token);
        expect(positions).toEqual(positions.map((_, i) => i));
      }
    } finally {
      await app.close();
      await storage.close();
    }
  }, 60_000);
});
