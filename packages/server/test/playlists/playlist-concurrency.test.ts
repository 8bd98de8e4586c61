import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { seededRandom } from '@maqam/server';
import { dialects } from '../dialects.ts';
import { secondNode, startTestServer, type TestServer } from '../harness.ts';
import { libraryUser } from '../library/library-helpers.ts';
import { caller, songIds, type Entry } from './playlist-helpers.ts';

const CLIENTS = 40;
const OPERATIONS_PER_CLIENT = 4;
const SONGS = ['song-ar', 'song-en', 'song-fr'];

/** A write as its client was answered: what it asked, and what it was told. */
interface Acknowledged {
  readonly version: number;
  readonly apply: (order: string[]) => void;
  /** What the answer said that the model must agree with, checked as the writes are replayed. */
  readonly check: (order: readonly string[]) => void;
}

/** A read as its client was answered: the version, and the entries in order. */
interface Seen {
  readonly version: number;
  readonly order: readonly string[];
  readonly atLeast: number;
}

/**
 * Correct under load on two nodes (issue 40): two servers on one database
 * (two connections to one SQLite file, or two pools on one PostgreSQL), many
 * clients writing one playlist at once. Every acknowledged write answered a
 * distinct version; replayed one after another in version order from the
 * start, they must give every answer each was given, every read's entries at
 * its version, and the final playlist, entry by entry.
 */
