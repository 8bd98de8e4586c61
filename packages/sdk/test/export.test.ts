import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserExport } from '@maqam/sdk';
import { listeningServer } from './signed-in.ts';

/** A user's own data through the SDK (issue 57): the document GET /v1/users/me/export streams, parsed. */
describe('the SDK\'s exportMyData', () => {
  let running: Awaited<ReturnType<typeof listeningServer>>;

  beforeAll(async () => {
    running = await listeningServer('rania');
  });
  afterAll(async () => running?.server.close());

  it('answers the signed-in user\'s data, titled in the client\'s language', async () => {
    const maqam = await running.signedIn('read write');
    await maqam.library.save({ songs: ['song-ar'] });
    await maqam.history.report([{ playId: 'sdk-1', songId: { value: 'song-en' }, startedAt: new Date().toISOString(), msPlayed: 45_000 }]);
    const data: UserExport = await maqam.library.exportMyData({ locale: 'en' });
    expect(data.user.username).toBe('rania');
    expect(data.savedSongs.map((saved) => saved.songId.value)).toEqual(['song-ar']);
    expect(data.plays).toEqual([expect.objectContaining({ playId: 'sdk-1', songId: { value: 'song-en' }, title: 'Midnight City', counted: true })]);
    expect(data.playlists).toEqual([]);
  });
});
