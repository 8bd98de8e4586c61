import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildApp, createApiKeysRepo, createApiKeysService, loadConfig, prepareDatabase, openStorage, seedDemoCatalog, seededRandom, type Storage } from '@maqam/server';
import { dialects } from '../dialects.ts';

/**
 * Regression (issue 8, item 1): on PostgreSQL, BatchGetSongs answered invalid
 * JSON and other songs' data under load with a small cache, because cache
 * entries found before the database read were evicted and reused by other
 * requests (or cleared by the catalog watcher) before they were copied.
 * Many concurrent requests over a catalog much larger than the cache, with
 * catalog changes clearing it meanwhile; every byte of every answer is
 * checked against the same ids rendered by a server without a cache.
 */
const SONGS = 20_000;
const POOL = 3_000;
const WORKERS = 32;
const REQUESTS_PER_WORKER = 40;
const IDS_PER_REQUEST = 50;
const LOCALES = ['ar', 'en'] as const;
/** Pipelined on one connection that reads nothing until the rest is done: about 20 MB of answers, more than loopback buffers hold. */
const SLOW_REQUESTS = 300;

/** Answers between two catalog changes while the load runs. */
const ANSWERS_PER_CHANGE = 40;

/** Word of catalog changes within this process: the test tells the server of each change it makes, as an import does through Redis. */
function inProcessCatalogChanges(): Storage['catalogChanges'] {
  const listeners = new Set<() => void>();
  return {
    announce: async () => {
      for (const listener of listeners) listener();
    },
    listen: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close: async () => {},
  };
}

/** A repeatable stream of numbers in [0, 1). */
const randomFrom = (seed: number) => seededRandom(seed).next;

