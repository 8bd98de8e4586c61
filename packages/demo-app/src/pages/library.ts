// The library's pages: liked songs, saved albums, followed artists, page by page,
// and the button that downloads all of the user's data.
import type { Album, Artist, Song } from '@maqam/sdk';
import { html, nothing } from 'lit-html';
import { albumCard, artistCard, cardList } from '../components/cards.ts';
import { downloadMyDataButton } from '../components/download-my-data.ts';
import { markSaved } from '../components/likes.ts';
import { trackList } from '../components/song-list.ts';
import { t } from '../format.ts';
import type { LibraryTab, Route } from '../router.ts';
import { act, maqam } from '../session.ts';
import { setHas, store, type Shown } from '../store.ts';

export interface LibraryView {
  view: 'library';
  tab: LibraryTab;
  songs: Song[];
  albums: Album[];
  artists: Artist[];
  /** The next page's token; empty on the last. */
  token: string;
}

const LIBRARY_PAGE_SIZE = 50;

/** A page of a library tab, from `token`; its songs' and albums' hearts and its artists' follows known. */
async function fetchLibraryPage(tab: LibraryTab, token: string): Promise<Omit<LibraryView, 'view' | 'tab'>> {
  const options = { locale: store.state.lang, pageSize: LIBRARY_PAGE_SIZE, ...(token ? { pageToken: token } : {}) };
  if (tab === 'artists') {
    // Followed artists come through the SDK's iterator: one page of it.
    const artists: Artist[] = [];
    for await (const { artist } of maqam.library.followed(options)) {
      artists.push(artist);
      if (artists.length === LIBRARY_PAGE_SIZE) break;
    }
    store.update((state) => ({ following: artists.reduce((following, artist) => setHas(following, artist.id.value, true), state.following) }));
    return { songs: [], albums: [], artists, token };
  }
  const page = await maqam.library.listPage({ ...options, types: [tab === 'songs' ? 'song' : 'album'] });
  const songs = page.items.flatMap((item) => (item.song ? [item.song] : []));
  const albums = page.items.flatMap((item) => (item.album ? [item.album] : []));
  await markSaved(songs, albums);
  return { songs, albums, artists: [], token: page.nextPageToken };
}

export async function load(route: Extract<Route, { view: 'library' }>): Promise<LibraryView> {
  return { view: 'library', tab: route.tab, ...(await fetchLibraryPage(route.tab, '')) };
}

async function more(view: Shown<LibraryView>) {
  const page = await fetchLibraryPage(view.tab, view.token);
  store.patchView(view, (current) => ({
    songs: [...current.songs, ...page.songs], albums: [...current.albums, ...page.albums], artists: [...current.artists, ...page.artists], token: page.token,
  }));
}

export function render(view: Shown<LibraryView>) {
  const text = t();
  const [title, empty, emptyText] = {
    songs: [text.likedSongs, view.songs.length === 0, text.likedEmpty],
    albums: [text.savedAlbums, view.albums.length === 0, text.albumsEmpty],
    artists: [text.following, view.artists.length === 0, text.followingEmpty],
  }[view.tab] as [string, boolean, string];
  // Download my data stands by the library's name: it takes the whole library (and history, playlists, places in films), not this tab.
  return html`
    <header class="library-head">
      <p class="eyebrow">${text.library}</p>
      <h2 tabindex="-1" class="page-title" data-testid="library-title">${title}</h2>
      ${downloadMyDataButton()}
    </header>
    ${empty ? html`<p class="meta" data-testid="library-empty">${emptyText}</p>` : nothing}
    ${view.tab === 'songs' && !empty ? trackList(view.songs, { showAlbumArt: true, testId: 'liked-songs' }) : nothing}
    ${view.tab === 'albums' && !empty ? cardList('saved-albums', view.albums.map(albumCard)) : nothing}
    ${view.tab === 'artists' && !empty ? cardList('followed-artists', view.artists.map(artistCard)) : nothing}
    ${view.token ? html`<button type="button" data-testid="more-library" @click=${() => void act(() => more(view))}>${text.more}</button>` : nothing}`;
}

export const libraryPage = { load, render };
