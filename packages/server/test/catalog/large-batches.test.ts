import { copyFileSync, writeFileSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import type { ImportRecord } from '@maqam/contract';
import { buildApp, createApiKeysRepo, createApiKeysService, generateDemoCatalog, importNdjsonFile, loadConfig, prepareDatabase, openStorage, type Storage } from '@maqam/server';
import { dialects } from '../dialects.ts';
import { writeNdjson } from '../fixtures.ts';

/**
 * One import batch writes each table in as many statements as its rows need
 * (storage/bulk-upsert.ts: on SQLite full chunks, then the rest in
 * power-of-two sizes; on PostgreSQL one array a column). A batch of 4,321
 * songs spans several statement sizes for every table it writes on SQLite,
 * the search postings most of all: every row must land, and a second import
 * of the same ids must update every one of them.
 */
const RECORDS: ImportRecord[] = [...generateDemoCatalog({ songs: 4321, seed: 11, video: false })];
const SONG_IDS = RECORDS.filter((record) => record.kind === 'song').map((record) => record.id);

describe.each(dialects.map((d) => [d.name, d] as const))('an import batch larger than one statement on %s', (_name, dialect) => {
  let storage: Storage;
  let app: FastifyInstance;
  let apiKey: string;
  let drop: () => Promise<void>;
  const dir = mkdtempSync(join(tmpdir(), 'maqam-large-batch-'));

  const importAll = async (records: readonly ImportRecord[], name: string) => {
    // On a thread of its own (import/import-reader.ts), as a large file is read: the rows cross between threads.
    const result = await importNdjsonFile(storage, writeNdjson(dir, name, records), { batchSize: records.length, readerThread: true });
    expect(result.errors).toEqual([]);
  };

  /** Every song's title in English, through BatchGetSongs, 100 ids a request. */
  const titles = async (): Promise<Map<string, string>> => {
    const found = new Map<string, string>();
    for (let i = 0; i < SONG_IDS.length; i += 100) {
      const ids = SONG_IDS.slice(i, i + 100);
      const res = await app.inject({
        method: 'POST', url: '/v1/music/songs:batchGet',
        headers: { 'content-type': 'application/json', 'x-api-key': apiKey, 'accept-language': 'en' },
        payload: { songIdList: ids.map((value) => ({ value })) },
      });
      expect(res.statusCode, res.body).toBe(200);
      const results = res.json().results as Record<string, { song?: { title: { value: string } } }>;
      for (const id of ids) if (results[id]?.song) found.set(id, results[id]!.song!.title.value);
    }
    return found;
  };

  const search = async (q: string) => {
    const res = await app.inject({ method: 'GET', url: `/v1/search?q=${encodeURIComponent(q)}&types=song&page_size=50`, headers: { 'x-api-key': apiKey } });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().results as unknown[];
  };

  beforeAll(async () => {
    const database = await dialect.create();
    storage = openStorage(database.url);
    await prepareDatabase(storage);
    app = await buildApp({ config: loadConfig({ DATABASE_URL: database.url, MAQAM_SECRET: 'x'.repeat(40), MAQAM_RATE_LIMIT: '0', MAQAM_SONG_CACHE_MB: '0' }), storage, logger: false });
    apiKey = (await createApiKeysService(createApiKeysRepo(storage.db)).create({ name: 'large-batches' })).key;
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

  it('writes every row, and updates every row when imported again', async () => {
    await importAll(RECORDS, 'first.ndjson');
    const first = await titles();
    expect(first.size).toBe(SONG_IDS.length);

    // The same ids with new titles, in one batch again: every song's row, template and postings change.
    const renamed = RECORDS.map((record) => (record.kind === 'song' ? { ...record, title: { ...record.title, en: `Zanzibarre ${record.id}` } } : record));
    await importAll(renamed, 'second.ndjson');
    const second = await titles();
    expect(second.size).toBe(SONG_IDS.length);
    for (const id of SONG_IDS) expect(second.get(id)).toBe(`Zanzibarre ${id}`);
    // Each song found by its new title's words (its postings were rewritten), and none left without them.
    expect(await search('Zanzibarre')).toHaveLength(50);
    for (const id of [SONG_IDS[0]!, SONG_IDS[2047]!, SONG_IDS[SONG_IDS.length - 1]!]) {
      const results = await search(`Zanzibarre ${id}`);
      expect(JSON.stringify(results[0])).toContain(`"value":"${id}"`);
    }
  });

  it('keeps every character of the texts it stores, the array syntax\'s own included', async () => {
    // On PostgreSQL rows travel as array literals: quotes, backslashes, braces, commas and the word NULL must survive.
    const tricky = 'a "quoted" \\ back\\slash {braced}, NULL, null\nnew line\ttab \'single\' 🎵 أُمّ';
    const record = RECORDS.find((r) => r.kind === 'song' && r.id === SONG_IDS[7])!;
    await importAll([{ ...record, title: { en: tricky, ar: 'NULL' }, isrc: '' } as ImportRecord], 'tricky.ndjson');
    const res = await app.inject({ method: 'GET', url: `/v1/music/songs/${SONG_IDS[7]}`, headers: { 'x-api-key': apiKey, 'accept-language': 'en' } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().song.title.value).toBe(tricky);
    expect(res.json().song.isrc).toBe('');
    const arabic = await app.inject({ method: 'GET', url: `/v1/music/songs/${SONG_IDS[7]}`, headers: { 'x-api-key': apiKey, 'accept-language': 'ar' } });
    expect(arabic.json().song.title.value).toBe('NULL');
  });
});

describe('an import read on a thread of its own', () => {
  it('reports a bad line by its line in the file, writes the other batches, and counts what it wrote', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'maqam-reader-thread-'));
    const storage = openStorage(`sqlite:${join(dir, 'maqam.db')}`);
    try {
      await prepareDatabase(storage);
      const records = [...generateDemoCatalog({ songs: 300, seed: 9 })];
      const lines = records.map((record) => JSON.stringify(record));
      // The last line: a bad one there keeps only the last batch out, and no later line references it.
      const bad = lines.length;
      lines[bad - 1] = '{"kind":"related","artistId":';
      const file = join(dir, 'catalog.ndjson');
      writeFileSync(file, `${lines.join('\n')}\n`);
      const batchSize = 50;
      const outcome = await importNdjsonFile(storage, file, { batchSize, readerThread: true });
      expect(outcome.errors).toHaveLength(1);
      expect(outcome.errors[0]!.line).toBe(bad);
      expect(outcome.errors[0]!.message).toMatch(/^not valid JSON/);
      // Every batch but the last one (which holds the bad line) was written.
      const lastBatch = records.slice(Math.floor((bad - 1) / batchSize) * batchSize);
      const songsWritten = records.filter((record) => record.kind === 'song').length - lastBatch.filter((record) => record.kind === 'song').length;
      expect(outcome.summary.songs).toBe(songsWritten);
    } finally {
      await storage.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('an import of large batches into a SQLite file', () => {
  it('keeps its WAL the size of a batch, checkpointed on another thread, and leaves it checkpointed', async () => {
    // The import turns the connection's own checkpoints off (import/import.ts BackgroundCheckpoints): if the
    // other thread did not checkpoint after each batch, the WAL would hold every batch, more than the database.
    const dir = mkdtempSync(join(tmpdir(), 'maqam-checkpoints-'));
    const path = join(dir, 'maqam.db');
    const storage = openStorage(`sqlite:${path}`);
    try {
      await prepareDatabase(storage);
      const records = [...generateDemoCatalog({ songs: 12_000, seed: 5, video: false })];
      const result = await importNdjsonFile(storage, writeNdjson(dir, 'catalog.ndjson', records), { batchSize: 6_000 });
      expect(result.errors).toEqual([]);
      expect(result.summary.songs).toBe(12_000);
      const wal = statSync(`${path}-wal`).size;
      expect(wal).toBeGreaterThan(0);
      expect(wal).toBeLessThan(statSync(path).size / 2);
      // The import's end waited for its last checkpoint: everything is in the database file, without its WAL.
      const copy = join(dir, 'copy.db');
      copyFileSync(path, copy);
      const db = new DatabaseSync(copy, { readOnly: true });
      expect((db.prepare('select count(*) as n from songs').get() as { n: number }).n).toBe(12_000);
      expect((db.prepare('select count(*) as n from search_segments').get() as { n: number }).n).toBe(1);
      db.close();
    } finally {
      await storage.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
