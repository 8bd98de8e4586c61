import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type { ImportRecord } from '@maqam/contract';
import { buildApp, createApiKeysRepo, createApiKeysService, generateDemoCatalog, importNdjsonFile, loadConfig, migrateToLatest, openStorage, type Storage } from '@maqam/server';
import { dialects, type TestDialect } from '../dialects.ts';
import { writeNdjson } from '../fixtures.ts';

/**
 * A first import into an empty index builds the walk index once at the end
 * instead of row by row (search/search-index.ts withBulkSearchIndex). It must
 * answer exactly as an index kept up to date batch by batch, and a load cut
 * off before the end must not leave the index missing for good.
 */
const RECORDS: ImportRecord[] = [...generateDemoCatalog({ songs: 3000, seed: 5 })];
const QUERIES = ['ليالي', 'حب', 'قمر', 'يا', 'sh', 'le ciel', 'amour', 'golden', 'hob', 'layali', 'عمرو', 'حبيبي ليالي'];

interface Catalog {
  storage: Storage;
  app: FastifyInstance;
  apiKey: string;
  drop(): Promise<void>;
}

async function importRecords(storage: Storage, records: readonly ImportRecord[], batchSize = 700): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'maqam-bulk-'));
  try {
    expect((await importNdjsonFile(storage, writeNdjson(dir, 'catalog.ndjson', records), { batchSize })).errors).toEqual([]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function openCatalog(dialect: TestDialect, load: (storage: Storage) => Promise<void>): Promise<Catalog> {
  const database = await dialect.create();
  const storage = openStorage(database.url);
  await migrateToLatest(storage);
  await load(storage);
  const app = await buildApp({ config: loadConfig({ DATABASE_URL: database.url, MAQAM_SECRET: 'x'.repeat(40), MAQAM_RATE_LIMIT: '0' }), storage, logger: false });
  const apiKey = (await createApiKeysService(createApiKeysRepo(storage.db)).create({ name: 'bulk' })).key;
  return {
    storage, app, apiKey,
    async drop() {
      await app.close();
      await storage.close();
      await database.drop();
    },
  };
}

async function walkIndexExists(storage: Storage): Promise<boolean> {
  const { rows } = storage.dialect === 'postgres'
    ? await sql<{ name: string }>`select indexname as name from pg_indexes where indexname = 'search_postings_walk'`.execute(storage.db)
    : await sql<{ name: string }>`select name from sqlite_master where type = 'index' and name = 'search_postings_walk'`.execute(storage.db);
  return rows.length === 1;
}

describe.each(dialects.map((d) => [d.name, d] as const))('a first import into an empty index on %s', (_name, dialect) => {
  let bulk: Catalog;
  let incremental: Catalog;
  beforeAll(async () => {
    bulk = await openCatalog(dialect, (storage) => importRecords(storage, RECORDS));
    // One artist first: the index is not empty when the rest comes, so every batch keeps the walk index up to date.
    incremental = await openCatalog(dialect, async (storage) => {
      await importRecords(storage, RECORDS.filter((record) => record.kind === 'artist').slice(0, 1));
      await importRecords(storage, RECORDS);
    });
  }, 120_000);
  afterAll(async () => {
    await bulk?.drop();
    await incremental?.drop();
  });

  it('ends with the walk index and answers every search exactly as an index kept up to date', async () => {
    expect(await walkIndexExists(bulk.storage)).toBe(true);
    let found = 0;
    for (const q of QUERIES) {
      for (const pageSize of [5, 50]) {
        const url = `/v1/search?q=${encodeURIComponent(q)}&pageSize=${pageSize}`;
        const [a, b] = await Promise.all([
          bulk.app.inject({ method: 'GET', url, headers: { 'x-api-key': bulk.apiKey } }),
          incremental.app.inject({ method: 'GET', url, headers: { 'x-api-key': incremental.apiKey } }),
        ]);
        expect(a.statusCode, url).toBe(200);
        // Page tokens are sealed with a fresh nonce: compared by presence, the results byte for byte.
        const strip = (body: string) => body.replace(/"nextPageToken":"[^"]*"/, '"nextPageToken":"…"');
        expect(strip(a.body), url).toBe(strip(b.body));
        if (JSON.parse(a.body).results.length > 0) found++;
      }
    }
    // The comparison means something only if the searches find things.
    expect(found).toBeGreaterThanOrEqual(16);
  });

  it('builds the walk index again when a load was cut off before the end', async () => {
    await sql`drop index search_postings_walk`.execute(bulk.storage.db);
    expect(await walkIndexExists(bulk.storage)).toBe(false);
    await importRecords(bulk.storage, RECORDS.slice(0, 1));
    expect(await walkIndexExists(bulk.storage)).toBe(true);
  });
});
