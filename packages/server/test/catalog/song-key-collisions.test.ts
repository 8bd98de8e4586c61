import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { Migrator } from 'kysely';
import type { ImportRecord, SongRecord } from '@maqam/contract';
import { buildApp, createApiKeysRepo, createApiKeysService, generateDemoCatalog, importNdjsonFile, loadConfig, migrateToLatest, openStorage, type Storage } from '@maqam/server';
import { songKey } from '../../src/catalog/song-key.ts';
import { migrations } from '../../src/storage/migrations/index.ts';
import { dialects } from '../dialects.ts';
import { writeNdjson } from '../fixtures.ts';

describe('songKey', () => {
  it('gives the keys templates are stored under, which must never change', () => {
    expect(songKey('song-1')).toBe(songKey('song-1'));
    expect([songKey('song-1'), songKey('song-ar'), songKey('أغنية'), songKey('')]).toEqual([
      580473911427923, 8273990638331738, 5058306981151350, 6025115437412117,
    ]);
    for (const id of ['song-1', 'x'.repeat(500), '\u{1F3B5}']) {
      expect(Number.isSafeInteger(songKey(id)) && songKey(id) >= 0).toBe(true);
    }
  });
});

/**
 * Two song ids whose templates share a key (found by a birthday search over
 * `song-<n>`): the first written holds it, the other is kept by id
 * (catalog/song-templates.repo.ts). Whatever the order of writes and
 * withdrawals, each id answers its own song.
 */
const FIRST = 'song-41043766';
const SECOND = 'song-110878710';

describe.each(dialects.map((d) => [d.name, d] as const))('two songs whose ids share a template key on %s', (_name, dialect) => {
  const CATALOG: ImportRecord[] = [...generateDemoCatalog({ songs: 20, seed: 3 })];
  const base = CATALOG.find((record): record is SongRecord => record.kind === 'song')!;
  const song = (id: string, title: string, withdrawn = false): SongRecord => ({ ...base, id, title: { en: title, ar: title }, withdrawn });
  let storage: Storage;
  let app: FastifyInstance;
  let apiKey: string;
  let drop: () => Promise<void>;
  const dir = mkdtempSync(join(tmpdir(), 'maqam-song-keys-'));
  let files = 0;

  const importRecords = async (records: readonly ImportRecord[]) => {
    const result = await importNdjsonFile(storage, writeNdjson(dir, `${files++}.ndjson`, records));
    expect(result.errors).toEqual([]);
  };

  /** Each id's English title as BatchGetSongs and GetSong answer it, or null when NOT_FOUND. */
  const titles = async (): Promise<Record<string, string | null>> => {
    const res = await app.inject({
      method: 'POST', url: '/v1/music/songs:batchGet',
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey, 'accept-language': 'en' },
      payload: { songIdList: [FIRST, SECOND, base.id].map((value) => ({ value })) },
    });
    expect(res.statusCode, res.body).toBe(200);
    const results = res.json().results as Record<string, { song?: { id: { value: string }; title: { value: string } }; error?: { code: string } }>;
    const answer: Record<string, string | null> = {};
    for (const id of [FIRST, SECOND, base.id]) {
      const result = results[id]!;
      if (result.song) expect(result.song.id.value).toBe(id);
      else expect(result.error?.code).toBe('ERROR_CODE_NOT_FOUND');
      answer[id] = result.song?.title.value ?? null;
      const one = await app.inject({ method: 'GET', url: `/v1/music/songs/${id}`, headers: { 'x-api-key': apiKey, 'accept-language': 'en' } });
      expect(one.statusCode, one.body).toBe(answer[id] === null ? 404 : 200);
      if (answer[id] !== null) expect(one.json().song.title.value).toBe(answer[id]);
    }
    return answer;
  };

  beforeAll(async () => {
    const database = await dialect.create();
    storage = openStorage(database.url);
    await migrateToLatest(storage);
    // No fragment cache: every answer is read from the templates.
    app = await buildApp({ config: loadConfig({ DATABASE_URL: database.url, MAQAM_SECRET: 'x'.repeat(40), MAQAM_RATE_LIMIT: '0', MAQAM_SONG_CACHE_MB: '0' }), storage, logger: false });
    apiKey = (await createApiKeysService(createApiKeysRepo(storage.db)).create({ name: 'song-keys' })).key;
    drop = async () => {
      await app.close();
      await storage.close();
      await database.drop();
    };
  });
  afterAll(async () => {
    await drop?.();
    rmSync(dir, { recursive: true, force: true });
  });

  it('share a key', () => {
    expect(songKey(FIRST)).toBe(songKey(SECOND));
  });

  it('each answer their own song, through every order of writes and withdrawals', async () => {
    // Both in one batch.
    await importRecords([...CATALOG, song(FIRST, 'First one'), song(SECOND, 'Second one')]);
    const baseTitle = (await titles())[base.id];
    expect(baseTitle).toBeTypeOf('string');
    expect(await titles()).toEqual({ [FIRST]: 'First one', [SECOND]: 'Second one', [base.id]: baseTitle });

    // Each written again alone, the one kept by id first.
    await importRecords([song(SECOND, 'Second two')]);
    expect(await titles()).toEqual({ [FIRST]: 'First one', [SECOND]: 'Second two', [base.id]: baseTitle });
    await importRecords([song(FIRST, 'First two')]);
    expect(await titles()).toEqual({ [FIRST]: 'First two', [SECOND]: 'Second two', [base.id]: baseTitle });

    // The key's holder withdrawn: the other is still found, and takes the key when written next.
    await importRecords([song(FIRST, 'First two', true)]);
    expect(await titles()).toEqual({ [FIRST]: null, [SECOND]: 'Second two', [base.id]: baseTitle });
    await importRecords([song(SECOND, 'Second three')]);
    expect(await titles()).toEqual({ [FIRST]: null, [SECOND]: 'Second three', [base.id]: baseTitle });

    // Back, in another batch: the key is held now, so it is kept by id.
    await importRecords([song(FIRST, 'First three')]);
    expect(await titles()).toEqual({ [FIRST]: 'First three', [SECOND]: 'Second three', [base.id]: baseTitle });

    // Both withdrawn in one batch, then both back in the other order.
    await importRecords([song(SECOND, 'x', true), song(FIRST, 'x', true)]);
    expect(await titles()).toEqual({ [FIRST]: null, [SECOND]: null, [base.id]: baseTitle });
    await importRecords([song(SECOND, 'Second four'), song(FIRST, 'First four')]);
    expect(await titles()).toEqual({ [FIRST]: 'First four', [SECOND]: 'Second four', [base.id]: baseTitle });
  });
});

