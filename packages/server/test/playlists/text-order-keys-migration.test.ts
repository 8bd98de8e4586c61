import { describe, expect, it } from 'vitest';
import { Migrator } from 'kysely';
import { migrateToLatest, openStorage } from '@maqam/server';
import { migrations } from '../../src/storage/migrations/index.ts';
import { dialects } from '../dialects.ts';

/**
 * Migration 018 (issue 51, item 4): a playlist's whole-number order keys
 * become text keys in the same order, and going down numbers them by rank.
 */
describe.each(dialects.map((d) => [d.name, d] as const))('the text order keys migration (018) on %s', (_name, dialect) => {
  it('keeps every playlist\'s order, up and down', async () => {
    const database = await dialect.create();
    const storage = openStorage(database.url);
    try {
      const migrator = new Migrator({ db: storage.db, provider: migrations });
      expect((await migrator.migrateTo('017-typed-play-contexts')).error).toBeUndefined();
      const db = storage.db as never as import('kysely').Kysely<any>;
      await db.insertInto('users').values({ id: 'u-1', username: 'owner', username_key: 'owner', password_hash: 'x', created_at: 0 }).execute();
      await db.insertInto('playlists').values(['p-1', 'p-2'].map((id) => ({
        id, owner_id: 'u-1', name: id, description: '', visibility: 'PLAYLIST_VISIBILITY_PRIVATE', created_at: 0, updated_at: 0, version: 1,
        item_count: 3, total_duration_ms: 0, cover_album_ids: '[]', renumbered_version: 0,
      }))).execute();
      // Keys whose text would sort otherwise than their numbers (9 before 10, and 2^40 before 2^20 as text).
      const keys: Record<string, number[]> = { 'p-1': [9, 10, 2 ** 20], 'p-2': [2 ** 40, 2 ** 20, 3] };
      await db.insertInto('playlist_items').values(Object.entries(keys).flatMap(([playlistId, list]) => list.map((key, i) => ({
        playlist_id: playlistId, item_id: `${playlistId}-${i}`, order_key: key, song_id: 'song-ar', duration_ms: 1, added_at: 0, placed_version: 1,
      })))).execute();
      const order = async () => Object.fromEntries(await Promise.all(Object.keys(keys).map(async (playlistId) => [playlistId,
        (await db.selectFrom('playlist_items').select('item_id').where('playlist_id', '=', playlistId).orderBy('order_key').orderBy('item_id').execute()).map((row: { item_id: string }) => row.item_id)])));
      const expected = { 'p-1': ['p-1-0', 'p-1-1', 'p-1-2'], 'p-2': ['p-2-2', 'p-2-1', 'p-2-0'] };
      expect(await order()).toEqual(expected);

      await migrateToLatest(storage);
      expect(await order()).toEqual(expected);
      expect((await db.selectFrom('playlist_items').select('order_key').where('item_id', '=', 'p-1-2').executeTakeFirstOrThrow()).order_key).toBe('KcqOc386a');
      expect((await migrator.migrateTo('017-typed-play-contexts')).error).toBeUndefined();
      expect(await order()).toEqual(expected);
    } finally {
      await storage.close();
      await database.drop();
    }
  });
});
