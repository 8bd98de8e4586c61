// The user's playlists as the Add to playlist menu and the playlist pages
// read and change them: one playlist read with its first entries, the list
// of the user's own (kept for the menu until one changes), and adding songs.
import type { Playlist, Song } from '@maqam/sdk';
import { markSaved } from './components/likes.ts';
import { number, t } from './format.ts';
import type { PlaylistView } from './pages/playlist.ts';
import type { PlaylistsView } from './pages/playlists.ts';
import { act, collect, maqam, say } from './session.ts';
import { store } from './store.ts';

export const PLAYLIST_PAGE_SIZE = 100;

export async function loadPlaylist(id: string): Promise<PlaylistView> {
  const { playlist, items, nextPageToken } = await maqam.playlists.get(id, { locale: store.state.lang, pageSize: PLAYLIST_PAGE_SIZE });
  await markSaved(items.flatMap((item) => (item.song ? [item.song] : [])), []);
  return { view: 'playlist', playlist, items, token: nextPageToken, mine: playlist.ownerId === store.state.user?.sub };
}

/** The user's playlists, read again. */
export async function loadPlaylists(): Promise<PlaylistsView> {
  const myPlaylists = await collect(maqam.playlists.list({ locale: store.state.lang, pageSize: 50 }));
  store.update({ myPlaylists });
  return { view: 'playlists', playlists: myPlaylists };
}

/** The user's playlists, as read before when nothing has changed since. */
export async function loadMyPlaylists() {
  if (!store.state.myPlaylists) await loadPlaylists();
}

/** A playlist changed: the menu reads the list again when it next opens. */
export const forgetMyPlaylists = () => store.update({ myPlaylists: null });

/** A new playlist's name when the user gives none: "My playlist 3" after two. */
export const defaultPlaylistName = () => t().newPlaylistName(number((store.state.myPlaylists?.length ?? 0) + 1));

export async function addToPlaylist(playlist: Playlist, song: Song) {
  await act(async () => {
    await maqam.playlists.add(playlist.id.value, [song.id.value]);
    forgetMyPlaylists();
    say(t().addedTo(song.title.value, playlist.name.value));
    await refreshPlaylistOnScreen(playlist.id.value);
  });
}

export async function addToNewPlaylist(song: Song) {
  await act(async () => {
    const name = defaultPlaylistName();
    await maqam.playlists.create({ name, songs: [song.id.value] });
    forgetMyPlaylists();
    say(t().addedTo(song.title.value, name));
    if (store.state.view?.view === 'playlists') store.show(await loadPlaylists());
  });
}

/** The playlist on screen read again (its cover, count and order as the server has them), focus kept where it was. */
export async function refreshPlaylistOnScreen(playlistId: string) {
  const view = store.state.view;
  if (view?.view !== 'playlist' || view.playlist.id.value !== playlistId) return;
  const fresh = await loadPlaylist(playlistId);
  if (store.state.view?.serial !== view.serial) return;
  const focused = document.activeElement;
  const row = focused?.closest<HTMLElement>('[data-item]')?.dataset.item;
  const control = focused?.getAttribute('data-testid');
  store.show(fresh);
  if (row && control) document.querySelector<HTMLElement>(`[data-item="${CSS.escape(row)}"] [data-testid="${control}"]:not(:disabled)`)?.focus();
}
