import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { ImportRecord } from '@maqam/contract';
import { buildApp, createApiKeysRepo, createApiKeysService, generateDemoCatalog, loadConfig, openStorage, type Storage } from '@maqam/server';
import { dialects } from '../../server/test/dialects.ts';
import { writeNdjson } from '../../server/test/fixtures.ts';
import { runCli, runCliJson } from './run-cli.ts';

/**
 * Data the server stores in layouts of its own (song templates, the search
 * index) carries a version. A database holding another one, as one written
 * by an earlier release does, is refused while serving (never misread) and
 * rebuilt by `maqam migrate` (and before a server listens), with the same
 * answers as before, byte for byte.
 */
describe.each(dialects.map((d) => [d.name, d] as const))('stored formats on %s', (name, dialect) => {
  it('refuses templates of another format, and maqam migrate rebuilds them and the search index to the same answers', async () => {
    const database = await dialect.create();
    const dir = mkdtempSync(join(tmpdir(), 'maqam-formats-'));
    const env = { DATABASE_URL: database.url, LOG_LEVEL: 'silent' };
    let storage: Storage | undefined;
    try {
      const records: ImportRecord[] = [...generateDemoCatalog({ songs: 300, seed: 21 })];
      const imported = await runCliJson(env, ['import', writeNdjson(dir, 'catalog.ndjson', records)]);
      expect(imported.songs).toBe(300);
      const songIds = records.filter((record) => record.kind === 'song').map((record) => record.id);
      const firstSong = records.find((record) => record.kind === 'song')!;
      const query = Object.values(firstSong.title)[0]!.split(' ')[0]!;
      storage = openStorage(database.url);
      const apiKey = (await createApiKeysService(createApiKeysRepo(storage.db)).create({ name: 'formats' })).key;

      /** Every song through BatchGetSongs in two locales (no fragment cache: read from the table), and a search. */
      const answers = async () => {
        const config = loadConfig({ DATABASE_URL: database.url, MAQAM_SECRET: 'x'.repeat(40), MAQAM_RATE_LIMIT: '0', MAQAM_SONG_CACHE_MB: '0' });
        const app = await buildApp({ config, storage: storage!, logger: false });
        try {
          const bodies: { status: number; body: string }[] = [];
          for (const locale of ['ar', 'en']) {
            for (let i = 0; i < songIds.length; i += 100) {
              const res = await app.inject({
                method: 'POST', url: '/v1/music/songs:batchGet',
                headers: { 'content-type': 'application/json', 'x-api-key': apiKey, 'accept-language': locale },
                payload: { songIdList: songIds.slice(i, i + 100).map((value) => ({ value })) },
              });
              bodies.push({ status: res.statusCode, body: res.body });
            }
          }
          const search = await app.inject({ url: `/v1/search?q=${encodeURIComponent(query)}&pageSize=50`, headers: { 'x-api-key': apiKey } });
          // Its results (a page token is sealed anew each time).
          bodies.push({ status: search.statusCode, body: JSON.stringify(JSON.parse(search.body).results) });
          return bodies;
        } finally {
          await app.close();
        }
      };
      const before = await answers();
      expect(before.every((answer) => answer.status === 200)).toBe(true);
      expect(JSON.parse(before.at(-1)!.body).length).toBeGreaterThan(0);
      expect(await runCliJson(env, ['migrate'])).toEqual({ applied: [], rebuilt: [] });

      // As an earlier release left it: templates of layout 1 (no format mark), no versions recorded, and the
      // search index empty (migration 012 no longer indexes the catalog it finds).
      const withoutFormat = name === 'postgres' ? sql`substring(template from 5)` : sql`substr(template, 5)`;
      await sql`update song_templates set template = ${withoutFormat}`.execute(storage.db);
      await sql`delete from settings where key like 'format:%'`.execute(storage.db);
      for (const table of ['search_doclists', 'search_items', 'search_segments', 'search_vocabulary']) await sql`delete from ${sql.table(table)}`.execute(storage.db);

      const stale = await answers();
      // Refused, never misread: the contract's 503, and nothing of another song in it.
      expect(stale[0]!.status).toBe(503);
      expect(JSON.parse(stale[0]!.body).code).toBe('ERROR_CODE_UNAVAILABLE');

      const migrated = await runCli(env, ['migrate']);
      expect(migrated.code, migrated.stderr).toBe(0);
      // The catalog's films and episodes too: no version of their templates is recorded either.
      expect(migrated.stdout).toBe('rebuilt: song-templates, search-index, video-title-templates\n');
      expect(migrated.stderr).toContain('rebuilding the song-templates, stored in another format (300 items)...');
      expect(migrated.stderr).toMatch(/rebuilding the search-index, stored in another format \(\d+ items\)\.\.\./);
      expect(await answers()).toEqual(before);
      expect(await runCliJson(env, ['migrate'])).toEqual({ applied: [], rebuilt: [] });
    } finally {
      await storage?.close();
      await database.drop();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
