// The one place the demo's state changes. Everything on screen is drawn from
// `store.state` by templates; an action calls `store.update` and every
// subscriber (the renderer, the queue's keeper) hears of it at once, the
// page redrawn before `update` returns, so an action may move the focus
// right after it.
import type { AudioQuality, GetLyricsResponse, PlayContext, Playlist, Song, TokenInfoResponse } from '@maqam/sdk';
import type { AlbumView } from './pages/album.ts';
import type { ArtistView } from './pages/artist.ts';
import type { DeveloperView } from './pages/developer.ts';
import type { HomeView } from './pages/home.ts';
import type { LibraryView } from './pages/library.ts';
import type { MovieView } from './pages/movie.ts';
import type { PlaylistView } from './pages/playlist.ts';
import type { PlaylistsView } from './pages/playlists.ts';
import type { SearchView } from './pages/search.ts';
import type { ShowView } from './pages/show.ts';
import type { VideoView } from './pages/video-page.ts';
import type { WatchView } from './pages/watch.ts';
import { EMPTY_QUEUE, type QueueState } from './player/play-queue.ts';
import type { Route } from './router.ts';
import type { Lang } from './texts.ts';
import type { VideoState } from './video/video-state.ts';

export interface DemoSettings {
  issuer: string;
  clientId: string;
  /** Songs that have demo audio: the only ones the app offers to play. */
  mediaSongs: string[];
  /** Artists the home view features, chosen by the server from the catalog. */
  featuredArtists: string[];
  /**
   * Films and episodes that have video (packaged by the server as it starts),
   * by id: the only ones the app offers to play. Absent from a server that
   * does not say: then every title offers Play, and the player says when one
   * has none.
   */
  videoTitles?: string[];
  /** The shows and films the Watch home features, in its order (the first show is its spotlight); the app's own picks when absent. */
  featuredShows?: string[];
  featuredMovies?: string[];
}

/** The data of a page, as its loader read it. */
export type View = HomeView | LibraryView | ArtistView | AlbumView | SearchView | PlaylistsView | PlaylistView | WatchView | ShowView | MovieView | VideoView | DeveloperView;

/** A page on screen: `serial` tells this showing of it from an earlier or later one (an answer for an old one is dropped). */
export type Shown<V extends View = View> = V & { readonly serial: number };

/** The Add to playlist menu: the song, and which button opened it. */
export interface AddMenu {
  song: Song;
  opener: string;
}

export interface State {
  /** Until the first page has loaded (or the visitor is known to be signed out): the page shows only its title. */
  starting: boolean;
  lang: Lang;
  settings: DemoSettings;
  route: Route;
  user: TokenInfoResponse | null;
  /**
   * Whether the account manages API keys here (its token has the developer
   * scope and the server lets it list keys): the Developer section shows
   * only then.
   */
  developer: boolean;
  /** The signed-in account's display name, as the header shows it. */
  displayName: string;
  view: Shown | null;
  loading: boolean;
  /** The status line: what an action did, or why it failed. */
  status: string;
  /** The search box's text, as typed (the search on screen is the route's). */
  searchText: string;
  /** What the user has liked ("song:ID", "album:ID") and follows (artist ids), as far as the pages shown asked. */
  saved: ReadonlySet<string>;
  following: ReadonlySet<string>;
  /** The user's playlists, for the Add to playlist menu; read when it first opens, forgotten when one changes. */
  myPlaylists: Playlist[] | null;
  menu: AddMenu | null;
  queue: QueueState<Song>;
  nowPlaying: Song | null;
  /** Where the song playing was started from (an album, an artist, a search): reported with its play. */
  playContext: PlayContext | undefined;
  quality: AudioQuality;
  paused: boolean;
  /** The audio's position and length in ms (NaN until the stream says). */
  position: number;
  duration: number;
  lyrics: GetLyricsResponse | null;
  lyricsOpen: boolean;
  queueOpen: boolean;
  /** The video player, while its page is on screen. */
  video: VideoState | null;
  /** Whether the user's export (Download my data) is being fetched: its button waits meanwhile. */
  exportingMyData: boolean;
}

type Listener = (state: State, previous: State) => void;
interface Subscription {
  listener: Listener;
  /** The state this subscriber last heard of. */
  seen: State;
}

let state: State;
const subscriptions: Subscription[] = [];
let notifying = false;
let serials = 0;

export const store = {
  get state(): State {
    return state;
  },

  /** The first state, and no subscribers yet. */
  init(lang: Lang, settings: DemoSettings, route: Route) {
    subscriptions.length = 0;
    state = {
      starting: true, lang, settings, route, user: null, developer: false, displayName: '', view: null, loading: false, status: '', searchText: '',
      saved: new Set(), following: new Set(), myPlaylists: null, menu: null,
      queue: EMPTY_QUEUE, nowPlaying: null, playContext: undefined, quality: 'AUDIO_QUALITY_STANDARD', paused: true, position: 0, duration: Number.NaN,
      lyrics: null, lyricsOpen: false, queueOpen: false, video: null, exportingMyData: false,
    };
  },

  /** Changes the state; a change that changes nothing tells no one. */
  update(change: Partial<State> | ((state: State) => Partial<State>)) {
    const patch = typeof change === 'function' ? change(state) : change;
    if (Object.entries(patch).every(([key, value]) => Object.is(state[key as keyof State], value))) return;
    state = { ...state, ...patch };
    // A subscriber that updates in turn: the loop goes on until every subscriber has heard of the newest state, once.
    if (notifying) return;
    notifying = true;
    try {
      while (subscriptions.some((s) => s.seen !== state)) {
        for (const subscription of subscriptions) {
          if (subscription.seen === state) continue;
          const previous = subscription.seen;
          subscription.seen = state;
          subscription.listener(state, previous);
        }
      }
    } finally {
      notifying = false;
    }
  },

  /** Calls `listener` now and after every change. */
  subscribe(listener: Listener) {
    const subscription = { listener, seen: state };
    subscriptions.push(subscription);
    listener(state, state);
  },

  /** A page newly loaded, on screen. */
  show(view: View) {
    store.update({ view: { ...view, serial: ++serials } });
  },

  /** Changes the page on screen if it is still `view`'s showing; says whether it was. */
  patchView<V extends View>(view: Shown<V>, change: (current: Shown<V>) => Partial<V>): boolean {
    const current = state.view as Shown<V> | null;
    if (current?.serial !== view.serial) return false;
    const patch = change(current);
    if (Object.entries(patch).some(([key, value]) => !Object.is(current[key as keyof V], value))) store.update({ view: { ...current, ...patch } });
    return true;
  },
};

/** A set with `key` in or out. */
export function setHas<T>(set: ReadonlySet<T>, key: T, has: boolean): ReadonlySet<T> {
  if (set.has(key) === has) return set;
  const next = new Set(set);
  if (has) next.add(key);
  else next.delete(key);
  return next;
}
