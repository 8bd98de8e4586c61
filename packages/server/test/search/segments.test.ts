import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type { ImportRecord } from '@maqam/contract';
import { buildApp, createApiKeysRepo, createApiKeysService, demoCatalogSize, generateDemoCatalog, importNdjsonFile, loadConfig, prepareDatabase, openStorage, seedDemoCatalog, type Storage } from '@maqam/server';
import { dialects, type TestDialect } from '../dialects.ts';
import { writeNdjson } from '../fixtures.ts';

/**
 * The index is segments (search/doclist.ts): each import batch writes one,
 * items indexed again are marked deleted in their earlier segment, segments
 * merge ten of a size at a time, and an import ends by making the segments
 * its batches wrote one. However a catalog got there (one batch, or many
 * imports of many batches with merges and re-imports in between), every
 * search must answer exactly the same pages.
 */
const RECORDS: ImportRecord[] = [...generateDemoCatalog({ songs: 3000, seed: 5, video: false })];
const QUERIES = ['ليالي', 'حب', 'قمر', 'يا', 'sh', 'le ciel', 'amour', 'golden', 'hob', 'layali', 'عمرو', 'حبيبي ليالي'];

/** Some songs made more or less popular and some withdrawn: their albums' popularity changes too. */
type SongRecord = Extract<ImportRecord, { kind: 'song' }>;
const SONGS = RECORDS.filter((record): record is SongRecord => record.kind === 'song');
const CHANGES: SongRecord[] = SONGS.filter((_, i) => i % 7 === 0).map((song, i) =>
  i % 5 === 0 ? { ...song, withdrawn: true } : { ...song, popularity: (song.popularity * 31 + i) % 101 });

interface Catalog {
  storage: Storage;
  app: FastifyInstance;
  apiKey: string;
  drop(): Promise<void>;
}

