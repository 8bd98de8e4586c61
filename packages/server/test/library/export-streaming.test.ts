import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { buildApp, loadConfig, openStorage, type Storage } from '@maqam/server';
import type { FastifyInstance } from 'fastify';
import { dialects } from '../dialects.ts';
import { startTestServer, type TestServer } from '../harness.ts';
import { createClientsService, createUsersService } from '@maqam/server';
import { REDIRECT, tokensFor } from '../oauth/oauth-helpers.ts';

const PLAYS = 100_000;
const OTHER_PLAYS = 5_000;
const BASE = Date.parse('2026-11-01T00:00:00.000Z');

/** `count` plays of `userId` in one statement, a second apart from `start`, their ids `prefix0` on. */
async function insertPlays(storage: Storage, userId: string, prefix: string, count: number, start: number): Promise<void> {
  await sql`with recursive n(i) as (select 0 union all select i + 1 from n where i < ${count - 1})
    insert into play_history (user_id, play_id, song_id, started_at, ms_played, counted, context)
    select ${userId}, ${prefix} || i, 'song-ar', cast(${start} as bigint) + i * 1000, 200000, 1, null from n`.execute(storage.db);
}

/**
 * The export of a user with 100,000 plays (issue 57): it is streamed (the
 * first bytes arrive while most pages of plays are still to be read), in
 * bounded memory, and lists every play once and no play of the user whose
 * plays interleave with theirs. On SQLite only, for the suite's time: the
 * export's reads are the same on PostgreSQL, where export.test.ts runs them.
 */
describe.each(dialects.filter((d) => d.name === 'sqlite').map((d) => [d.name, d] as const))('the export of 100,000 plays on %s', (_name, dialect) => {
  let server: TestServer;
  let counted: Storage;
  let app: FastifyInstance;
  let port: number;
  let token: string;
  let dir: string;
  let playPagesRead = 0;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'maqam-export-'));
    server = await startTestServer(dialect, { MAQAM_RATE_LIMIT: '0' });
    const users = createUsersService(server.storage.db);
    const alice = await users.create('alice', 'صوت الموسيقى 123');
    const bob = await users.create('bob', 'صوت الموسيقى 123');
    const client = await createClientsService(server.storage.db).create({ name: 'Export', redirectUris: [REDIRECT], scopes: ['read'] });
    token = (await tokensFor(server, client.clientId, 'alice', 'read')).access_token;
    await insertPlays(server.storage, alice.id, 'a-', PLAYS, BASE);
    // Bob's plays in the same seconds, between Alice's.
    await insertPlays(server.storage, bob.id, 'b-', OTHER_PLAYS, BASE + 500);
    // A node of its own whose statements are counted: how many pages of plays it has read when the first bytes arrive.
    counted = openStorage(server.databaseUrl, { logQuery: (text) => void (/from "play_history"/.test(text) && playPagesRead++) });
    app = await buildApp({ config: loadConfig({ DATABASE_URL: server.databaseUrl, MAQAM_SECRET: 'x'.repeat(40), MAQAM_RATE_LIMIT: '0' }), storage: counted, logger: false });
    await app.listen({ port: 0, host: '127.0.0.1' });
    port = (app.server.address() as { port: number }).port;
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    await counted?.close();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('streams every play once, never another user\'s, with the first bytes out before most plays are read', async () => {
    const file = join(dir, 'export.json');
    const rssBefore = process.memoryUsage.rss();
    let rssPeak = rssBefore;
    let pagesAtFirstByte: number | undefined;
    let chunks = 0;
    const status = await new Promise<number>((resolve, reject) => {
      const req = request({ port, host: '127.0.0.1', path: '/v1/users/me/export', headers: { authorization: `Bearer ${token}`, 'accept-language': 'en' } }, (res) => {
        const out = createWriteStream(file);
        res.on('data', () => {
          pagesAtFirstByte ??= playPagesRead;
          chunks++;
          rssPeak = Math.max(rssPeak, process.memoryUsage.rss());
        });
        res.pipe(out);
        out.on('finish', () => resolve(res.statusCode!));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(200);
    const playPages = playPagesRead;
    expect(playPages).toBeGreaterThanOrEqual(PLAYS / 500);
    expect(pagesAtFirstByte).toBeLessThan(playPages / 2);
    expect(chunks).toBeGreaterThan(10);

    const body = readFileSync(file, 'utf8');
    const plays = (JSON.parse(body) as { plays: { playId: string }[] }).plays.map((play) => play.playId);
    expect(plays).toHaveLength(PLAYS);
    expect(new Set(plays).size).toBe(PLAYS);
    expect(plays.every((id) => id.startsWith('a-'))).toBe(true);
    expect(plays[0]).toBe(`a-${PLAYS - 1}`);
    expect(plays[PLAYS - 1]).toBe('a-0');
    process.stdout.write(`export of ${PLAYS} plays on ${dialect.name}: ${(body.length / 1e6).toFixed(1)} MB in ${chunks} chunks; `
      + `peak RSS growth ${((rssPeak - rssBefore) / 1e6).toFixed(1)} MB (server, client and test runner in this process)\n`);
    // No bound asserted on it here: this process's young generation (vitest's) and the client share it. export-memory.ts
    // measures the server alone at several sizes.
  }, 60_000);
});
