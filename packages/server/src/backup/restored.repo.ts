import type { Db } from '../storage/database.ts';

export interface RestoredCounts {
  readonly users: number;
  readonly playlists: number;
  readonly plays: number;
}

/** What a restore says it brought back: how many users, playlists and plays the database holds. */
export async function countRestored(db: Db): Promise<RestoredCounts> {
  const count = async (table: 'users' | 'playlists' | 'play_history') =>
    Number((await db.selectFrom(table).select((eb) => eb.fn.countAll().as('count')).executeTakeFirstOrThrow()).count);
  return { users: await count('users'), playlists: await count('playlists'), plays: await count('play_history') };
}
