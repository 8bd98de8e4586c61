// Search results, grouped: artists, albums, shows and films, songs. The
// search box is in the header (it types into the address; see header.ts).
import type { Album, Artist, Song, VideoTitle } from '@maqam/sdk';
import { html, nothing } from 'lit-html';
import { albumCard, artistCard, shelf } from '../components/cards.ts';
import { markSaved } from '../components/likes.ts';
import { trackList } from '../components/song-list.ts';
import { posterCard } from '../components/titles.ts';
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
  titles: VideoTitle[];
}

/** Shows and films a search shows, beside the music's 40 results (a search of its own: the music's default kinds stay as they were). */
const TITLES_PAGE_SIZE = 12;

/** The search in flight; a newer keystroke cancels it. */
let searching: AbortController | undefined;

export async function load(route: Extract<Route, { view: 'search' }>): Promise<SearchView> {
  searching?.abort();
  const controller = (searching = new AbortController());
  const options = { locale: store.state.lang, signal: controller.signal };
  const [{ items: results }, { items: titles }] = await Promise.all([
    maqam.search(route.q, { ...options, pageSize: 40 }),
    maqam.search(route.q, { ...options, pageSize: TITLES_PAGE_SIZE, types: ['show', 'movie'] }),
  ]);
  const view: SearchView = {
    view: 'search', q: route.q,
    artists: results.flatMap((r) => (r.artist ? [r.artist] : [])),
    albums: results.flatMap((r) => (r.album ? [r.album] : [])),
    songs: results.flatMap((r) => (r.song ? [r.song] : [])),
    titles: titles.flatMap((r): VideoTitle[] => (r.show ? [{ show: r.show }] : r.movie ? [{ movie: r.movie }] : [])),
  };
  await markSaved(view.songs, view.albums);
  return view;
}

export function render(view: Shown<SearchView>) {
  const text = t();
  const empty = view.artists.length + view.albums.length + view.songs.length + view.titles.length === 0;
  return html`
    <h2 tabindex="-1" data-testid="search-heading">${text.resultsFor(view.q)}</h2>
    ${empty ? html`<p class="meta" data-testid="no-results">${text.noResults}</p>` : nothing}
    ${view.artists.length > 0 ? shelf(text.artists, 'search-artists', view.artists.map(artistCard)) : nothing}
    ${view.albums.length > 0 ? shelf(text.albums, 'search-albums', view.albums.map(albumCard)) : nothing}
    ${view.titles.length > 0 ? shelf(text.showsAndFilms, 'search-titles', view.titles.map(posterCard)) : nothing}
    ${view.songs.length > 0
      ? html`
        <section aria-labelledby="search-songs-heading">
          <h3 id="search-songs-heading">${text.tracks}</h3>
          ${trackList(view.songs, { showAlbumArt: true, testId: 'search-songs' })}
        </section>`
      : nothing}`;
}

export const searchPage = { load, render };
