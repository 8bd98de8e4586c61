import { describe, expect, it } from 'vitest';
import { Migrator } from 'kysely';
import { migrateToLatest, openStorage } from '@maqam/server';
import { migrations } from '../../src/storage/migrations/index.ts';
import { dialects } from '../dialects.ts';

/**
 * Migration 017 (issue 51, item 6): plays kept with a bare id in their
 * context are listed with a typed one after the upgrade, as new plays are;
 * a search query stays text, and going down gives the bare ids back.
 */
describe.each(dialects.map((d) => [d.name, d] as const))('the typed play contexts migration (017) on %s', (_name, dialect) => {
  it('types the ids of kept contexts, leaves a search query as it is, and undoes it going down', async () => {
    const database = await dialect.create();
    const storage = openStorage(database.url);
    try {
      const migrator = new Migrator({ db: storage.db, provider: migrations });
      expect((await migrator.migrateTo('016-playlists')).error).toBeUndefined();
      await storage.db.insertInto('users').values({ id: 'u-1', username: 'listener', username_key: 'listener', password_hash: 'x', created_at: 0 } as never).execute();
      const contexts = ['{"albumId":"album-1"}', '{"artistId":"artist-ar"}', '{"playlistId":"p-1"}', '{"searchQuery":"ام كلثوم"}', null];
      await storage.db.insertInto('play_history').values(contexts.map((context, i) => ({
        user_id: 'u-1', play_id: `p-${i}`, song_id: 'song-ar', started_at: i, ms_played: 40_000, counted: 1, context,
      }))).execute();
      const kept = async () => (await storage.db.selectFrom('play_history').select('context').orderBy('play_id').execute()).map((row) => row.context);

      await migrateToLatest(storage);
      expect(await kept()).toEqual([
        '{"albumId":{"value":"album-1"}}', '{"artistId":{"value":"artist-ar"}}', '{"playlistId":{"value":"p-1"}}', '{"searchQuery":"ام كلثوم"}', null,
      ]);
      expect((await migrator.migrateTo('016-playlists')).error).toBeUndefined();
      expect(await kept()).toEqual(contexts);
    } finally {
      await storage.close();
      await database.drop();
    }
  });
});
