import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConflictError, InvalidRequestError, NotFoundError, type FetchLike, type PlaylistItem } from '@maqam/sdk';
import type { TestServer } from '../../server/test/harness.ts';
import { listeningServer } from './signed-in.ts';

const songsOf = (items: readonly PlaylistItem[]) => items.map((item) => item.song?.id?.value);

/** Playlists through the SDK, against the real server (listening), signed in with the write scope. */
describe('the SDK\'s playlists', () => {
  let running: Awaited<ReturnType<typeof listeningServer>>;
  let server: TestServer;

  beforeAll(async () => {
    running = await listeningServer('samira');
    ({ server } = running);
  });
  afterAll(async () => server?.close());

  /** A client signed in through the page as samira, over `fetchFn` when given. */
  const signedIn = (fetchFn?: FetchLike) => running.signedIn('read write', fetchFn);

  it('creates, adds, moves, removes, lists and deletes, keeping each answered version', async () => {
    const maqam = await signedIn();
    const playlist = await maqam.playlists.create({ name: 'سهرة', songs: ['song-ar', 'song-en'] });
    expect(playlist).toMatchObject({ name: { value: 'سهرة' }, itemCount: 2, version: '1' });
    const id = playlist.id.value;
    const added = await maqam.playlists.add(id, ['song-fr'], { before: (await maqam.playlists.get(id)).items[1]!.itemId });
    expect(added.version).toBe('2');
    expect(maqam.playlists.version(id)).toBe('2');
    const items: PlaylistItem[] = [];
    for await (const item of maqam.playlists.items(id, { pageSize: 1 })) items.push(item);
    expect(songsOf(items)).toEqual(['song-ar', 'song-fr', 'song-en']);
    await maqam.playlists.move(id, [items[2]!.itemId], { before: items[0]!.itemId, ifMatch: true });
    expect((await maqam.playlists.remove(id, [items[1]!.itemId, 'gone'])).removed).toBe(1);
    expect(songsOf((await maqam.playlists.read(id)).items)).toEqual(['song-en', 'song-ar']);
    const mine = [];
    for await (const p of maqam.playlists.list()) mine.push(p.id.value);
    expect(mine).toContain(id);
    await maqam.playlists.delete(id, { ifMatch: true });
    await expect(maqam.playlists.get(id)).rejects.toBeInstanceOf(NotFoundError);
    await expect(maqam.playlists.add(id, [])).rejects.toThrow(TypeError);
  });

  it('revalidates a read it made before: an unchanged playlist costs a 304 and answers what it kept', async () => {
    const statuses: number[] = [];
    const maqam = await signedIn(async (input, init) => {
      const response = await fetch(input, init);
      if (/\/v1\/playlists\/[^/?]+(\?|$)/.test(new URL(input).pathname + new URL(input).search) && (init?.method ?? 'GET') === 'GET') statuses.push(response.status);
      return response;
    });
    const { id: { value: id } } = await maqam.playlists.create({ name: 'kept', songs: ['song-ar'] });
    const first = await maqam.playlists.get(id);
    const second = await maqam.playlists.get(id);
    expect(second).toEqual(first);
    await maqam.playlists.add(id, ['song-en']);
    expect(songsOf((await maqam.playlists.get(id)).items)).toEqual(['song-ar', 'song-en']);
    expect(statuses).toEqual([200, 304, 200]);
  });

  it('refuses a stale ifMatch with ConflictError naming the current version, and edit retries on fresh state', async () => {
    const maqam = await signedIn();
    const other = await signedIn();
    const { id: { value: id } } = await maqam.playlists.create({ name: 'contended', songs: ['song-ar'] });
    const stale = await maqam.playlists.update(id, { name: 'one' }, { ifMatch: '1' });
    expect(stale.version).toBe('2');
    const refused = await maqam.playlists.update(id, { name: 'two' }, { ifMatch: '1' }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ConflictError);
    expect(refused).toMatchObject({ status: 412, currentVersion: '2' });
    await expect(maqam.playlists.replace(id, ['song-en'], undefined as never)).rejects.toThrow(TypeError);
    const withoutVersion = await maqam.playlists.replace(id, ['song-en'], { ifMatch: '*' as never }).catch((error: unknown) => error);
    expect(withoutVersion).toBeInstanceOf(TypeError);

    // Another device adds a song while edit's first attempt is being decided: the write meets 412, reads again, asks again.
    let calls = 0;
    const edited = await maqam.playlists.edit(id, async ({ items }) => {
      calls++;
      if (calls === 1) await other.playlists.add(id, ['song-fr']);
      return { songs: [...songsOf(items).filter((song): song is string => song !== undefined), 'song-en'], name: 'edited' };
    });
    expect(calls).toBe(2);
    expect(edited).toMatchObject({ name: { value: 'edited' }, itemCount: 3 });
    expect(songsOf((await maqam.playlists.read(id)).items)).toEqual(['song-ar', 'song-fr', 'song-en']);
    const invalid = await maqam.playlists.create({ name: '   ' }).catch((error: unknown) => error);
    expect(invalid).toBeInstanceOf(InvalidRequestError);
  });

  it('retries an add whose answer was lost with the same Idempotency-Key, so it applies once', async () => {
    const keys: string[] = [];
    let dropped = false;
    const maqam = await signedIn(async (input, init) => {
      const response = await fetch(input, init);
      if (new URL(input).pathname.endsWith('/items:batchAdd')) {
        keys.push(new Headers(init?.headers).get('idempotency-key') ?? '(none)');
        if (!dropped) {
          dropped = true;
          throw new TypeError('fetch failed: the connection was reset');
        }
      }
      return response;
    });
    const { id: { value: id } } = await maqam.playlists.create({ name: 'once', songs: [] });
    const answer = await maqam.playlists.add(id, ['song-ar']);
    expect(keys).toHaveLength(2);
    expect(keys[0]).toBe(keys[1]);
    expect(answer.version).toBe('2');
    expect((await maqam.playlists.read(id)).playlist.itemCount).toBe(1);
  });
});
