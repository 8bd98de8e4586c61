import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { seededRandom } from '@maqam/server';
import { dialects } from '../dialects.ts';
import { secondNode, startTestServer, type TestServer } from '../harness.ts';
import { libraryUser, songIds } from './library-helpers.ts';

const CLIENTS = 32;
const OPERATIONS_PER_CLIENT = 12;
/** The songs the clients save and remove: few, so their sets overlap. */
const SONGS = ['song-ar', 'song-en', 'song-fr'];
const ALBUMS = ['album-1'];

interface Change { kind: string; id: string; change: string; at: string }

/**
 * Correct under load on two nodes (issue 39): two servers on one database
 * (two connections to one SQLite file, or two pools on one PostgreSQL), many
 * clients of one user at once. The change feed is the commit order; every
 * acknowledged answer must agree with it.
 */
describe.each(dialects.map((d) => [d.name, d] as const))('the library under concurrent writes on two nodes, on %s', (_name, dialect) => {
  let server: TestServer;
  let second: Awaited<ReturnType<typeof secondNode>>;
  let otherNode: FastifyInstance;
  let nodes: FastifyInstance[];

  beforeAll(async () => {
    server = await startTestServer(dialect, { MAQAM_RATE_LIMIT: '0' });
    second = await secondNode(server, { MAQAM_RATE_LIMIT: '0' });
    otherNode = second.app;
    nodes = [server.app, otherNode];
  }, 60_000);
  afterAll(async () => {
    await second?.close();
    await server?.close();
  });

  const send = (node: FastifyInstance, token: string, method: 'GET' | 'POST', url: string, body?: unknown, headers: Record<string, string> = {}) =>
    node.inject({
      method, url,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });

  async function allChanges(token: string, cursor: string): Promise<Change[]> {
    const changes: Change[] = [];
    for (;;) {
      const page = (await send(server.app, token, 'GET', `/v1/library/changes?cursor=${cursor}`)).json() as { changes: Change[]; nextCursor: string };
      if (page.changes.length === 0) return changes;
      changes.push(...page.changes);
      cursor = page.nextCursor;
    }
  }

  it('ends with the set the feed\'s order gives, each savedAt the save that began it, every change listed once in commit order', async () => {
    const { write: token } = await libraryUser(server);
    const start = (await send(server.app, token, 'GET', '/v1/library/changes')).json().nextCursor as string;
    const failures: string[] = [];
    await Promise.all(Array.from({ length: CLIENTS }, async (_, client) => {
      const random = seededRandom(100 + client);
      for (let n = 0; n < OPERATIONS_PER_CLIENT; n++) {
        const songs = SONGS.filter(() => random.next() < 0.5);
        const albums = ALBUMS.filter(() => random.next() < 0.5);
        if (songs.length + albums.length === 0) songs.push(random.pick(SONGS));
        const url = random.next() < 0.55 ? '/v1/library/saved:batchAdd' : '/v1/library/saved:batchRemove';
        const res = await send(nodes[(client + n) % 2]!, token, 'POST', url, { songIdList: songIds(...songs), albumIdList: songIds(...albums) });
        if (res.statusCode !== 200) failures.push(`${url}: ${res.statusCode} ${res.body.slice(0, 200)}`);
      }
    }));
    expect(failures).toEqual([]);

    const changes = await allChanges(token, start);
    // The feed, replayed in order from an empty library, is a sequence of real changes: a save of what was
    // not saved, a removal of what was. Any change listed twice, or out of commit order, breaks that.
    const saved = new Map<string, string>();
    for (const change of changes) {
      const key = `${change.kind}:${change.id}`;
      if (change.change === 'CHANGE_SAVED') {
        expect(saved.has(key), `${key} saved twice in a row`).toBe(false);
        saved.set(key, change.at);
      } else {
        expect(change.change).toBe('CHANGE_REMOVED');
        expect(saved.has(key), `${key} removed while not saved`).toBe(true);
        saved.delete(key);
      }
    }
    expect(changes.length).toBeGreaterThan(CLIENTS);
    const listed = (await send(otherNode, token, 'GET', '/v1/library/saved?page_size=100')).json() as { items: { song?: { id: { value: string } }; album?: { id: { value: string } }; savedAt: string }[] };
    const final = new Map(listed.items.map((item) => [item.song ? `song:${item.song.id.value}` : `album:${item.album!.id.value}`, item.savedAt]));
    expect(final).toEqual(saved);
    // Every change is counted on the user's row: none lost, none invented.
    const counters = await server.storage.db.selectFrom('library_counters').select('changes').execute();
    expect(counters.map((row) => Number(row.changes))).toContain(changes.length);
  }, 120_000);

  it('records a playId reported at once from two nodes exactly once, and answers every report with its first result', async () => {
    const { write: token } = await libraryUser(server);
    const startedAt = new Date(Date.now() - 120_000).toISOString();
    const answers = await Promise.all(Array.from({ length: 16 }, (_, i) =>
      send(nodes[i % 2]!, token, 'POST', '/v1/library/history:report', { plays: [{ playId: 'same-play', songId: { value: 'song-ar' }, startedAt, msPlayed: i % 2 === 0 ? 45_000 : 1_000 }] })));
    const results = answers.map((res) => JSON.stringify(res.json()));
    expect(answers.map((res) => res.statusCode)).toEqual(answers.map(() => 200));
    expect(new Set(results).size).toBe(1);
    const history = (await send(otherNode, token, 'GET', '/v1/library/history')).json();
    const rows = await server.storage.db.selectFrom('play_history').select('play_id').where('play_id', '=', 'same-play').execute();
    expect(rows).toHaveLength(1);
    expect(history.entries.length).toBe(JSON.parse(results[0]!).results['same-play'].counted ? 1 : 0);
  });

  it('replays an Idempotency-Key\'s answer on either node, refuses another body with it on either node, and runs it once under a burst', async () => {
    const { write: token } = await libraryUser(server);
    const start = (await send(server.app, token, 'GET', '/v1/library/changes')).json().nextCursor as string;
    const body = { artistIdList: songIds('artist-ar', 'artist-en') };
    const burst = await Promise.all(Array.from({ length: 16 }, (_, i) =>
      send(nodes[i % 2]!, token, 'POST', '/v1/library/following/artists:batchAdd', body, { 'idempotency-key': 'follow-1' })));
    const ok = burst.filter((res) => res.statusCode === 200);
    // Those that found the first still running were told so; every other answer is the first one's bytes.
    for (const res of burst.filter((r) => r.statusCode !== 200)) expect(res.json()).toMatchObject({ code: 'ERROR_CODE_CONFLICT' });
    expect(ok.length).toBeGreaterThan(0);
    expect(new Set(ok.map((res) => res.body)).size).toBe(1);
    expect(ok.filter((res) => res.headers['idempotent-replayed'] !== 'true')).toHaveLength(1);
    for (const node of nodes) {
      const replay = await send(node, token, 'POST', '/v1/library/following/artists:batchAdd', body, { 'idempotency-key': 'follow-1' });
      expect(replay.statusCode).toBe(200);
      expect(replay.body).toBe(ok[0]!.body);
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.headers['content-type']).toBe(ok[0]!.headers['content-type']);
      const other = await send(node, token, 'POST', '/v1/library/following/artists:batchAdd', { artistIdList: songIds('artist-fr') }, { 'idempotency-key': 'follow-1' });
      expect(other.statusCode).toBe(409);
      expect(other.json().code).toBe('ERROR_CODE_CONFLICT');
    }
    // Ran once: two changes, not two per request.
    expect((await allChanges(token, start)).map((change) => change.id)).toEqual(['artist-ar', 'artist-en']);
    // Another user's key of the same name is theirs alone.
    const { write: otherToken } = await libraryUser(server);
    const theirs = await send(otherNode, otherToken, 'POST', '/v1/library/following/artists:batchAdd', { artistIdList: songIds('artist-fr') }, { 'idempotency-key': 'follow-1' });
    expect(theirs.statusCode).toBe(200);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
  });
});
