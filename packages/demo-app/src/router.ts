// The address names the page: #/, #/artist/ID, #/album/ID, #/search/QUERY,
// #/library/songs|albums|artists, #/playlists and #/playlist/ID; and to
// watch, #/watch, #/show/ID (#/show/ID/season/N: its season N) and
// #/movie/ID; to play one, #/watch/movie/ID or #/watch/episode/ID; a
// developer's API keys, #/developer. Back and
// Forward move between pages, and a playlist's or a title's link can be
// shared.
import type { PlayContext } from '@maqam/sdk';

export type LibraryTab = 'songs' | 'albums' | 'artists';

export type Route =
  | { view: 'home' }
  | { view: 'artist'; id: string }
  | { view: 'album'; id: string }
  | { view: 'search'; q: string }
  | { view: 'library'; tab: LibraryTab }
  | { view: 'playlists' }
  | { view: 'playlist'; id: string }
  | { view: 'watch' }
  | { view: 'show'; id: string; season?: number | undefined }
  | { view: 'movie'; id: string }
  | { view: 'player'; kind: 'movie' | 'episode'; id: string }
  | { view: 'developer' };

/** The route an address's hash names; anything else is home. */
export function routeOf(hash: string): Route {
  if (hash === '#/playlists') return { view: 'playlists' };
  if (hash === '#/watch') return { view: 'watch' };
  if (hash === '#/developer') return { view: 'developer' };
  const [, kind, title] = /^#\/watch\/(movie|episode)\/(.+)$/.exec(hash) ?? [];
  if (kind === 'movie' || kind === 'episode') return { view: 'player', kind, id: decodeURIComponent(title!) };
  const [, show, season] = /^#\/show\/([^/]+)(?:\/season\/(\d{1,4}))?$/.exec(hash) ?? [];
  if (show) return { view: 'show', id: decodeURIComponent(show), season: season ? Number(season) : undefined };
  const [, view, id] = /^#\/(artist|album|search|library|playlist|movie)\/(.+)$/.exec(hash) ?? [];
  if (view === 'artist' || view === 'album' || view === 'playlist' || view === 'movie') return { view, id: decodeURIComponent(id!) };
  if (view === 'search') return { view, q: decodeURIComponent(id!) };
  if (view === 'library' && (id === 'songs' || id === 'albums' || id === 'artists')) return { view, tab: id };
  return { view: 'home' };
}

export const currentRoute = (): Route => routeOf(location.hash);

export function link(route: Route): string {
  switch (route.view) {
    case 'home': return '#/';
    case 'search': return `#/search/${encodeURIComponent(route.q)}`;
    case 'library': return `#/library/${route.tab}`;
    case 'playlists': return '#/playlists';
    case 'watch': return '#/watch';
    case 'developer': return '#/developer';
    case 'player': return `#/watch/${route.kind}/${encodeURIComponent(route.id)}`;
    case 'show': return `#/show/${encodeURIComponent(route.id)}${route.season === undefined ? '' : `/season/${route.season}`}`;
    default: return `#/${route.view}/${encodeURIComponent(route.id)}`;
  }
}

/** Where a song is started from, as its play reports it (typed ids, as the contract has them). */
export function playContextOf(route: Route): PlayContext | undefined {
  switch (route.view) {
    case 'album': return { albumId: { value: route.id } };
    case 'artist': return { artistId: { value: route.id } };
    case 'search': return { searchQuery: route.q.slice(0, 200) };
    case 'playlist': return { playlistId: { value: route.id } };
    default: return undefined;
  }
}
