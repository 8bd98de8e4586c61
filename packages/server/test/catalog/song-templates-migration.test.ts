import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Migrator, sql } from 'kysely';
import type { ImportRecord } from '@maqam/contract';
import { buildApp, generateDemoCatalog, importNdjsonFile, loadConfig, migrateToLatest, openStorage, type Storage } from '@maqam/server';
import { migrations } from '../../src/storage/migrations/index.ts';
import { dialects } from '../dialects.ts';
import { writeNdjson } from '../fixtures.ts';

/** How SQLite declares the templates' table. */
async function templatesTable(storage: Storage): Promise<string> {
  const { rows } = await sql<{ sql: string }>`select sql from sqlite_master where name = 'song_templates'`.execute(storage.db);
  return rows[0]!.sql.toLowerCase();
}

describe.each(dialects.map((d) => [d.name, d] as const))('the song templates migration (013) on %s', (name, dialect) => {
  it('keeps every song\'s answer, down and up again, and on SQLite turns the table into a rowid table', async () => {
    const database = await dialect.create();
    const storage = openStorage(database.url);
    const dir = mkdtempSync(join(tmpdir(), 'maqam-templates-migration-'));
    try {
      await migrateToLatest(storage);
      const records: ImportRecord[] = [...generateDemoCatalog({ songs: 300, seed: 8 })];
      const imported = await importNdjsonFile(storage, writeNdjson(dir, 'catalog.ndjson', records));
      expect(imported.errors).toEqual([]);
      const songIds = records.filter((record) => record.kind === 'song').map((record) => record.id);

      /** Every song through BatchGetSongs, read from the templates (no fragment cache). */
      // A node started on the schema of the moment, as a deploy starts one: on PostgreSQL a connection's prepared
      // statements are planned for the columns its tables had when prepared (migration 021 changes api_keys').
      const answers = async (): Promise<string> => {
        const nodeStorage = openStorage(database.url);
        const app = await buildApp({ config: loadConfig({ DATABASE_URL: database.url, MAQAM_SECRET: 'x'.repeat(40), MAQAM_RATE_LIMIT: '0', MAQAM_SONG_CACHE_MB: '0' }), storage: nodeStorage, logger: false });
        try {
          // A key as made before migration 021 (no checksum, none of its columns), so it is read on the schema of either side.
          const apiKey = `mk_migration001_${'A'.repeat(43)}`;
          await storage.db.insertInto('api_keys').values({
            id: 'migration001', name: 'migration', secret_hash: createHash('sha256').update('A'.repeat(43)).digest('hex'), created_at: Date.now(), expires_at: null, revoked_at: null, last_used_at: null,
          } as never).onConflict((oc) => oc.column('id').doNothing()).execute();
          const bodies: string[] = [];
          for (let i = 0; i < songIds.length; i += 100) {
            const res = await app.inject({
              method: 'POST', url: '/v1/music/songs:batchGet',
              headers: { 'content-type': 'application/json', 'x-api-key': apiKey, 'accept-language': 'en' },
              payload: { songIdList: songIds.slice(i, i + 100).map((value) => ({ value })) },
            });
            expect(res.statusCode, res.body).toBe(200);
            bodies.push(res.body);
          }
          return bodies.join('\n');
        } finally {
          await app.close();
          await nodeStorage.close();
        }
      };
      const before = await answers();
      expect(before).not.toContain('ERROR_CODE_NOT_FOUND');
      if (name === 'sqlite') expect(await templatesTable(storage)).not.toContain('without rowid');

      const migrator = new Migrator({ db: storage.db, provider: migrations });
      const down = await migrator.migrateTo('012-search-segments');
      expect(down.error).toBeUndefined();
      expect(down.results?.map((result) => `${result.direction} ${result.migrationName}`)).toEqual(['Down 022-video-title-templates', 'Down 021-developer-keys', 'Down 020-video-streams', 'Down 019-video', 'Down 018-playlist-text-order-keys', 'Down 017-typed-play-contexts', 'Down 016-playlists', 'Down 015-library', 'Down 014-deployment-id', 'Down 013-song-templates-rowid']);
      if (name === 'sqlite') expect(await templatesTable(storage)).toContain('without rowid');
      expect(await answers()).toBe(before);

      const up = await migrator.migrateToLatest();
      expect(up.error).toBeUndefined();
      if (name === 'sqlite') expect(await templatesTable(storage)).not.toContain('without rowid');
      expect(await answers()).toBe(before);
    } finally {
      await storage.close();
      await database.drop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
