// Search results, grouped: artists, albums, songs. The search box is in the
// header (it types into the address; see header.ts).
import type { Album, Artist, Song } from '@maqam/sdk';
import { html, nothing } from 'lit-html';
import { albumCard, artistCard, shelf } from '../components/cards.ts';
import { markSaved } from '../components/likes.ts';
import { trackList } from '../components/song-list.ts';
import { t } from '../format.ts';
import type { Route } from '../router.ts';
import { maqam } from '../session.ts';
import { store, type Shown } from '../store.ts';

export interface SearchView {
  view: 'search';
  q: string;
  artists: Artist[];
  albums: Album[];
  songs: Song[];
}

/** The search in flight; a newer keystroke cancels it. */
let searching: AbortController | undefined;

export async function load(route: Extract<Route, { view: 'search' }>): Promise<SearchView> {
  searching?.abort();
  const controller = (searching = new AbortController());
  const { items: results } = await maqam.search(route.q, { locale: store.state.lang, pageSize: 40, signal: controller.signal });
  const view: SearchView = {
    view: 'search', q: route.q,
    artists: results.flatMap((r) => (r.artist ? [r.artist] : [])),
    albums: results.flatMap((r) => (r.album ? [r.album] : [])),
    songs: results.flatMap((r) => (r.song ? [r.song] : [])),
  };
  await markSaved(view.songs, view.albums);
  return view;
}

export function render(view: Shown<SearchView>) {
  const text = t();
  const empty = view.artists.length + view.albums.length + view.songs.length === 0;
  return html`
    <h2 tabindex="-1" data-testid="search-heading">${text.resultsFor(view.q)}</h2>
    ${empty ? html`<p class="meta" data-testid="no-results">${text.noResults}</p>` : nothing}
    ${view.artists.length > 0 ? shelf(text.artists, 'search-artists', view.artists.map(artistCard)) : nothing}
    ${view.albums.length > 0 ? shelf(text.albums, 'search-albums', view.albums.map(albumCard)) : nothing}
    ${view.songs.length > 0
      ? html`
        <section aria-labelledby="search-songs-heading">
          <h3 id="search-songs-heading">${text.tracks}</h3>
          ${trackList(view.songs, { showAlbumArt: true, testId: 'search-songs' })}
        </section>`
      : nothing}`;
}

export const searchPage = { load, render };
