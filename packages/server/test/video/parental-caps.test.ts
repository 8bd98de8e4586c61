import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPE_NAMES } from '@maqam/contract';
import { createClientsService, createUsersService } from '@maqam/server';
import { dialects } from '../dialects.ts';
import { startTestServer, type TestServer } from '../harness.ts';
import { REDIRECT, tokensFor } from '../oauth/oauth-helpers.ts';
import { importRecords, videoFixtureRecords } from './video-fixtures.ts';

interface Operation {
  readonly method: string;
  readonly path: string;
  readonly operationId: string;
}

/** Every id of the video fixtures, by the path parameter or batch member that names one of its kind. */
const IDS = {
  show_id: ['show-drama', 'show-doc', 'show-adult', 'show-unrated'],
  season_id: ['season-drama-1', 'season-drama-2', 'season-doc-1', 'season-adult-1'],
  episode_id: ['ep-d1-1', 'ep-d1-3', 'ep-d1-4', 'ep-d2-1', 'ep-doc-1', 'ep-adult-1'],
  movie_id: ['movie-all', 'movie-adult', 'movie-unrated'],
  song_id: ['song-ar', 'song-en', 'song-fr'],
} as const;
const BATCH_MEMBERS: Record<string, readonly string[]> = {
  showIdList: IDS.show_id, seasonIdList: IDS.season_id, episodeIdList: IDS.episode_id, movieIdList: IDS.movie_id, songIdList: IDS.song_id,
};
/**
 * What a viewer capped at AGE_RATING_13 must never receive: titles rated 18
 * or unrated (18), an episode of its own 16 in a show of 13, and the season
 * and episode of a show of 18. Their ids as the answers name items, and
 * their titles in every language.
 */
const HIDDEN_IDS = ['show-adult', 'show-unrated', 'movie-adult', 'movie-unrated', 'ep-d1-3', 'season-adult-1', 'ep-adult-1'];
const HIDDEN_TEXTS = ['City Shadows', 'ظلال المدينة', 'Desert Nights', 'The Long Night', 'الليل الطويل', 'Desert City', 'مدينة الصحراء'];
const QUERIES = ['ظلال', 'الليل', 'صحراء', 'desert', 'city', 'night', 'shadows', 'Mona', 'Zilal'];

/** What an answer holds of a hidden title: a rendered item's typed id, or a title text. */
function hiddenIn(body: string): string[] {
  return [...HIDDEN_IDS.filter((id) => body.includes(`{"value":${JSON.stringify(id)}}`)), ...HIDDEN_TEXTS.filter((text) => body.includes(text))];
}

/**
 * Issue 53, item 5: one parental rule for every surface. Every operation of
 * the OpenAPI document is called, with every id of the video fixtures where
 * it takes one (a path parameter, a batch), and Search with queries that
 * match the hidden titles, as a user capped at AGE_RATING_13 and as one
 * with no cap. The capped user's answers never hold a title above the cap;
 * the uncapped user's same calls do (so the walk reaches them); and Get of a
 * hidden title is the 404 an unknown id gets.
 */
