import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { buildApp, createApiKeysRepo, createApiKeysService, demoCatalogSize, importNdjsonFile, loadConfig, prepareDatabase, openStorage, seedDemoCatalog, type Storage } from '@maqam/server';
import { dialects } from '../dialects.ts';
import { fixtureRecords, writeNdjson } from '../fixtures.ts';

/**
 * The catalog's answers, byte for byte, against the answers recorded in
 * `golden/` (recorded as digests before the song fragments were pre-rendered
 * at import in issue 12; as files since issue 37, whose sha256 sums are
 * those digests: ar 85cf664f..., en 72972720..., fr b9675095...): how items
 * are stored and rendered may change,
 * what a client receives may not. The catalog is the test fixtures plus a
 * seeded demo catalog (Arabic, English and French names, server-relative
 * artwork, lyrics), read in several locale chains, through the batch, single
 * and list operations, cold and then from the cache.
 *
 * Each golden file holds, per request, a line `METHOD URL STATUS` and a line
 * with the body as answered; a failure names the first request whose answer
 * differs and shows the difference. If a change to the answers is intended
 * (a contract change), record them again with MAQAM_RECORD_GOLDEN=1 and say
 * why in the commit.
 */
const DEMO_SONGS = 1500;
const { artists: DEMO_ARTISTS, albums: DEMO_ALBUMS } = demoCatalogSize(DEMO_SONGS);
const LOCALES = ['', 'ar', 'en', 'fr', 'en-GB, ar;q=0.8', 'de'];
const PUBLIC_URL = 'https://maqam.example/base';

const range = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => `${prefix}-${i + 1}`);
const FIXTURE_SONGS = ['song-ar', 'song-en', 'song-withdrawn', 'no-such-song'];

/** The golden file of each locale: locales that resolve to the same chain share one. */
const GOLDEN_FILE: Record<string, string> = {
  '(none)': 'ar', ar: 'ar', de: 'ar', en: 'en', 'en-GB, ar;q=0.8': 'en', fr: 'fr',
};
const GOLDEN_DIR = join(import.meta.dirname, 'golden');
const RECORD = process.env.MAQAM_RECORD_GOLDEN === '1';

describe.each(dialects.map((d) => [d.name, d] as const))('catalog answers on %s', (_name, dialect) => {
  let database: { url: string; drop(): Promise<void> };
  let storage: Storage;
  let app: FastifyInstance;
  let apiKey: string;
  beforeAll(async () => {
    database = await dialect.create();
    storage = openStorage(database.url);
    await prepareDatabase(storage);
    const dir = mkdtempSync(join(tmpdir(), 'maqam-golden-'));
    const outcome = await importNdjsonFile(storage, writeNdjson(dir, 'catalog.ndjson', fixtureRecords()));
    rmSync(dir, { recursive: true, force: true });
    expect(outcome.errors).toEqual([]);
    await seedDemoCatalog(storage, { songs: DEMO_SONGS });
    const config = loadConfig({ DATABASE_URL: database.url, MAQAM_SECRET: 'x'.repeat(40), MAQAM_PUBLIC_URL: PUBLIC_URL, MAQAM_RATE_LIMIT: '0' });
    app = await buildApp({ config, storage, logger: false });
    apiKey = (await createApiKeysService(createApiKeysRepo(storage.db)).create({ name: 'golden' })).key;
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    await storage?.close();
    await database?.drop();
  });

  /** Every answer of one pass, in order: per locale, a `METHOD URL STATUS` line and a body line for each request. */
  async function pass(): Promise<Record<string, string[]>> {
    const answers: Record<string, string[]> = {};
    for (const locale of LOCALES) {
      const headers = locale === '' ? {} : { 'accept-language': locale };
      const lines: string[] = [];
      const take = async (method: 'GET' | 'POST', url: string, body?: unknown) => {
        const options: InjectOptions = { method, url, headers: { ...headers, 'x-api-key': apiKey } };
        if (body !== undefined) Object.assign(options, { payload: JSON.stringify(body), headers: { ...options.headers, 'content-type': 'application/json' } });
        const res = await app.inject(options);
        lines.push(`${method} ${url} ${res.statusCode}`, res.body);
      };
      const songs = [...FIXTURE_SONGS, ...range('song', DEMO_SONGS)];
      for (let i = 0; i < songs.length; i += 100) {
        await take('POST', '/v1/music/songs:batchGet', { songIdList: songs.slice(i, i + 100).map((value) => ({ value })) });
      }
      for (const id of ['song-ar', 'song-1', 'song-77', 'song-1500']) await take('GET', `/v1/music/songs/${id}`);
      const albums = range('album', DEMO_ALBUMS);
      for (let i = 0; i < albums.length; i += 50) {
        await take('POST', '/v1/music/albums:batchGet', { albumIdList: albums.slice(i, i + 50).map((value) => ({ value })) });
      }
      await take('POST', '/v1/music/artists:batchGet', { artistIdList: range('artist', DEMO_ARTISTS).map((value) => ({ value })) });
      for (const album of ['album-1', 'album-2', 'album-150']) await take('GET', `/v1/music/albums/${album}/tracks?pageSize=50`);
      for (const artist of ['artist-1', 'artist-60']) await take('GET', `/v1/music/artists/${artist}/top-tracks`);
      answers[locale || '(none)'] = lines;
    }
    return answers;
  }

  /** Each locale's answers against its golden file: the first request that differs, its bodies compared as JSON. */
  function expectGolden(answers: Record<string, string[]>): void {
    for (const [locale, lines] of Object.entries(answers)) {
      const file = join(GOLDEN_DIR, `${GOLDEN_FILE[locale]}.txt`);
      const golden = readFileSync(file, 'utf8').split('\n').slice(0, -1);
      for (let i = 0; i < Math.max(lines.length, golden.length); i += 2) {
        const request = `${locale}: ${lines[i] ?? golden[i]} (${file}, line ${i + 1})`;
        expect(lines[i], request).toBe(golden[i]);
        if (lines[i + 1] !== golden[i + 1]) expect(JSON.parse(lines[i + 1]!), request).toEqual(JSON.parse(golden[i + 1]!));
        expect(lines[i + 1], `${request}: the same JSON, other bytes`).toBe(golden[i + 1]);
      }
    }
  }

  it('answers exactly what it answered before, cold and from the cache', async () => {
    const cold = await pass();
    // The cache admits a fragment the second time it is asked for (fragment-cache.ts): the third pass reads it.
    const seenOnce = await pass();
    const cached = await pass();
    expect(seenOnce).toEqual(cold);
    expect(cached).toEqual(cold);
    if (RECORD) {
      mkdirSync(GOLDEN_DIR, { recursive: true });
      for (const [locale, file] of Object.entries(GOLDEN_FILE)) writeFileSync(join(GOLDEN_DIR, `${file}.txt`), `${cold[locale]!.join('\n')}\n`);
    }
    expectGolden(cold);
  }, 180_000);
});