/** Imports records as `files` imports one after another (each ends with its own segments merged into one), in batches. */
async function importRecords(storage: Storage, records: readonly ImportRecord[], batchSize = 700, files = 1): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'maqam-bulk-'));
  try {
    const part = Math.ceil(records.length / files);
    for (let i = 0; i < files; i++) {
      const file = writeNdjson(dir, `catalog-${i}.ndjson`, records.slice(i * part, (i + 1) * part));
      expect((await importNdjsonFile(storage, file, { batchSize })).errors).toEqual([]);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function openCatalog(dialect: TestDialect, load: (storage: Storage) => Promise<void>): Promise<Catalog> {
  const database = await dialect.create();
  const storage = openStorage(database.url);
  await prepareDatabase(storage);
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

async function segmentCount(storage: Storage): Promise<number> {
  const { rows } = await sql<{ n: number | string }>`select count(*) as n from search_segments`.execute(storage.db);
  return Number(rows[0]!.n);
}

/** Every page of a search, following nextPageToken (tokens are sealed with a fresh nonce: left out). */
async function allPages(catalog: Catalog, q: string, pageSize: number, types = ''): Promise<string[]> {
  const pages: string[] = [];
  let token = '';
  do {
    const url = `/v1/search?q=${encodeURIComponent(q)}&pageSize=${pageSize}${types}${token === '' ? '' : `&pageToken=${encodeURIComponent(token)}`}`;
    const response = await catalog.app.inject({ method: 'GET', url, headers: { 'x-api-key': catalog.apiKey } });
    expect(response.statusCode, url).toBe(200);
    const body = JSON.parse(response.body) as { results: unknown[]; nextPageToken: string };
    pages.push(JSON.stringify(body.results));
    token = body.nextPageToken;
  } while (token !== '' && pages.length < 40);
  return pages;
}

describe.each(dialects.map((d) => [d.name, d] as const))('search segments on %s', (_name, dialect) => {
  let oneBatch: Catalog;
  let manyBatches: Catalog;
  /** The catalogs of importBeside, dropped with the others. */
  const beside: Catalog[] = [];
  beforeAll(async () => {
    oneBatch = await openCatalog(dialect, async (storage) => {
      await importRecords(storage, RECORDS, 100_000);
      await importRecords(storage, CHANGES, 100_000);
    });
    manyBatches = await openCatalog(dialect, async (storage) => {
      await importRecords(storage, RECORDS, 150, 16);
      await importRecords(storage, CHANGES, 40, 4);
    });
  }, 180_000);
  afterAll(async () => {
    await oneBatch?.drop();
    await manyBatches?.drop();
    for (const catalog of beside) await catalog.drop();
  });

  /**
   * RECORDS as one import of batches of 150, then CHANGES as one of batches of 40, while another catalog is imported
   * at the same time (a database of its own), and that other catalog imported alone: built once, by whichever of the
   * two tests that look at them comes first (each imported RECORDS and CHANGES so into a catalog of its own, the one
   * alone and the other beside the second catalog: the same work twice). The segments are counted, and the planner's
   * statistics read, as each import ends.
   */
  let importedBeside: Promise<{ mine: Catalog; theirs: Catalog; otherAlone: Catalog; afterRecords: number; analyzed: string[]; afterChanges: number }> | undefined;
  const importBeside = () => (importedBeside ??= (async () => {
    // The importing process keeps what it normalized (each text's words, by number) for every import it runs.
    // The other catalog comes in three imports, each forgetting them at its end, while the first one's runs on.
    const other = [...generateDemoCatalog({ songs: 1200, seed: 9, video: false })];
    const kept = (catalog: Catalog) => {
      beside.push(catalog);
      return catalog;
    };
    const otherAlone = kept(await openCatalog(dialect, (storage) => importRecords(storage, other, 100_000)));
    let afterRecords = 0;
    let afterChanges = 0;
    let analyzed: string[] = [];
    const [mine, theirs] = await Promise.all([
      openCatalog(dialect, async (storage) => {
        await importRecords(storage, RECORDS, 150);
        afterRecords = await segmentCount(storage);
        if (dialect.name === 'postgres') {
          const { rows } = await sql<{ relname: string }>`select relname from pg_stat_user_tables where last_analyze is not null and relname in ('songs', 'search_items')`.execute(storage.db);
          analyzed = rows.map((row) => row.relname).sort();
        }
        await importRecords(storage, CHANGES, 40);
        afterChanges = await segmentCount(storage);
      }).then(kept),
      openCatalog(dialect, (storage) => importRecords(storage, other, 60, 3)).then(kept),
    ]);
    return { mine, theirs, otherAlone, afterRecords, analyzed, afterChanges };
  })());

  it('merges segments ten of a size at a time', async () => {
    // Twenty imports of many batches each: one segment each, which would all remain without merges.
    expect(await segmentCount(manyBatches.storage)).toBeLessThanOrEqual(12);
    expect(await segmentCount(manyBatches.storage)).toBeGreaterThan(2);
    expect(await segmentCount(oneBatch.storage)).toBeLessThanOrEqual(3);
  });

  it('ends an import of many batches with its segments made one', async () => {
    // RECORDS in batches of 150, counted as that import ended (importBeside).
    const { mine: catalog, afterRecords, analyzed, afterChanges } = await importBeside();
    expect(afterRecords).toBe(1);
    if (dialect.name === 'postgres') {
      // Its end gathered the planner's statistics of what it wrote (autovacuum may be off, as on CI's PostgreSQL).
      expect(analyzed).toEqual(['search_items', 'songs']);
    }
    // A second import (CHANGES in batches of 40) adds one segment of its own, whatever its number of batches.
    expect(afterChanges).toBe(2);
    expect(await segmentCount(catalog.storage)).toBe(2);
    for (const q of QUERIES.slice(0, 4)) expect(await allPages(catalog, q, 50), q).toEqual(await allPages(oneBatch, q, 50));
  }, 120_000);

  it('answers every page of every search exactly as a catalog imported in one batch', async () => {
    let found = 0;
    for (const q of QUERIES) {
      for (const [pageSize, types] of [[7, ''], [50, ''], [5, '&types=song'], [5, '&types=album,artist']] as const) {
        const [a, b] = await Promise.all([allPages(oneBatch, q, pageSize, types), allPages(manyBatches, q, pageSize, types)]);
        expect(b, `${q} ${pageSize}${types}`).toEqual(a);
        if (a[0] !== '[]') found++;
      }
    }
    // The comparison means something only if the searches find things.
    expect(found).toBeGreaterThanOrEqual(32);
  });

  it('answers many searches at once exactly as one at a time (the node keeps the postings it read)', async () => {
    const urls = QUERIES.flatMap((q) => [5, 20].flatMap((pageSize) => ['', '&types=song', '&types=artist,album'].map((types) =>
      `/v1/search?q=${encodeURIComponent(q)}&pageSize=${pageSize}${types}`)));
    const strip = (body: string) => body.replace(/"nextPageToken":"[^"]*"/, '"nextPageToken":"…"');
    const getFrom = (catalog: Catalog) => async (url: string) => {
      const response = await catalog.app.inject({ method: 'GET', url, headers: { 'x-api-key': catalog.apiKey } });
      expect(response.statusCode, url).toBe(200);
      return strip(response.body);
    };
    // One at a time on the one-segment catalog: what both must answer.
    const expected = new Map<string, string>();
    for (const url of urls) expected.set(url, await getFrom(oneBatch)(url));
    for (const catalog of [oneBatch, manyBatches]) {
      // Three rounds of every search at once, in a different order each time, on a cache that keeps filling.
      for (let round = 0; round < 3; round++) {
        const order = urls.map((url, i) => [url, (i * 7919 + round * 104_729) % 9973] as const).sort((a, b) => a[1] - b[1]).map(([url]) => url);
        const bodies = await Promise.all(order.map(getFrom(catalog)));
        order.forEach((url, i) => expect(bodies[i], url).toBe(expected.get(url)));
      }
    }
  });

  it('indexes two catalogs imported at once as if each were imported alone', async () => {
    // RECORDS then CHANGES, imported while the other catalog was, in three imports (importBeside).
    const { mine, theirs, otherAlone } = await importBeside();
    for (const q of QUERIES) {
      expect(await allPages(mine, q, 50), q).toEqual(await allPages(oneBatch, q, 50));
      expect(await allPages(theirs, q, 50), q).toEqual(await allPages(otherAlone, q, 50));
    }
  }, 180_000);

  it('leaves out withdrawn songs', async () => {
    const withdrawn = new Set(CHANGES.filter((record) => record.withdrawn === true).map((record) => record.id));
    expect(withdrawn.size).toBeGreaterThan(10);
    for (const catalog of [oneBatch, manyBatches]) {
      for (const q of ['حب', 'ليالي', 'يا']) {
        const results = (await allPages(catalog, q, 50, '&types=song')).flatMap((page) => JSON.parse(page) as { id: string; popularity: number }[]);
        expect(results.length).toBeGreaterThan(20);
        expect(results.filter((song) => withdrawn.has(song.id))).toEqual([]);
      }
    }
  });
});

/**
 * A segment stores a word's postings in chunks of 65,536 items. A catalog of
 * more items written in one batch is one segment of two chunks; written as
 * imports of 10,000 records in batches of 5,000 (an import's end merges only
 * its own batches' segments) it is segments of one chunk each. Both must answer every page
 * alike: a page filled across the chunk boundary, and page tokens that fall
 * in the second chunk. (SQLite only: the chunk logic is the same code on
 * both dialects, and seeding twice on PostgreSQL would take minutes.)
 */
describe('a segment of more than one chunk (sqlite)', () => {
  const songs = 60_000;
  let oneBatch: Catalog;
  let manyBatches: Catalog;
  beforeAll(async () => {
    const size = demoCatalogSize(songs);
    expect(size.songs + size.albums + size.artists).toBeGreaterThan(65_536);
    oneBatch = await openCatalog(dialects[0]!, async (storage) => void (await seedDemoCatalog(storage, { songs, seed: 9, batchSize: 1_000_000, video: false })));
    const records = [...generateDemoCatalog({ songs, seed: 9, video: false })];
    // Imports of 10,000 records (16 of them), not of 5,000 (31): each import's end is work of its own, a third of a second here.
    manyBatches = await openCatalog(dialects[0]!, (storage) => importRecords(storage, records, 5_000, Math.ceil(records.length / 10_000)));
  }, 240_000);
  afterAll(async () => {
    await oneBatch?.drop();
    await manyBatches?.drop();
  });

  it('answers every page alike', async () => {
    expect(await segmentCount(oneBatch.storage)).toBe(1);
    expect(await segmentCount(manyBatches.storage)).toBeGreaterThan(2);
    let pages = 0;
    // Rare pairs and words: the page fills only from the second chunk on.
    for (const q of ['حبيبي ليالي', 'tamally m', 'layali', 'قمر', 'golden rain', 'نور ال']) {
      for (const [pageSize, types] of [[50, ''], [13, '&types=album,artist']] as const) {
        const [a, b] = await Promise.all([allPages(oneBatch, q, pageSize, types), allPages(manyBatches, q, pageSize, types)]);
        expect(b, `${q} ${pageSize}${types}`).toEqual(a);
        pages += a.length;
      }
    }
    expect(pages).toBeGreaterThan(40);
  }, 120_000);
});
