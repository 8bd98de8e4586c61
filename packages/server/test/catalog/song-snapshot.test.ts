import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import type { ArtistRecord, ImportRecord, SongRecord } from '@maqam/contract';
import {
  buildApp, createApiKeysRepo, createApiKeysService, generateDemoCatalog, loadConfig, migrateToLatest, openStorage, runImport, seededRandom, snapshotHash,
  type Storage,
} from '@maqam/server';
import { dialects } from '../dialects.ts';

/**
 * The song snapshot (catalog/song-snapshot.ts): songs the cache lacks are
 * read from a copy of their templates in a file of its own, on SQLite. With
 * no cache, every id of every request goes through it, and each answer must
 * be byte for byte what a server reading the database answers: for ids
 * found and not, two ids whose hashes collide, many requests at once, and
 * after an import changed the catalog. PostgreSQL never builds one.
 *
 * The snapshot holds each song's answer rendered in the usual chains (no
 * Accept-Language, and each catalog language: `ar`, `en` and `fr` here);
 * `fr, en` is none of them, so its answers are expanded from the templates.
 */
const SONGS = 2_000;
const HASH_SEED = 20261125;
const LOCALES = ['ar', 'en', 'fr', 'fr, en'] as const;

/** Two song ids of the same snapshot hash under HASH_SEED, found by trying ids until two meet. */
function collidingIds(prefix: string): [string, string] {
  const seen = new Map<number, string>();
  for (let n = 0; ; n++) {
    const id = `${prefix}${n}`;
    const hash = snapshotHash(HASH_SEED, id);
    const other = seen.get(hash);
    if (other !== undefined) return [other, id];
    seen.set(hash, id);
  }
}

