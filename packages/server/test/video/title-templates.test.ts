import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ImportRecord } from '@maqam/contract';
import { prepareDatabase } from '@maqam/server';
import { dialects } from '../dialects.ts';
import { secondNode, startTestServer, type TestServer } from '../harness.ts';
import { importRecords, videoFixtureRecords } from './video-fixtures.ts';

/**
 * Films and episodes answer from templates stored with their rows
 * (video/title-template.ts): these tests read them with no fragment cache,
 * so every answer is a template expanded, and compare it with what the
 * same catalog answered before, through a rebuild, a season renumbered and
 * a template of another format.
 */
describe.each(dialects.map((d) => [d.name, d] as const))('video title templates on %s', (_name, dialect) => {
  let server: TestServer;
  // A film whose artwork and cast portrait are the server's own: their URLs are filled in per request.
  const framed: ImportRecord = {
    kind: 'movie', id: 'movie-framed', title: { ar: 'إطار', en: 'Frame' }, originalLanguage: 'ar', ageRating: 'AGE_RATING_ALL', releaseDate: '2022-02-02', durationMs: 60_000,
    artwork: [{ url: '/v1/artwork/movie-framed.svg', width: 600, height: 900 }],
    cast: [{ id: 'p-9', name: { ar: 'سعاد حسني', fr: 'Souad Hosni' }, role: 'Zouzou', profileImageUrl: '/v1/artwork/p-9.svg' }],
  };
  const movieIds = [...videoFixtureRecords().filter((r) => r.kind === 'movie').map((r) => r.id), framed.id];
  const episodeIds = videoFixtureRecords().filter((r) => r.kind === 'episode').map((r) => r.id);

  /** Every film and episode, batched and one by one, in English and Arabic, from a node with no fragment cache. */
  async function answers(): Promise<{ status: number; body: string }[]> {
    const node = await secondNode(server, { MAQAM_SONG_CACHE_MB: '0', MAQAM_PUBLIC_URL: 'https://cdn.example/ماقم "x"' });
    try {
      const out: { status: number; body: string }[] = [];
      for (const locale of ['en', 'ar-EG', 'fr']) {
        const headers = { 'x-api-key': server.apiKey, 'accept-language': locale };
        for (const [url, member, ids] of [['/v1/video/movies:batchGet', 'movieIdList', movieIds], ['/v1/video/episodes:batchGet', 'episodeIdList', episodeIds]] as const) {
          const res = await node.app.inject({ method: 'POST', url, headers, payload: { [member]: ids.map((value) => ({ value })) } });
          out.push(pick(res));
        }
        for (const id of movieIds) out.push(pick(await node.app.inject({ method: 'GET', url: `/v1/video/movies/${id}`, headers })));
        for (const id of episodeIds) out.push(pick(await node.app.inject({ method: 'GET', url: `/v1/video/episodes/${id}`, headers })));
      }
      return out;
    } finally {
      await node.close();
    }
  }
  /** An answer without its request id, which every error names. */
  const pick = (res: { statusCode: number; body: string }) => ({ status: res.statusCode, body: res.body.replace(/,"requestId":"[^"]*"/, '') });

  beforeAll(async () => {
    server = await startTestServer(dialect);
    expect((await importRecords(server.storage, [...videoFixtureRecords(), framed])).errors).toEqual([]);
  }, 60_000);
  afterAll(async () => server?.close());

  it('answers every title as its row says, the public URL filled in escaped, names and texts by locale', async () => {
    const all = await answers();
    expect(all.map((a) => a.status).filter((status) => status !== 200 && status !== 404)).toEqual([]);
    const movie = JSON.parse(all[0]!.body).results['movie-all'].movie;
    expect(movie).toEqual({
      id: { value: 'movie-all' }, title: { value: 'Desert Journey', originalValue: 'رحلة الصحراء' }, genres: [], ageRating: 'AGE_RATING_ALL',
      originalLanguage: 'ar', releaseDate: '2023-06-01', durationMs: 5_400_000,
      cast: [{ id: 'person-1', name: { value: 'Mona Zaki', originalValue: 'منى زكي' }, role: 'سلمى', profileImageUrl: '', isLead: true }],
      artwork: [], audioLanguages: ['ar', 'en'], subtitleLanguages: ['en'], creditsStartMs: 5_100_000,
    });
    const episodes = JSON.parse(all[1]!.body).results;
    expect(episodes['ep-d1-1'].episode).toMatchObject({ showId: { value: 'show-drama' }, seasonId: { value: 'season-drama-1' }, seasonNumber: 1, episodeNumber: 1 });
    expect(episodes['ep-d1-6']).toMatchObject({ error: { code: 'ERROR_CODE_NOT_FOUND' } });
    expect(JSON.parse(all[0]!.body).results['movie-framed'].movie).toMatchObject({
      artwork: [{ url: 'https://cdn.example/ماقم "x"/v1/artwork/movie-framed.svg' }],
      cast: [{ name: { value: 'سعاد حسني', originalValue: 'سعاد حسني' }, profileImageUrl: 'https://cdn.example/ماقم "x"/v1/artwork/p-9.svg', isLead: false }],
    });
    const french = all.find((a) => a.body.includes('"results"') && a.body.includes('"value":"Souad Hosni"'));
    expect(french).toBeDefined();
    // Arabic: the first locale in the chain the texts have.
    const arabic = all.find((a) => a.body.includes('"movie-all"') && a.body.includes('"results"') && a.body.includes('"value":"رحلة الصحراء"'));
    expect(arabic).toBeDefined();
  });

  it('rebuilds the templates of a catalog written before them, to the same answers; until then a title answers 503, never a wrong body', async () => {
    const before = await answers();
    const { db } = server.storage;
    for (const table of ['movies', 'episodes'] as const) await db.updateTable(table).set({ template: null }).execute();
    await db.deleteFrom('settings').where('key', '=', 'format:video-title-templates').execute();

    const unbuilt = await answers();
    const bodiesOfFound = unbuilt.filter((a) => a.status !== 404);
    expect(bodiesOfFound.length).toBeGreaterThan(0);
    for (const answer of bodiesOfFound) {
      expect(answer.status).toBe(503);
      expect(JSON.parse(answer.body)).toMatchObject({ code: 'ERROR_CODE_UNAVAILABLE' });
    }

    const prepared = await prepareDatabase(server.storage);
    expect(prepared.rebuilt).toContain('video-title-templates');
    expect(await answers()).toEqual(before);
    expect((await prepareDatabase(server.storage)).rebuilt).toEqual([]);
  });

  it('refuses a template of another format with a 503', async () => {
    const { db } = server.storage;
    const stored = await db.selectFrom('movies').select('template').where('id', '=', 'movie-all').executeTakeFirstOrThrow();
    const foreign = Buffer.from(stored.template!);
    foreign.writeUInt32LE((foreign.readUInt32LE(0) + 1) >>> 0, 0);
    await db.updateTable('movies').set({ template: foreign }).where('id', '=', 'movie-all').execute();
    try {
      const node = await secondNode(server, { MAQAM_SONG_CACHE_MB: '0' });
      try {
        const res = await node.app.inject({ method: 'GET', url: '/v1/video/movies/movie-all', headers: { 'x-api-key': server.apiKey } });
        expect(res.statusCode, res.body).toBe(503);
        const other = await node.app.inject({ method: 'GET', url: '/v1/video/movies/movie-unrated', headers: { 'x-api-key': server.apiKey } });
        expect(other.statusCode, other.body).toBe(200);
      } finally {
        await node.close();
      }
    } finally {
      await db.updateTable('movies').set({ template: stored.template }).where('id', '=', 'movie-all').execute();
    }
  });

  it("answers an episode with its season's number and show as they are now, not as they were when the episode was imported", async () => {
    const outcome = await importRecords(server.storage, [
      { kind: 'season', id: 'season-drama-1', showId: 'show-doc', seasonNumber: 7, title: { ar: 'الموسم السابع', en: 'Season 7' }, originalLanguage: 'ar' },
    ]);
    expect(outcome.errors).toEqual([]);
    const node = await secondNode(server, { MAQAM_SONG_CACHE_MB: '0' });
    try {
      const res = await node.app.inject({ method: 'GET', url: '/v1/video/episodes/ep-d1-2', headers: { 'x-api-key': server.apiKey } });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().episode).toMatchObject({ showId: { value: 'show-doc' }, seasonId: { value: 'season-drama-1' }, seasonNumber: 7, episodeNumber: 2 });
    } finally {
      await node.close();
    }
  });
});
