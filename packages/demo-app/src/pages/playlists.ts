// The user's playlists: a form that makes one (it opens at once), and their cards.
import type { Playlist } from '@maqam/sdk';
import { html } from 'lit-html';
import { cardList, playlistCard } from '../components/cards.ts';
import { number, t } from '../format.ts';
import { defaultPlaylistName, forgetMyPlaylists, loadPlaylists } from '../playlists.ts';
import { link } from '../router.ts';
import { act, maqam } from '../session.ts';
import type { Shown } from '../store.ts';

export interface PlaylistsView {
  view: 'playlists';
  playlists: Playlist[];
}

export const load = loadPlaylists;

async function createPlaylist(name: string) {
  const playlist = await maqam.playlists.create({ name: name.trim() || defaultPlaylistName() });
  forgetMyPlaylists();
  location.hash = link({ view: 'playlist', id: playlist.id.value });
}

function onSubmit(event: SubmitEvent) {
  event.preventDefault();
  const input = (event.currentTarget as HTMLFormElement).elements.namedItem('name') as HTMLInputElement;
  void act(() => createPlaylist(input.value));
}

export function render(view: Shown<PlaylistsView>) {
  const text = t();
  return html`
    <p class="eyebrow">${text.library}</p>
    <h2 tabindex="-1" class="page-title" data-testid="library-title">${text.playlists}</h2>
    <form class="new-playlist" data-testid="new-playlist-form" @submit=${onSubmit}>
      <label><span class="visually-hidden">${text.playlistName}</span><input type="text" name="name" maxlength="100" autocomplete="off" placeholder=${text.newPlaylistName(number(view.playlists.length + 1))} data-testid="new-playlist-name"></label>
      <button type="submit" class="primary" data-testid="create-playlist">${`+ ${text.newPlaylist}`}</button>
    </form>
    ${view.playlists.length === 0
      ? html`<p class="meta" data-testid="playlists-empty">${text.playlistsEmpty}</p>`
      : cardList('playlists', view.playlists.map(playlistCard))}`;
}

export const playlistsPage = { load, render };