describe.each(dialects.map((d) => [d.name, d] as const))('parental caps on %s', (_name, dialect) => {
  let server: TestServer;
  let capped: string;
  let uncapped: string;
  let operations: Operation[];

  beforeAll(async () => {
    server = await startTestServer(dialect, { MAQAM_RATE_LIMIT: '0' });
    expect((await importRecords(server.storage, videoFixtureRecords())).errors).toEqual([]);
    const users = createUsersService(server.storage.db);
    const client = await createClientsService(server.storage.db).create({ name: 'Family TV', redirectUris: [REDIRECT], scopes: [...SCOPE_NAMES] });
    for (const name of ['child', 'parent']) await users.create(name, 'صوت الموسيقى 123');
    await users.setMaxAgeRating('child', 'AGE_RATING_13');
    capped = (await tokensFor(server, client.clientId, 'child', SCOPE_NAMES.join(' '))).access_token;
    uncapped = (await tokensFor(server, client.clientId, 'parent', SCOPE_NAMES.join(' '))).access_token;
    const document = (await server.app.inject('/v1/openapi.json')).json() as { paths: Record<string, Record<string, { operationId: string }>> };
    operations = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => ({ method: method.toUpperCase(), path, operationId: operation.operationId })));
  }, 60_000);
  afterAll(async () => server?.close());

  /** Every call the walk makes of an operation: each id of the kind its path names, batches of every id, searches of the hidden titles' words. */
  function callsOf(operation: Operation): { url: string; payload?: string }[] {
    const params = [...operation.path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]!);
    let urls = [operation.path];
    for (const param of params) {
      const values = IDS[param as keyof typeof IDS] ?? ['x'];
      urls = urls.flatMap((url) => values.map((value) => url.replace(`{${param}}`, encodeURIComponent(value))));
    }
    if (operation.operationId === 'Search') urls = QUERIES.flatMap((q) => ['show,movie', 'show', 'movie'].map((types) => `/v1/search?q=${encodeURIComponent(q)}&types=${types}&page_size=100`));
    else if (operation.method === 'GET') urls = urls.map((url) => `${url}?page_size=100`);
    if (operation.method === 'GET' || operation.method === 'DELETE') return urls.map((url) => ({ url }));
    const member = Object.keys(BATCH_MEMBERS).find((name) => operation.operationId.startsWith('BatchGet') && operation.path.includes(name.replace('IdList', '').replace('movie', 'movie')));
    const payload = member === undefined ? '{}' : JSON.stringify({ [member]: BATCH_MEMBERS[member]!.map((value) => ({ value })) });
    return urls.map((url) => ({ url, payload }));
  }

  const call = (operation: Operation, request: { url: string; payload?: string }, token: string) => server.app.inject({
    method: operation.method as 'GET',
    url: request.url,
    headers: { authorization: `Bearer ${token}`, 'accept-language': 'en', ...(request.payload === undefined ? {} : { 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() }) },
    ...(request.payload === undefined ? {} : { payload: request.payload }),
  });

  it('never answers a capped user a title above the cap, on any operation, while the same calls reach them uncapped', async () => {
    const leaks: string[] = [];
    const reached = new Set<string>();
    let calls = 0;
    for (const operation of operations) {
      // Signing in and out answers no catalog item.
      if (operation.path.startsWith('/v1/auth/')) continue;
      for (const request of callsOf(operation)) {
        calls++;
        const res = await call(operation, request, capped);
        expect(res.statusCode, `${operation.operationId} ${request.url}: ${res.body.slice(0, 200)}`).toBeLessThan(500);
        for (const found of hiddenIn(res.body)) leaks.push(`${operation.operationId} ${request.url}: ${found}`);
        for (const found of hiddenIn((await call(operation, request, uncapped)).body)) reached.add(found);
      }
    }
    expect(leaks).toEqual([]);
    // Each operation once at least, each of GetShow's ids, and Search nine queries in three kinds.
    expect(calls).toBeGreaterThan(operations.length + IDS.show_id.length + 3 * QUERIES.length);
    expect([...reached].sort()).toEqual([...HIDDEN_IDS, ...HIDDEN_TEXTS].sort());
  });

  it('answers Get of a hidden title exactly as an unknown id, and a batch gives it a per-item NOT_FOUND', async () => {
    const withoutRequestId = (body: string) => ({ ...JSON.parse(body), requestId: undefined });
    for (const [kind, id] of [['shows', 'show-adult'], ['movies', 'movie-unrated'], ['episodes', 'ep-d1-3'], ['seasons', 'season-adult-1'], ['episodes', 'ep-adult-1']] as const) {
      const hidden = await server.app.inject({ method: 'GET', url: `/v1/video/${kind}/${id}`, headers: { authorization: `Bearer ${capped}` } });
      const unknown = await server.app.inject({ method: 'GET', url: `/v1/video/${kind}/${id}-none`, headers: { authorization: `Bearer ${capped}` } });
      expect(hidden.statusCode).toBe(404);
      expect(withoutRequestId(hidden.body)).toEqual(withoutRequestId(unknown.body.replaceAll(`${id}-none`, id)));
      const open = await server.app.inject({ method: 'GET', url: `/v1/video/${kind}/${id}`, headers: { authorization: `Bearer ${uncapped}` } });
      expect(open.statusCode).toBe(200);
    }
    const batch = await server.app.inject({
      method: 'POST', url: '/v1/video/episodes:batchGet', headers: { authorization: `Bearer ${capped}`, 'content-type': 'application/json', 'accept-language': 'en' },
      payload: JSON.stringify({ episodeIdList: [{ value: 'ep-d1-2' }, { value: 'ep-d1-3' }] }),
    });
    expect(batch.json().results['ep-d1-2'].episode.episodeNumber).toBe(2);
    expect(batch.json().results['ep-d1-3']).toEqual({ error: { code: 'ERROR_CODE_NOT_FOUND', message: 'No episode with id "ep-d1-3".' } });
  });

  it('counts and lists only the episodes the cap admits, and applies a changed cap on the next request', async () => {
    const season = async (token: string) =>
      (await server.app.inject({ method: 'GET', url: '/v1/video/seasons/season-drama-1', headers: { authorization: `Bearer ${token}` } })).json();
    const child = await season(capped);
    expect(child.season.episodeCount).toBe(4);
    expect(child.episodes.map((e: { episodeNumber: number }) => e.episodeNumber)).toEqual([1, 2, 4, 5]);
    expect((await season(uncapped)).season.episodeCount).toBe(5);
    const users = createUsersService(server.storage.db);
    await users.setMaxAgeRating('child', 'AGE_RATING_ALL');
    const me = await server.app.inject({ method: 'GET', url: '/v1/users/me', headers: { authorization: `Bearer ${capped}` } });
    expect(me.json().user.maxAgeRating).toBe('AGE_RATING_ALL');
    expect((await server.app.inject({ method: 'GET', url: '/v1/video/shows/show-drama', headers: { authorization: `Bearer ${capped}` } })).statusCode).toBe(404);
    await users.setMaxAgeRating('child', 'none');
    expect((await season(capped)).season.episodeCount).toBe(5);
    expect((await server.app.inject({ method: 'GET', url: '/v1/users/me', headers: { authorization: `Bearer ${capped}` } })).json().user).not.toHaveProperty('maxAgeRating');
    await users.setMaxAgeRating('child', 'AGE_RATING_13');
  });
});