describe.each(dialects.map((d) => [d.name, d] as const))('a playlist under concurrent writes on two nodes, on %s', (_name, dialect) => {
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

  async function newPlaylist(token: string, songs: readonly string[]): Promise<{ id: string; order: string[] }> {
    const created = await caller(server.app, { token })('POST', '/v1/playlists', { name: 'shared', songIdList: songIds(...songs) });
    const id = created.json().playlist.id.value as string;
    const items = (await caller(otherNode, { token })('GET', `/v1/playlists/${id}/items?page_size=100`)).json().items as Entry[];
    return { id, order: items.map((item) => item.itemId) };
  }

  it('leaves the playlist as the acknowledged writes give one after another in version order, as every answer and read saw it', async () => {
    const { write: token } = await libraryUser(server);
    const start = await newPlaylist(token, Array.from({ length: 20 }, (_, i) => SONGS[i % 3]!));
    const url = `/v1/playlists/${start.id}`;
    const acknowledged: Acknowledged[] = [];
    const seen: Seen[] = [];
    const failures: string[] = [];
    await Promise.all(Array.from({ length: CLIENTS }, async (_, client) => {
      const random = seededRandom(200 + client);
      let highest = 1;
      for (let n = 0; n < OPERATIONS_PER_CLIENT; n++) {
        const call = caller(nodes[(client + n) % 2]!, { token });
        // What this client knows of the playlist: a read, checked later against the model at its version.
        const read = await call('GET', `${url}/items?page_size=100`);
        const readVersion = Number(read.json().version);
        const order = (read.json().items as Entry[]).map((item) => item.itemId);
        seen.push({ version: readVersion, order, atLeast: highest });
        const target = order.length > 0 && random.next() < 0.7 ? random.pick(order) : undefined;
        const choice = random.next();
        if (choice < 0.4) {
          const song = random.pick(SONGS);
          const res = await call('POST', `${url}/items:batchAdd`, { songIdList: songIds(song), ...(target && { beforeItemId: target }) });
          if (res.statusCode === 409) continue;
          if (res.statusCode !== 200) { failures.push(`add: ${res.statusCode} ${res.body}`); continue; }
          const [item] = res.json().items as Entry[];
          highest = Number(res.json().version);
          acknowledged.push({
            version: highest,
            apply: (model) => model.splice(target ? model.indexOf(target) : model.length, 0, item!.itemId),
            check: (model) => expect(model.indexOf(item!.itemId), `add at ${highest}`).toBe(item!.position),
          });
        } else if (choice < 0.75 && order.length > 1) {
          const moved = [...new Set([random.pick(order), random.pick(order)])].filter((id) => id !== target);
          if (moved.length === 0) continue;
          const res = await call('POST', `${url}/items:move`, { itemIds: moved, ...(target && { beforeItemId: target }) });
          if (res.statusCode === 409) continue;
          if (res.statusCode !== 200) { failures.push(`move: ${res.statusCode} ${res.body}`); continue; }
          highest = Number(res.json().version);
          acknowledged.push({
            version: highest,
            apply: (model) => {
              for (const id of moved) model.splice(model.indexOf(id), 1);
              model.splice(target ? model.indexOf(target) : model.length, 0, ...moved);
            },
            check: () => {},
          });
        } else if (order.length > 0) {
          const removed = [random.pick(order)];
          let present = 0;
          const res = await call('POST', `${url}/items:batchRemove`, { itemIds: removed });
          if (res.statusCode !== 200) { failures.push(`remove: ${res.statusCode} ${res.body}`); continue; }
          highest = Number(res.json().version);
          const answered = res.json().removed as number;
          acknowledged.push({
            version: highest,
            apply: (model) => {
              present = model.includes(removed[0]!) ? 1 : 0;
              if (present) model.splice(model.indexOf(removed[0]!), 1);
            },
            check: () => expect(answered, `remove at ${highest}`).toBe(present),
          });
        }
      }
    }));
    expect(failures).toEqual([]);

    // Every acknowledged write answered its own version, and together they are every version after the first.
    const versions = acknowledged.map((write) => write.version).sort((a, b) => a - b);
    expect(versions).toEqual(Array.from({ length: versions.length }, (_, i) => i + 2));
    expect(versions.length).toBeGreaterThan(CLIENTS);
    const model = [...start.order];
    const states = new Map<number, string[]>([[1, [...model]]]);
    for (const write of [...acknowledged].sort((a, b) => a.version - b.version)) {
      write.apply(model);
      write.check(model);
      states.set(write.version, [...model]);
    }
    for (const read of seen) {
      expect(read.version, 'a read behind a write its client was answered').toBeGreaterThanOrEqual(read.atLeast);
      expect(read.order, `the read at version ${read.version}`).toEqual(states.get(read.version));
    }
    const final = (await caller(otherNode, { token })('GET', `${url}?page_size=100`)).json();
    expect(final.playlist.version).toBe(String(versions[versions.length - 1]));
    expect(final.playlist.itemCount).toBe(model.length);
    expect((final.items as Entry[]).map((item) => item.itemId)).toEqual(model);
    expect((final.items as Entry[]).map((item) => item.position)).toEqual([...model.keys()]);
  }, 120_000);

  it('applies exactly the writes whose If-Match held when many race with the same version', async () => {
    const { write: token } = await libraryUser(server);
    const { id } = await newPlaylist(token, ['song-ar']);
    const url = `/v1/playlists/${id}`;
    for (let round = 0; round < 4; round++) {
      const version = (await caller(server.app, { token })('GET', url)).json().playlist.version as string;
      const answers = await Promise.all(Array.from({ length: 12 }, (_, i) =>
        caller(nodes[i % 2]!, { token })('POST', `${url}/items:batchAdd`, { songIdList: songIds(SONGS[i % 3]!) }, { 'if-match': `"${version}"` })));
      const applied = answers.filter((res) => res.statusCode === 200);
      expect(applied).toHaveLength(1);
      const next = String(Number(version) + 1);
      expect(applied[0]!.json().version).toBe(next);
      for (const refused of answers.filter((res) => res.statusCode !== 200)) {
        expect(refused.statusCode).toBe(412);
        expect(refused.headers.etag).toBe(`"${next}"`);
      }
      expect((await caller(otherNode, { token })('GET', url)).json().playlist).toMatchObject({ version: next, itemCount: round + 2 });
    }
  }, 60_000);

  it('applies one Idempotency-Key sent from two nodes at once exactly once', async () => {
    const { write: token } = await libraryUser(server);
    const { id } = await newPlaylist(token, ['song-ar']);
    const url = `/v1/playlists/${id}`;
    const burst = await Promise.all(Array.from({ length: 16 }, (_, i) =>
      caller(nodes[i % 2]!, { token })('POST', `${url}/items:batchAdd`, { songIdList: songIds('song-en', 'song-fr') }, { 'idempotency-key': 'add-once' })));
    const ok = burst.filter((res) => res.statusCode === 200);
    for (const res of burst.filter((r) => r.statusCode !== 200)) expect(res.json()).toMatchObject({ code: 'ERROR_CODE_CONFLICT' });
    expect(ok.filter((res) => res.headers['idempotent-replayed'] !== 'true')).toHaveLength(1);
    expect(new Set(ok.map((res) => `${res.headers.etag} ${res.body}`)).size).toBe(1);
    for (const node of nodes) {
      const replay = await caller(node, { token })('POST', `${url}/items:batchAdd`, { songIdList: songIds('song-en', 'song-fr') }, { 'idempotency-key': 'add-once' });
      expect([replay.statusCode, replay.headers.etag, replay.body]).toEqual([200, ok[0]!.headers.etag, ok[0]!.body]);
    }
    expect((await caller(otherNode, { token })('GET', url)).json().playlist).toMatchObject({ version: '2', itemCount: 3 });
  }, 60_000);
});