describe.each(dialects.map((d) => [d.name, d] as const))('BatchGetSongs through the song snapshot on %s', (name, dialect) => {
  let database: { url: string; drop(): Promise<void> };
  let storage: Storage;
  /** Reads the database for every song: the answers to match. */
  let reference: FastifyInstance;
  /** No cache and a snapshot of any catalog, built as soon as the catalog is quiet for one poll. */
  let snapshotted: FastifyInstance;
  /** The same with a cache of 1 MB: answers mix hits with misses read straight into them, and misses evict hits. */
  let cached: FastifyInstance;
  let credential: string;
  /** The servers' settings. */
  let env: Record<string, string>;
  let url: string;
  let cachedUrl: string;
  const records: ImportRecord[] = [...generateDemoCatalog({ songs: SONGS, seed: 3 })];
  const collisions = collidingIds('song-collides-');
  /** Of a second such pair only the first is a song: the other's one slot of its hash is its twin's. */
  const [twin, absentTwin] = collidingIds('song-twin-');
  /** Ids whose batch result key is not their characters: the snapshot's key check takes its slower path for them. */
  const oddIds = ['song-"quoted"', 'song-back\\slash', 'أغنية-٧', 'song-é-ü'];
  const songIds = records.filter((r): r is SongRecord => r.kind === 'song').map((r) => r.id);
  /** A song past the snapshot's 16-bit lengths in every part: twenty artwork URLs of 4,000 characters, in its template and in each answer. */
  const longSong = (template: SongRecord): SongRecord => ({
    ...template,
    id: 'song-long',
    artwork: Array.from({ length: 20 }, (_, i) => ({ url: `https://images.example/${i}/${'a'.repeat(4000)}.jpg`, width: 600, height: 600 })),
  });
  const allIds = [...songIds, ...collisions, twin, ...oddIds, 'song-long', 'song-missing-1', 'song-missing-2', 'song-"missing"', 'أغنية-٨', absentTwin];

  const write = (batch: ImportRecord[]) => runImport(storage, (writeBatch) => writeBatch(batch.map((record, i) => ({ line: i + 1, record }))));

  beforeAll(async () => {
    database = await dialect.create();
    storage = openStorage(database.url);
    await migrateToLatest(storage);
    const template = records.find((r): r is SongRecord => r.kind === 'song')!;
    await write([
      ...records,
      ...[...collisions, twin].map((id, i): SongRecord => ({ ...template, id, title: { en: `Collision ${i}` }, originalLanguage: 'en' })),
      ...oddIds.map((id, i): SongRecord => ({ ...template, id, title: { en: `Odd ${i}` }, originalLanguage: 'en' })),
      longSong(template),
    ]);
    credential = (await createApiKeysService(createApiKeysRepo(storage.db)).create({ name: 'snapshot' })).key;
    // A public URL of its own: rendered answers hold it (the demo's artwork URLs are relative).
    env = {
      DATABASE_URL: database.url, MAQAM_SECRET: 'x'.repeat(40), MAQAM_RATE_LIMIT: '0', MAQAM_SONG_CACHE_MB: '0', MAQAM_PUBLIC_URL: 'https://cdn.maqam.example/v2',
    };
    reference = await buildApp({ config: loadConfig({ ...env, MAQAM_SONG_SNAPSHOT: 'off' }), storage, logger: false });
    snapshotted = await buildApp({ config: loadConfig(env), storage, logger: false, songSnapshot: { minSongs: 0, quietPolls: 0, hashSeed: HASH_SEED } });
    url = await snapshotted.listen({ port: 0, host: '127.0.0.1' });
    cached = await buildApp({ config: loadConfig({ ...env, MAQAM_SONG_CACHE_MB: '1' }), storage, logger: false, songSnapshot: { minSongs: 0, quietPolls: 0, hashSeed: HASH_SEED } });
    cachedUrl = await cached.listen({ port: 0, host: '127.0.0.1' });
  }, 120_000);

  afterAll(async () => {
    await snapshotted?.close();
    await cached?.close();
    await reference?.close();
    await storage?.close();
    await database?.drop();
  });

  const batchGet = (app: FastifyInstance, ids: readonly string[], locale: string) =>
    app.inject({
      method: 'POST',
      url: '/v1/music/songs:batchGet',
      headers: { 'content-type': 'application/json', 'accept-language': locale, 'x-api-key': credential },
      payload: { songIdList: ids.map((value) => ({ value })) },
    });

  it('answers two missed ids of the same cache hash each with its own answer', async () => {
    // A new cache, whose first locale chain (number 0) hashes as the snapshot does: twin and absentTwin collide in it
    // too. Both missed, they are told apart by their ids, not taken for one id asked twice.
    const fresh = await buildApp({
      config: loadConfig({ ...env, MAQAM_SONG_CACHE_MB: '1', MAQAM_SONG_SNAPSHOT: 'off' }), storage, logger: false, fragmentCacheHashSeed: HASH_SEED,
    });
    try {
      const ids = [twin, absentTwin, twin, absentTwin];
      const [want, got] = await Promise.all([batchGet(reference, ids, 'ar'), batchGet(fresh, ids, 'ar')]);
      expect(got.statusCode).toBe(200);
      expect(got.body).toBe(want.body);
      expect(Object.keys(JSON.parse(got.body).results)).toEqual([twin, absentTwin]);
      expect(JSON.parse(got.body).results[absentTwin].error.code).toBe('ERROR_CODE_NOT_FOUND');
    } finally {
      await fresh.close();
    }
  });

  /** A gauge of the snapshot, from /metrics. */
  async function gauge(metric: 'maqam_song_snapshot_songs' | 'maqam_song_snapshot_rendered_chains', app = snapshotted): Promise<number> {
    const metrics = (await app.inject({ method: 'GET', url: '/metrics' })).body;
    return Number(new RegExp(`^${metric} (\\S+)$`, 'm').exec(metrics)![1]);
  }

  /** Songs in the snapshot (0 while there is none). */
  const snapshotSongs = (app = snapshotted) => gauge('maqam_song_snapshot_songs', app);

  /** Polls until the snapshot holds `songs` songs (the watch polls every second; a build takes well under one here). */
  async function snapshotOf(songs: number, app = snapshotted): Promise<void> {
    const deadline = Date.now() + 30_000;
    while ((await snapshotSongs(app)) !== songs) {
      if (Date.now() > deadline) throw new Error(`the snapshot holds ${await snapshotSongs(app)} songs, not ${songs}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Every id in requests of 100, in every locale: the two servers' answers, which must be the same bytes. */
  async function expectSameAnswers(ids: readonly string[]): Promise<void> {
    for (const locale of LOCALES) {
      for (let start = 0; start < ids.length; start += 100) {
        const chunk = ids.slice(start, start + 100);
        const [want, got] = await Promise.all([batchGet(reference, chunk, locale), batchGet(snapshotted, chunk, locale)]);
        expect(got.statusCode).toBe(200);
        expect(got.body).toBe(want.body);
      }
    }
  }

  it(name === 'sqlite' ? 'holds every song once the catalog is quiet' : 'has none: PostgreSQL nodes read the database', async () => {
    if (name === 'sqlite') {
      await snapshotOf(SONGS + collisions.length + 1 + oddIds.length + 1);
      await snapshotOf(SONGS + collisions.length + 1 + oddIds.length + 1, cached);
    }
    else expect(await snapshotSongs()).toBe(0);
    // `ar` (also no Accept-Language), `en, ar` and `fr, ar`.
    expect(await gauge('maqam_song_snapshot_rendered_chains')).toBe(name === 'sqlite' ? 3 : 0);
  });

  it('answers every song, found or not, exactly as the database does', async () => {
    await expectSameAnswers(allIds);
  });

  it('tells apart two ids of the same hash', async () => {
    for (const locale of LOCALES) {
      const res = await batchGet(snapshotted, [collisions[1], 'song-missing-1', collisions[0]], locale);
      const results = JSON.parse(res.body).results;
      expect(results[collisions[0]].song.title.value).toBe('Collision 0');
      expect(results[collisions[1]].song.title.value).toBe('Collision 1');
      expect(results['song-missing-1'].error.code).toBe('ERROR_CODE_NOT_FOUND');
      expect(res.body).toBe((await batchGet(reference, [collisions[1], 'song-missing-1', collisions[0]], locale)).body);
      // An id not in the catalog whose hash is a song's: that song's slot is not its own, with or without the song beside it.
      for (const ids of [[absentTwin, songIds[0]!], [twin, absentTwin]]) {
        for (const app of [snapshotted, cached]) {
          const answer = await batchGet(app, ids, locale);
          expect(JSON.parse(answer.body).results[absentTwin].error.code).toBe('ERROR_CODE_NOT_FOUND');
          expect(answer.body).toBe((await batchGet(reference, ids, locale)).body);
        }
      }
    }
  });

  it.each([['without a cache', () => url], ['with a small cache', () => cachedUrl]] as const)('answers many requests at once, each with its own bytes, %s', async (_label, urlOf) => {
    const random = seededRandom(11).next;
    // Ids drawn from a few hundred often and from the rest seldom, so a cache holds some and misses others.
    const often = allIds.slice(0, 300);
    const bodies = Array.from({ length: 400 }, () => {
      const ids = new Set<string>();
      while (ids.size < 100) ids.add(random() < 0.6 ? often[Math.floor(random() * often.length)]! : allIds[Math.floor(random() * allIds.length)]!);
      return { ids: [...ids], locale: LOCALES[Math.floor(random() * LOCALES.length)]! };
    });
    const answers = new Array<string>(bodies.length);
    let next = 0;
    await Promise.all(Array.from({ length: 32 }, async () => {
      while (next < bodies.length) {
        const n = next++;
        const res = await fetch(`${urlOf()}/v1/music/songs:batchGet`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'accept-language': bodies[n]!.locale, 'x-api-key': credential },
          body: JSON.stringify({ songIdList: bodies[n]!.ids.map((value) => ({ value })) }),
        });
        answers[n] = await res.text();
      }
    }));
    for (let n = 0; n < bodies.length; n++) expect(answers[n]).toBe((await batchGet(reference, bodies[n]!.ids, bodies[n]!.locale)).body);
  });

  it('follows an import: drops the snapshot of the old catalog and builds one of the new', async () => {
    const songs = records.filter((r): r is SongRecord => r.kind === 'song');
    const renamed: SongRecord = { ...songs[5]!, title: { ...songs[5]!.title, en: 'Renamed by a later import' } };
    const withdrawn: SongRecord = { ...songs[6]!, withdrawn: true };
    // An artist renamed: every answer that credits them changes, though their songs were not imported again.
    const artist = records.find((r): r is ArtistRecord => r.kind === 'artist' && r.id === songs[7]!.artistIds[0])!;
    const renamedArtist: ArtistRecord = { ...artist, name: { ...artist.name, en: 'Renamed Artist', fr: 'Artiste renommé' } };
    await write([renamed, withdrawn, renamedArtist]);
    // PostgreSQL: read from the database, so at once.
    if (name === 'sqlite') await snapshotOf(SONGS + collisions.length + 1 + oddIds.length + 1 - 1);
    const res = await batchGet(snapshotted, [renamed.id, withdrawn.id], 'en');
    const results = JSON.parse(res.body).results;
    expect(results[renamed.id].song.title.value).toBe('Renamed by a later import');
    expect(results[withdrawn.id].error.code).toBe('ERROR_CODE_NOT_FOUND');
    // Artist names are kept in memory until each server's catalog watch sees the import (it polls every second).
    const creditedName = async (app: FastifyInstance) =>
      JSON.parse((await batchGet(app, [songs[7]!.id], 'fr')).body).results[songs[7]!.id].song.artists[0].name.value;
    for (const app of [snapshotted, reference]) {
      for (const deadline = Date.now() + 10_000; (await creditedName(app)) !== 'Artiste renommé' && Date.now() < deadline; ) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(await creditedName(app)).toBe('Artiste renommé');
    }
    await expectSameAnswers(allIds);
    if (name === 'postgres') expect(await snapshotSongs()).toBe(0);
  });
});