describe.each(dialects.map((d) => [d.name, d] as const))('BatchGetSongs under concurrency with a small cache on %s', (_name, dialect) => {
  let database: { url: string; drop(): Promise<void> };
  let storage: Storage;
  let reference: FastifyInstance;
  let loaded: FastifyInstance;
  let baseUrl: string;
  let credential: string;
  const pool: string[] = [];
  /** Per locale, per id: the exact bytes of its SongResult (or per-item error) as a cacheless server renders them. */
  const expected = new Map<string, Map<string, string>>();
  const catalogChanges = inProcessCatalogChanges();

  beforeAll(async () => {
    database = await dialect.create();
    storage = openStorage(database.url);
    await prepareDatabase(storage);
    await seedDemoCatalog(storage, { songs: SONGS, video: false });
    const env = { DATABASE_URL: database.url, MAQAM_SECRET: 'x'.repeat(40), MAQAM_RATE_LIMIT: '0' };
    reference = await buildApp({ config: loadConfig({ ...env, MAQAM_SONG_CACHE_MB: '0' }), storage, logger: false });
    loaded = await buildApp({ config: loadConfig({ ...env, MAQAM_SONG_CACHE_MB: '1' }), storage: { ...storage, catalogChanges }, logger: false });
    baseUrl = await loaded.listen({ port: 0, host: '127.0.0.1' });

    const random = randomFrom(7);
    const chosen = new Set<string>();
    while (chosen.size < POOL) chosen.add(`song-${1 + Math.floor(random() * SONGS)}`);
    pool.push(...chosen, ...Array.from({ length: 100 }, (_, i) => `missing-${i}`));
    const keys = createApiKeysService(createApiKeysRepo(storage.db));
    credential = (await keys.create({ name: 'load' })).key;
    for (const locale of LOCALES) {
      const fragments = new Map<string, string>();
      for (let start = 0; start < pool.length; start += 100) {
        const chunk = pool.slice(start, start + 100);
        const res = await reference.inject({
          method: 'POST',
          url: '/v1/music/songs:batchGet',
          headers: { 'content-type': 'application/json', 'accept-language': locale, 'x-api-key': credential },
          payload: { songIdList: chunk.map((value) => ({ value })) },
        });
        // Cut the answer at its keys, which come in request order; a key's text never occurs inside a fragment.
        let at = '{"results":{'.length;
        chunk.forEach((id, i) => {
          const key = `${JSON.stringify(id)}:`;
          expect(res.body.startsWith(key, at)).toBe(true);
          const next = i + 1 < chunk.length ? res.body.indexOf(`,${JSON.stringify(chunk[i + 1])}:{`, at) : res.body.length - 2;
          fragments.set(id, res.body.slice(at + key.length, next));
          at = next + 1;
        });
        expect(JSON.parse(res.body)).toEqual(JSON.parse(`{"results":{${chunk.map((id) => `${JSON.stringify(id)}:${fragments.get(id)}`).join(',')}}}`));
      }
      expected.set(locale, fragments);
    }
  }, 180_000);

  /** The exact BatchGetSongs answer for these ids in this locale: each id once, in first-seen order. */
  function expectedAnswer(locale: (typeof LOCALES)[number], ids: readonly string[]): string {
    const fragments = expected.get(locale)!;
    return `{"results":{${[...new Set(ids)].map((id) => `${JSON.stringify(id)}:${fragments.get(id)}`).join(',')}}}`;
  }

  afterAll(async () => {
    await loaded?.close();
    await reference?.close();
    await storage?.close();
    await database?.drop();
  });

  /**
   * WORKERS clients, each making REQUESTS_PER_WORKER requests drawn from its
   * own seeded stream, while the catalog version keeps changing: every
   * ANSWERS_PER_CHANGE answers it changes and the server is told, which
   * makes its watcher clear the caches while requests are in flight.
   * `request` makes one request and answers what was wrong with it, or null.
   */
  async function loadWhileCatalogChurns(seedBase: number, request: (pick: () => number) => Promise<string | null>) {
    // One change at a time, in the order the answers called for them.
    let changes = Promise.resolve();
    let changed = 0;
    const changeCatalog = () => {
      changes = changes.then(async () => {
        await storage.db.updateTable('settings').set({ value: randomUUID() }).where('key', '=', 'catalog_version').execute();
        await catalogChanges.announce();
        changed++;
      });
    };
    const mismatches: string[] = [];
    let answers = 0;
    const worker = async (seed: number) => {
      const pick = randomFrom(seed);
      for (let n = 0; n < REQUESTS_PER_WORKER; n++) {
        const mismatch = await request(pick);
        if (++answers % ANSWERS_PER_CHANGE === 0) changeCatalog();
        if (mismatch !== null) mismatches.push(mismatch);
      }
    };
    await Promise.all(Array.from({ length: WORKERS }, (_, i) => worker(seedBase + i)));
    await changes;
    expect(changed).toBe(Math.floor((WORKERS * REQUESTS_PER_WORKER) / ANSWERS_PER_CHANGE));
    return { answers, mismatches };
  }

  it('answers every request byte for byte, while other requests and catalog changes churn the cache', async () => {
    const { answers, mismatches } = await loadWhileCatalogChurns(100, async (random) => {
      const locale = LOCALES[Math.floor(random() * LOCALES.length)]!;
      const ids = Array.from({ length: IDS_PER_REQUEST }, () => pool[Math.floor(random() * pool.length)]!);
      const res = await fetch(`${baseUrl}/v1/music/songs:batchGet`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'accept-language': locale, 'x-api-key': credential },
        body: JSON.stringify({ songIdList: ids.map((value) => ({ value })) }),
      });
      const body = await res.text();
      return res.status !== 200 || body !== expectedAnswer(locale, ids) ? `${res.status} ${locale} ${body.slice(0, 200)}` : null;
    });
    expect(answers).toBe(WORKERS * REQUESTS_PER_WORKER);
    expect(mismatches.slice(0, 3)).toEqual([]);
    expect(mismatches.length).toBe(0);
  }, 180_000);

  // The other cached kinds (albums, artists) and the lists and search built from the same fragments.
  it('answers albums, artists, their lists and search byte for byte under the same churn', async () => {
    const random = randomFrom(11);
    const urls: string[] = [];
    for (let i = 0; i < 150; i++) {
      const album = `album-${1 + Math.floor(random() * (SONGS / 10))}`;
      const artist = `artist-${1 + Math.floor(random() * (SONGS / 25))}`;
      urls.push(`/v1/music/albums/${album}`, `/v1/music/albums/${album}/tracks?page_size=100`, `/v1/music/artists/${artist}`,
        `/v1/music/artists/${artist}/top-tracks`, `/v1/music/artists/${artist}/albums?page_size=100`);
    }
    urls.push(...['حبيبي', 'Habibi', 'يا ليل', 'nour el', 'Sahrn', '3amr'].map((q) => `/v1/search?${new URLSearchParams({ q, page_size: '30' })}`));
    // Page tokens are sealed with a fresh nonce each time: compared by whether there is one, not by their bytes.
    const withoutToken = (body: string) => body.replace(/"nextPageToken":"[^"]+"/, '"nextPageToken":"(a token)"');
    const want = new Map<string, string>();
    for (const locale of LOCALES) {
      for (const url of urls) {
        const res = await reference.inject({ method: 'GET', url, headers: { 'accept-language': locale, 'x-api-key': credential } });
        expect(res.statusCode, url).toBe(200);
        want.set(`${locale} ${url}`, withoutToken(res.body));
      }
    }

    const { answers, mismatches } = await loadWhileCatalogChurns(500, async (pick) => {
      const locale = LOCALES[Math.floor(pick() * LOCALES.length)]!;
      const url = urls[Math.floor(pick() * urls.length)]!;
      const res = await fetch(`${baseUrl}${url}`, { headers: { 'accept-language': locale, 'x-api-key': credential } });
      const body = withoutToken(await res.text());
      return res.status !== 200 || body !== want.get(`${locale} ${url}`) ? `${res.status} ${locale} ${url} ${body.slice(0, 160)}` : null;
    });
    expect(answers).toBe(WORKERS * REQUESTS_PER_WORKER);
    expect(mismatches.slice(0, 3)).toEqual([]);
    expect(mismatches.length).toBe(0);
  }, 180_000);

  /**
   * Batch* answers are written from blocks of memory that are reused once
   * their response has closed. A client that stops reading leaves the
   * server holding answers it could not write yet, while other requests
   * take and give back blocks: the slow client's bytes must not change
   * under it.
   */
  it('answers a client that stops reading byte for byte, while other requests reuse answer memory', async () => {
    const random = randomFrom(900);
    const draw = () => [...new Set(Array.from({ length: 100 }, () => pool[Math.floor(random() * pool.length)]!))];
    const { hostname, port } = new URL(baseUrl);
    const requestText = (ids: string[]) => {
      const body = JSON.stringify({ songIdList: ids.map((value) => ({ value })) });
      return `POST /v1/music/songs:batchGet HTTP/1.1\r\nHost: ${hostname}:${port}\r\nContent-Type: application/json\r\n` +
        `Accept-Language: ar\r\nX-Api-Key: ${credential}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    };

    const slowIds = Array.from({ length: SLOW_REQUESTS }, draw);
    const slow = connect(Number(port), hostname);
    await once(slow, 'connect');
    slow.pause();
    slow.write(slowIds.map(requestText).join(''));

    // Meanwhile, answers of other ids on other connections.
    const mismatches: string[] = [];
    await Promise.all(Array.from({ length: WORKERS }, async () => {
      for (let n = 0; n < 20; n++) {
        const ids = draw();
        const res = await fetch(`${baseUrl}/v1/music/songs:batchGet`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'accept-language': 'ar', 'x-api-key': credential },
          body: JSON.stringify({ songIdList: ids.map((value) => ({ value })) }),
        });
        if ((await res.text()) !== expectedAnswer('ar', ids)) mismatches.push(`other connection, ${res.status}`);
      }
    }));

    // Now read the slow connection's answers: HTTP/1.1 responses one after another, framed by Content-Length.
    const bodies: string[] = [];
    let pending = Buffer.alloc(0);
    const done = new Promise<void>((resolve, reject) => {
      slow.on('error', reject);
      slow.on('data', (chunk: Buffer) => {
        pending = Buffer.concat([pending, chunk]);
        for (;;) {
          const end = pending.indexOf('\r\n\r\n');
          if (end === -1) break;
          const head = pending.toString('latin1', 0, end);
          const length = Number(/content-length: (\d+)/i.exec(head)?.[1]);
          if (pending.length < end + 4 + length) break;
          if (!head.startsWith('HTTP/1.1 200')) mismatches.push(`slow connection: ${head.split('\r\n')[0]}`);
          bodies.push(pending.toString('utf8', end + 4, end + 4 + length));
          pending = pending.subarray(end + 4 + length);
        }
        if (bodies.length === SLOW_REQUESTS) resolve();
      });
    });
    slow.resume();
    await done;
    slow.destroy();
    bodies.forEach((body, i) => {
      if (body !== expectedAnswer('ar', slowIds[i]!)) mismatches.push(`slow connection, answer ${i}: ${body.slice(0, 120)}`);
    });
    expect(mismatches.slice(0, 3)).toEqual([]);
    expect(mismatches.length).toBe(0);
  }, 180_000);
});