describe.each(dialects.map((d) => [d.name, d] as const))('the migration to integer template keys on %s', (_name, dialect) => {
  it('keeps every song\'s answer, the two that share a key included, down and up again', async () => {
    const database = await dialect.create();
    const storage = openStorage(database.url);
    const dir = mkdtempSync(join(tmpdir(), 'maqam-song-keys-migration-'));
    try {
      await migrateToLatest(storage);
      const records: ImportRecord[] = [...generateDemoCatalog({ songs: 300, seed: 8 })];
      const base = records.find((record): record is SongRecord => record.kind === 'song')!;
      records.push({ ...base, id: FIRST, title: { en: 'First' } }, { ...base, id: SECOND, title: { en: 'Second' } });
      const imported = await importNdjsonFile(storage, writeNdjson(dir, 'catalog.ndjson', records));
      expect(imported.errors).toEqual([]);
      const songIds = records.filter((record) => record.kind === 'song').map((record) => record.id);

      const answers = async (): Promise<string> => {
        const app = await buildApp({ config: loadConfig({ DATABASE_URL: database.url, MAQAM_SECRET: 'x'.repeat(40), MAQAM_RATE_LIMIT: '0', MAQAM_SONG_CACHE_MB: '0' }), storage, logger: false });
        try {
          const apiKey = (await createApiKeysService(createApiKeysRepo(storage.db)).create({ name: 'migration' })).key;
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
        }
      };
      const before = await answers();
      expect(before).toContain('"title":{"value":"First"');
      expect(before).toContain('"title":{"value":"Second"');
      expect(before).not.toContain('ERROR_CODE_NOT_FOUND');

      const migrator = new Migrator({ db: storage.db, provider: migrations });
      const down = await migrator.migrateTo('012-search-segments');
      expect(down.error).toBeUndefined();
      expect(down.results?.map((result) => `${result.direction} ${result.migrationName}`)).toEqual(['Down 013-song-template-keys']);
      const up = await migrator.migrateToLatest();
      expect(up.error).toBeUndefined();
      expect(await answers()).toBe(before);
    } finally {
      await storage.close();
      await database.drop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
