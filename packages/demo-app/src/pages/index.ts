// Every page, by the name its route and its view share: how it loads and how it draws.
import type { TemplateResult } from 'lit-html';
import type { Route } from '../router.ts';
import type { Shown, View } from '../store.ts';
import { albumPage } from './album.ts';
import { artistPage } from './artist.ts';
import { developerPage } from './developer.ts';
import { homePage } from './home.ts';
import { libraryPage } from './library.ts';
import { moviePage } from './movie.ts';
import { playlistPage } from './playlist.ts';
import { playlistsPage } from './playlists.ts';
import { searchPage } from './search.ts';
import { showPage } from './show.ts';
import { videoPage } from './video-page.ts';
import { watchPage } from './watch.ts';

interface Page<K extends View['view']> {
  load(route: Extract<Route, { view: K }>): Promise<Extract<View, { view: K }>>;
  render(view: Shown<Extract<View, { view: K }>>): TemplateResult;
}

const PAGES: { [K in View['view']]: Page<K> } = {
  home: homePage, artist: artistPage, album: albumPage, search: searchPage, library: libraryPage, playlists: playlistsPage, playlist: playlistPage,
  watch: watchPage, show: showPage, movie: moviePage, player: videoPage, developer: developerPage,
};

/** The page a route names, read in the page's language (its hearts and follows known). */
export const loadView = (route: Route): Promise<View> => (PAGES[route.view] as Page<Route['view']>).load(route as never);

export const renderView = (view: Shown): TemplateResult => (PAGES[view.view] as Page<View['view']>).render(view as never);
