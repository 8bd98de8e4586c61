// The Maqam demo: a small music app built on the SDK, as an app developer
// would build one. Sign in with PKCE, browse featured artists, artist pages
// (top tracks, discography by type, related artists) and album pages (tracks
// by disc), play what has demo media in a player bar that stays while you
// browse, and follow time-synced lyrics that light up with the music and seek
// when tapped. Like songs and albums, follow artists, and find them again in
// your library; what you play shows up under "Recently played" (reported by
// the SDK's PlayReporter). Make playlists, add any song to one from its
// row, play them through, reorder them by dragging or with the keyboard, and
// share a public one by its link. Arabic (right to left) first, English a
// tap away.
import {
  localStorageTokens, MaqamClient, MaqamError, NotFoundError, PermissionDeniedError, SignInRequiredError,
  type Album, type AlbumType, type Artist, type AudioQuality, type GetLyricsResponse, type PlayContext, type Playlist, type PlaylistItem, type Song,
  type TokenInfoResponse,
} from '@maqam/sdk';
import { PlayQueue, type QueueState } from './play-queue.ts';
import { iso, TEXT, type Lang, type Texts } from './texts.ts';

interface DemoSettings {
  issuer: string;
  clientId: string;
  /** Songs that have demo audio: the only ones the app offers to play. */
  mediaSongs: string[];
  /** Artists the home view features, chosen by the server from the catalog. */
  featuredArtists: string[];
}

type LibraryTab = 'songs' | 'albums' | 'artists';
type Route =
  | { view: 'home' } | { view: 'artist'; id: string } | { view: 'album'; id: string } | { view: 'search'; q: string } | { view: 'library'; tab: LibraryTab }
  | { view: 'playlists' } | { view: 'playlist'; id: string };

/** The data of the view on screen. */
type View =
  | { view: 'home'; playable: Song[]; recent: Song[]; artists: Artist[]; releases: Album[] }
  | { view: 'library'; tab: LibraryTab; songs: Song[]; albums: Album[]; artists: Artist[]; token: string }
  | { view: 'artist'; artist: Artist; top: Song[]; albums: Album[]; albumType: AlbumType | ''; albumsToken: string; related: Artist[]; relatedToken: string }
  | { view: 'album'; album: Album; tracks: Song[] }
  | { view: 'search'; q: string; artists: Artist[]; albums: Album[]; songs: Song[] }
  | { view: 'playlists'; playlists: Playlist[] }
  | { view: 'playlist'; playlist: Playlist; items: PlaylistItem[]; token: string; mine: boolean };

const RELATED_PAGE_SIZE = 6;
const LIBRARY_PAGE_SIZE = 50;
const DISCOGRAPHY_PAGE_SIZE = 12;
const PLAYLIST_PAGE_SIZE = 100;
/** Songs the home's first shelf offers to play. */
const HOME_PLAYABLE = 8;

const readSettings = async () => (await (await fetch('/demo/config.json')).json()) as DemoSettings;
let settings = await readSettings();
// The sign-in returns to the issuer's origin; start there so the stored PKCE verifier is found on return.
if (new URL(settings.issuer).origin !== location.origin) location.replace(`${settings.issuer}/demo`);

/** The language chosen here before, else the first of the browser's that the demo speaks, else Arabic. */
function firstLanguage(): Lang {
  const chosen = localStorage.getItem('maqam-demo:lang');
  if (chosen === 'ar' || chosen === 'en') return chosen;
  for (const tag of navigator.languages ?? [navigator.language]) {
    const primary = tag.toLowerCase().split('-')[0];
    if (primary === 'ar' || primary === 'en') return primary;
  }
  return 'ar';
}

const state = {
  lang: firstLanguage(),
  user: null as TokenInfoResponse | null,
  /** The signed-in account's display name, as the header shows it. */
  displayName: '',
  view: null as View | null,
  loading: false,
  nowPlaying: null as Song | null,
  lyrics: null as GetLyricsResponse | null,
  lyricsOpen: false,
  quality: 'AUDIO_QUALITY_STANDARD' as AudioQuality,
  /** What the user has liked ("song:ID", "album:ID") and follows (artist ids), as far as the views on screen asked. */
  saved: new Set<string>(),
  following: new Set<string>(),
  /** Where the song playing was started from (an album, an artist, a search): reported with its play. */
  playContext: undefined as PlayContext | undefined,
  queueOpen: false,
  /** The user's playlists, for the Add to playlist menu; read when it first opens. */
  myPlaylists: null as Playlist[] | null,
};

const maqam = new MaqamClient({
  baseUrl: location.origin,
  auth: {
    clientId: settings.clientId,
    redirectUri: `${settings.issuer}/demo/callback`,
    issuer: settings.issuer,
    storage: localStorageTokens(),
    // Another tab signed out, or a refresh was refused: show the signed-out page.
    onTokens: (tokens) => {
      if (!tokens && state.user) {
        state.user = null;
        render();
      }
    },
    onSignedOut: () => say(t().signedOut),
  },
});
// Plays are measured and reported by the SDK; they wait in localStorage while offline.
const reporter = maqam.playReporter({ storage: localStorageTokens(), onReported: () => void refreshRecent() });
/** What plays, and what next: kept while you browse, and by this tab across a reload. */
const queue = new PlayQueue<Song>();
const QUEUE_KEY = 'maqam-demo:queue';
try {
  const kept = sessionStorage.getItem(QUEUE_KEY);
  if (kept) queue.restore(JSON.parse(kept) as QueueState<Song>);
} catch {
  sessionStorage.removeItem(QUEUE_KEY);
}
const keepQueue = () => sessionStorage.setItem(QUEUE_KEY, JSON.stringify(queue));
// For the console: try `await maqam.artists.get('artist-1')`.
Object.assign(globalThis, { maqam });

const t = (): Texts => TEXT[state.lang];
const $ = (id: string) => document.getElementById(id)!;
const audio = $('audio') as HTMLAudioElement;

/** A DOM element; text goes in as text, never as HTML. */
function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Partial<Record<string, string | ((event: Event) => void)>> = {},
  ...children: (Node | string | null | false | undefined)[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (typeof value === 'function') element.addEventListener(name.slice(2).toLowerCase(), value);
    else if (value !== undefined) element.setAttribute(name, value);
  }
  for (const child of children) if (child !== null && child !== false && child !== undefined) element.append(child);
  return element;
}

/** The player's symbols, drawn (a system may have no font with ⏮ or 🔀); not mirrored right to left, as they stand for time. */
const ICONS = {
  previous: 'M6 5h2v14H6zM20 5v14L9 12z',
  next: 'M16 5h2v14h-2zM4 5v14l11-7z',
  shuffle: 'M16 4h4v4l-1.5-1.5-4 4-1.4-1.4 4-4zM4 6.5l1.4-1.4L19 18.6V17h1v3h-3v-1h1.6zM20 16v4h-4l1.5-1.5-3.2-3.2 1.4-1.4 3.2 3.2z',
  play: 'M7 4v16l13-8z',
  pause: 'M6 4h4v16H6zm8 0h4v16h-4z',
};
function icon(name: keyof typeof ICONS): SVGSVGElement {
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('aria-hidden', 'true');
  svg.setAttribute('class', 'glyph');
  const path = document.createElementNS('http://www.w3.org/2000/svg', 'path');
  path.setAttribute('d', ICONS[name]);
  path.setAttribute('fill', 'currentColor');
  svg.append(path);
  return svg;
}

function say(message: string) {
  $('status').textContent = message;
}

/** Runs a user action; errors become a readable status line, a lost session the sign-in page. */
async function act(work: () => Promise<void>) {
  say('');
  try {
    await work();
  } catch (error) {
    if (error instanceof SignInRequiredError) {
      state.user = null;
      say(t().signedOut);
    } else {
      say(t().error(error instanceof MaqamError ? `${error.message} (${error.code})` : String(error)));
    }
  }
  render();
}

// ---- formatting ----

const digits = () => (state.lang === 'ar' ? 'ar-EG' : 'en');
const number = (n: number) => new Intl.NumberFormat(digits()).format(n);
const compact = (n: number) => new Intl.NumberFormat(digits(), { notation: 'compact', maximumFractionDigits: 1 }).format(n);
function clock(ms = 0): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  return `${number(Math.floor(seconds / 60))}:${new Intl.NumberFormat(digits(), { minimumIntegerDigits: 2 }).format(seconds % 60)}`;
}
const year = (date: string) => new Intl.NumberFormat(digits(), { useGrouping: false }).format(Number(date.slice(0, 4)));
/** Credits as one line, each name isolated: "Clara Lane، وليد منصور" keeps each name's own direction inside the other's. */
const artistNames = (refs: Song['artists']) => refs.map((a) => iso(a.name.value)).join(state.lang === 'ar' ? '، ' : ', ');
const playable = (song: Song) => settings.mediaSongs.includes(song.id.value);

function cover(images: { url: string }[] | undefined, alt: string, className: string) {
  const url = images?.[0]?.url;
  return url ? h('img', { src: url, alt, class: className, loading: 'lazy', width: '300', height: '300' }) : h('div', { class: `${className} blank`, role: 'img', 'aria-label': alt });
}

// ---- routes and loading ----

function currentRoute(): Route {
  if (location.hash === '#/playlists') return { view: 'playlists' };
  const [, view, id] = /^#\/(artist|album|search|library|playlist)\/(.+)$/.exec(location.hash) ?? [];
  if (view === 'artist' || view === 'album' || view === 'playlist') return { view, id: decodeURIComponent(id!) };
  if (view === 'search') return { view, q: decodeURIComponent(id!) };
  if (view === 'library' && (id === 'songs' || id === 'albums' || id === 'artists')) return { view, tab: id };
  return { view: 'home' };
}

function link(route: Route): string {
  switch (route.view) {
    case 'home': return '#/';
    case 'search': return `#/search/${encodeURIComponent(route.q)}`;
    case 'library': return `#/library/${route.tab}`;
    case 'playlists': return '#/playlists';
    default: return `#/${route.view}/${encodeURIComponent(route.id)}`;
  }
}

/** The search in flight; a newer keystroke cancels it. */
let searching: AbortController | undefined;

async function loadView(route: Route): Promise<View> {
  const locale = state.lang;
  if (route.view === 'search') {
    searching?.abort();
    const controller = (searching = new AbortController());
    const { items: results } = await maqam.search(route.q, { locale, pageSize: 40, signal: controller.signal });
    return {
      view: 'search', q: route.q,
      artists: results.flatMap((r) => (r.artist ? [r.artist] : [])),
      albums: results.flatMap((r) => (r.album ? [r.album] : [])),
      songs: results.flatMap((r) => (r.song ? [r.song] : [])),
    };
  }
  if (route.view === 'artist') {
    const [artist, top, discography, related] = await Promise.all([
      maqam.artists.get(route.id, { locale }),
      maqam.artists.listTopTracks(route.id, { locale, pageSize: 10 }),
      maqam.artists.listAlbums(route.id, { locale, pageSize: DISCOGRAPHY_PAGE_SIZE }),
      maqam.artists.listRelated(route.id, { locale, pageSize: RELATED_PAGE_SIZE }),
    ]);
    return {
      view: 'artist', artist, top: top.items, albums: discography.items, albumType: '', albumsToken: discography.nextPageToken,
      related: related.items, relatedToken: related.nextPageToken,
    };
  }
  if (route.view === 'album') {
    const [album, tracks] = await Promise.all([maqam.albums.get(route.id, { locale }), collect(maqam.albums.tracks(route.id, { locale, pageSize: 100 }))]);
    return { view: 'album', album, tracks };
  }
  if (route.view === 'library') {
    const view: Extract<View, { view: 'library' }> = { view: 'library', tab: route.tab, songs: [], albums: [], artists: [], token: '' };
    await moreLibrary(view);
    return view;
  }
  if (route.view === 'playlists') {
    state.myPlaylists = await collect(maqam.playlists.list({ locale, pageSize: 50 }));
    return { view: 'playlists', playlists: state.myPlaylists };
  }
  if (route.view === 'playlist') {
    const { playlist, items, nextPageToken } = await maqam.playlists.get(route.id, { locale, pageSize: PLAYLIST_PAGE_SIZE });
    return { view: 'playlist', playlist, items, token: nextPageToken, mine: playlist.ownerId === state.user?.sub };
  }
  const [songs, artists, recent] = await Promise.all([
    settings.mediaSongs.length > 0 ? maqam.songs.batchGet(settings.mediaSongs.slice(0, HOME_PLAYABLE), { locale }) : new Map(),
    settings.featuredArtists.length > 0 ? maqam.artists.batchGet(settings.featuredArtists, { locale }) : new Map(),
    recentlyPlayed(),
  ]);
  const featured = [...artists.values()].flatMap((result) => (result.artist ? [result.artist] : []));
  // New releases: the latest albums of the first featured artists, newest first.
  const latest = await Promise.all(featured.slice(0, 6).map((artist) => maqam.artists.listAlbums(artist.id.value, { locale, pageSize: 2 })));
  const releases = latest.flatMap((page) => page.items).sort((a, b) => b.releaseDate.localeCompare(a.releaseDate));
  return { view: 'home', playable: [...songs.values()].flatMap((result) => (result.song ? [result.song] : [])), recent, artists: featured, releases };
}

/** The songs of the user's latest counted plays, each once, newest first. */
async function recentlyPlayed(): Promise<Song[]> {
  const songs = new Map<string, Song>();
  for await (const entry of maqam.history.list({ locale: state.lang, pageSize: 20 })) {
    if (entry.song.id && !songs.has(entry.song.id.value)) songs.set(entry.song.id.value, entry.song);
    if (songs.size === 8) break;
  }
  return [...songs.values()];
}

/** A play was reported: the home view's row shows it. */
async function refreshRecent() {
  const view = state.view;
  if (view?.view !== 'home') return;
  const recent = await recentlyPlayed().catch(() => view.recent);
  if (state.view !== view) return;
  view.recent = recent;
  await markSaved(recent, []);
  renderMain();
}

/** The next page of the library tab on screen. */
async function moreLibrary(view: Extract<View, { view: 'library' }>) {
  const options = { locale: state.lang, pageSize: LIBRARY_PAGE_SIZE, ...(view.token ? { pageToken: view.token } : {}) };
  if (view.tab === 'artists') {
    // Followed artists come through the SDK's iterator: one page of it.
    const page: Artist[] = [];
    for await (const { artist } of maqam.library.followed(options)) {
      page.push(artist);
      if (page.length === LIBRARY_PAGE_SIZE) break;
    }
    view.artists.push(...page);
    for (const artist of page) state.following.add(artist.id.value);
    return;
  }
  const page = await maqam.library.listPage({ ...options, types: [view.tab === 'songs' ? 'song' : 'album'] });
  for (const item of page.items) {
    if (item.song) view.songs.push(item.song);
    if (item.album) view.albums.push(item.album);
  }
  view.token = page.nextPageToken;
}

/** Asks which of these songs and albums the user has liked (100 ids a call), so their hearts show it. */
async function markSaved(songs: readonly Song[], albums: readonly Album[]) {
  const songIds = [...new Set(songs.flatMap((song) => (song.id ? [song.id.value] : [])))];
  const albumIds = [...new Set(albums.map((album) => album.id.value))];
  const calls: Promise<void>[] = [];
  for (let i = 0; i < songIds.length + albumIds.length; i += 100) {
    const ids = [...songIds.map((id) => ['song', id] as const), ...albumIds.map((id) => ['album', id] as const)].slice(i, i + 100);
    calls.push(maqam.library.check({ songs: ids.filter(([kind]) => kind === 'song').map(([, id]) => id), albums: ids.filter(([kind]) => kind === 'album').map(([, id]) => id) })
      .then(({ songs: songStates, albums: albumStates }) => {
        for (const [id, { saved }] of songStates) setSaved(`song:${id}`, saved);
        for (const [id, { saved }] of albumStates) setSaved(`album:${id}`, saved);
      }));
  }
  await Promise.all(calls);
}

function setSaved(key: string, saved: boolean) {
  if (saved) state.saved.add(key);
  else state.saved.delete(key);
}

/** The songs and albums a view shows, whose hearts it needs. */
function savedItemsOf(view: View): { songs: Song[]; albums: Album[] } {
  switch (view.view) {
    case 'home': return { songs: [...view.playable, ...view.recent], albums: view.releases };
    case 'artist': return { songs: view.top, albums: view.albums };
    case 'album': return { songs: view.tracks, albums: [view.album] };
    case 'search': return { songs: view.songs, albums: view.albums };
    case 'library': return { songs: view.songs, albums: view.albums };
    case 'playlists': return { songs: [], albums: [] };
    case 'playlist': return { songs: view.items.flatMap((item) => (item.song ? [item.song] : [])), albums: [] };
  }
}

/** A view with what the user has liked and follows in it. */
async function withLibraryState(view: View): Promise<View> {
  const { songs, albums } = savedItemsOf(view);
  await Promise.all([
    markSaved(songs, albums),
    view.view === 'artist'
      ? maqam.library.isFollowing([view.artist.id.value]).then((states) => {
          if (states.get(view.artist.id.value)?.following) state.following.add(view.artist.id.value);
          else state.following.delete(view.artist.id.value);
        })
      : undefined,
  ]);
  return view;
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

/** How many navigations have begun: one that ends after a newer began shows nothing (the newer owns the screen). */
let navigations = 0;

/** Shows the view the address names (the old one stays on screen until it has loaded), then moves focus to its heading. */
async function navigate(focus = true) {
  if (!state.user) return;
  const navigation = ++navigations;
  state.loading = true;
  renderMain();
  // What has media grows while the server packages the demo's music.
  settings = await readSettings().catch(() => settings);
  const route = currentRoute();
  // The box shows the search on screen: kept while typing, restored by Back, emptied elsewhere.
  const box = $('search') as HTMLInputElement;
  if (route.view !== 'search') box.value = '';
  else if (box.value.trim() !== route.q) box.value = route.q;
  await act(async () => {
    try {
      const view = await withLibraryState(await loadView(route));
      // Back pressed while a slow view loaded: the view Back asked for may already be on screen.
      if (navigation === navigations) state.view = view;
    } catch (error) {
      // A newer keystroke cancelled this search: its own answer will show.
      if (error instanceof Error && error.name === 'AbortError') return;
      throw error;
    } finally {
      if (navigation === navigations) state.loading = false;
    }
  });
  if (navigation !== navigations) return;
  scrollTo({ top: 0 });
  // Typing keeps the focus in the search box.
  if (focus) $('main').querySelector<HTMLElement>('h2')?.focus({ preventScroll: true });
}

// ---- playing ----

/** The hls.js instance of the stream playing, where HLS is not native. */
let player: { destroy(): void } | undefined;

/** Starts the queue's current song: its stream acquired, its lyrics fetched, the lock screen told. */
async function play(song: Song) {
  const { stream } = await maqam.streaming.acquireMusic(song.id.value, { maxQuality: state.quality });
  // The song before it, if it was playing, ends here: its play is reported.
  reporter.end();
  state.nowPlaying = song;
  state.playContext = contextOf(currentRoute());
  state.lyrics = null;
  keepQueue();
  player?.destroy();
  player = undefined;
  if (audio.canPlayType('application/vnd.apple.mpegurl')) {
    audio.src = stream.manifestUrl;
  } else {
    // Browsers without native HLS get hls.js, loaded only now.
    const { default: Hls } = await import('hls.js');
    if (!Hls.isSupported()) throw new Error(t().cannotPlay);
    const hls = new Hls();
    hls.loadSource(stream.manifestUrl);
    hls.attachMedia(audio);
    player = hls;
  }
  describeToSystem(song);
  renderPlayer();
  renderQueue();
  markCurrentRows();
  // The lyrics load while the audio starts, and show as soon as they come: a slow start must not hold them back.
  await Promise.all([
    audio.play().catch(() => undefined), // autoplay may be refused; the play button is there
    song.hasLyrics ? loadLyrics(song) : undefined,
  ]);
}

async function loadLyrics(song: Song) {
  const lyrics = await maqam.songs.lyrics(song.id.value).catch((error: unknown) => {
    if (error instanceof NotFoundError) return null;
    throw error;
  });
  // Another song may have started meanwhile: its lyrics are its own.
  if (state.nowPlaying !== song) return;
  state.lyrics = lyrics;
  renderLyrics();
}

/** Plays `songs` (those with media) from `song`, in order or shuffled: an album, a playlist, a list of results. */
function playFrom(songs: readonly Song[], song?: Song, shuffled = false) {
  const playableSongs = songs.filter(playable);
  const first = song ? playableSongs.findIndex((other) => other.id.value === song.id.value) : shuffled ? Math.floor(Math.random() * playableSongs.length) : 0;
  if (playableSongs.length === 0 || first === -1) {
    say(t().noPlayable);
    return;
  }
  queue.start(playableSongs, first, shuffled);
  void playCurrent();
}

/** Plays the queue's current song; one that has lost its media since says so. */
async function playCurrent() {
  const song = queue.current;
  if (!song) return;
  await act(async () => {
    try {
      await play(song);
    } catch (error) {
      if (error instanceof NotFoundError) say(t().noMedia);
      else throw error;
    }
  });
}

function playAction(song: Song, list: readonly Song[] = [song]) {
  return () => playFrom(list, song);
}

function next() {
  if (queue.next()) void playCurrent();
}

/** Back to the start of the song a few seconds in, as players do; else the song before. */
function previous() {
  if (audio.currentTime > 3 || !queue.hasPrevious) {
    audio.currentTime = 0;
    return;
  }
  queue.previous();
  void playCurrent();
}

function toggleShuffle() {
  queue.setShuffled(!queue.shuffled);
  keepQueue();
  say(queue.shuffled ? t().shuffleOn : t().shuffleOff);
  renderPlayer();
  renderQueue();
}

function togglePlaying() {
  if (!state.nowPlaying) return;
  if (audio.paused) {
    // A queue restored after a reload has no stream yet.
    if (!audio.currentSrc) void playCurrent();
    else void audio.play();
  } else {
    audio.pause();
  }
}

function seekBy(seconds: number) {
  if (!state.nowPlaying || !Number.isFinite(audio.duration)) return;
  audio.currentTime = Math.max(0, Math.min(audio.duration, audio.currentTime + seconds));
}

/**
 * The lock screen, the notification and the media keys (Media Session API):
 * what plays, with its cover, and what play, pause, next, previous and
 * seeking do.
 */
function describeToSystem(song: Song) {
  if (!('mediaSession' in navigator)) return;
  navigator.mediaSession.metadata = new MediaMetadata({
    title: song.title.value,
    artist: song.artists.map((ref) => ref.name.value).join(', '),
    artwork: song.artwork.map((image) => ({ src: image.url, sizes: `${image.width}x${image.height}`, type: image.url.endsWith('.svg') ? 'image/svg+xml' : 'image/jpeg' })),
  });
}
if ('mediaSession' in navigator) {
  const actions: [MediaSessionAction, MediaSessionActionHandler][] = [
    ['play', () => togglePlaying()],
    ['pause', () => audio.pause()],
    ['nexttrack', () => next()],
    ['previoustrack', () => previous()],
    ['seekbackward', (details) => seekBy(-(details.seekOffset ?? 10))],
    ['seekforward', (details) => seekBy(details.seekOffset ?? 10)],
    ['seekto', (details) => {
      if (details.seekTime !== undefined) audio.currentTime = details.seekTime;
    }],
  ];
  for (const [action, handler] of actions) {
    try {
      navigator.mediaSession.setActionHandler(action, handler);
    } catch {
      // A browser that does not know this action.
    }
  }
}

/** The rows of the song playing stand out wherever it is listed. */
function markCurrentRows() {
  const id = state.nowPlaying?.id.value;
  for (const row of Array.from(document.querySelectorAll<HTMLElement>('li[data-song]'))) row.classList.toggle('current', row.dataset.song === id);
}

/**
 * Keyboard shortcuts, by the key's place (so an Arabic layout works too):
 * Space or K play and pause, N and P move through the queue, S shuffles,
 * L opens the lyrics, Q the queue, the arrows seek (in the direction the
 * progress bar fills), / goes to the search box. Not while typing, and not
 * Space on a button, which presses it.
 */
document.addEventListener('keydown', (event) => {
  if (event.ctrlKey || event.metaKey || event.altKey || !state.user) return;
  const target = event.target as HTMLElement;
  if (target.closest('input, textarea, select, [contenteditable="true"]')) return;
  const onControl = target.closest('button, a, [role="menuitem"]') !== null;
  const forward = state.lang === 'ar' ? 'ArrowLeft' : 'ArrowRight';
  const backward = state.lang === 'ar' ? 'ArrowRight' : 'ArrowLeft';
  switch (event.code) {
    case 'Space':
      if (onControl) return;
      togglePlaying();
      break;
    case 'KeyK': togglePlaying(); break;
    case 'KeyN': next(); break;
    case 'KeyP': previous(); break;
    case 'KeyS': toggleShuffle(); break;
    case 'KeyL': if (state.nowPlaying?.hasLyrics) toggleLyrics(); break;
    case 'KeyQ': toggleQueue(); break;
    case forward: if (onControl) return; seekBy(5); break;
    case backward: if (onControl) return; seekBy(-5); break;
    case 'Slash': ($('search') as HTMLInputElement).focus(); break;
    default: return;
  }
  event.preventDefault();
});

/** The synced line sung at `ms`: the last that has started. */
function activeLine(ms: number): number {
  const lines = state.lyrics?.syncedLyrics?.lines ?? [];
  let active = -1;
  for (let i = 0; i < lines.length; i++) if (Number(lines[i]!.startTimeMs) <= ms) active = i;
  return active;
}

/** Progress and the lit lyrics line follow the audio without re-rendering the page. */
function onTime() {
  const duration = Number.isFinite(audio.duration) ? audio.duration * 1000 : (state.nowPlaying?.durationMs ?? 0);
  const position = audio.currentTime * 1000;
  const seek = document.querySelector<HTMLInputElement>('#seek');
  if (seek) {
    seek.max = String(Math.round(duration));
    seek.value = String(Math.round(position));
    seek.setAttribute('aria-valuetext', `${clock(position)} / ${clock(duration)}`);
  }
  const elapsed = document.getElementById('elapsed');
  if (elapsed) elapsed.textContent = clock(position);
  const total = document.getElementById('total');
  if (total) total.textContent = clock(duration);
  const active = activeLine(position);
  for (const line of Array.from(document.querySelectorAll<HTMLElement>('#lyrics [data-line]'))) {
    const isActive = Number(line.dataset.line) === active;
    if (isActive && !line.hasAttribute('aria-current')) {
      line.setAttribute('aria-current', 'true');
      line.scrollIntoView({ block: 'center', behavior: 'smooth' });
    } else if (!isActive && line.hasAttribute('aria-current')) {
      line.removeAttribute('aria-current');
    }
  }
}
audio.addEventListener('timeupdate', onTime);
audio.addEventListener('timeupdate', () => {
  if ('mediaSession' in navigator && Number.isFinite(audio.duration) && audio.duration > 0) {
    navigator.mediaSession.setPositionState({ duration: audio.duration, position: Math.min(audio.currentTime, audio.duration), playbackRate: audio.playbackRate });
  }
});
audio.addEventListener('durationchange', onTime);
audio.addEventListener('play', () => {
  const song = state.nowPlaying;
  if (song?.id && reporter.current?.songId === song.id.value) reporter.resume();
  else if (song?.id) reporter.start(song.id.value, { durationMs: song.durationMs, context: state.playContext });
  if ('mediaSession' in navigator) navigator.mediaSession.playbackState = 'playing';
  renderPlayer();
});
audio.addEventListener('pause', () => {
  reporter.pause();
  if ('mediaSession' in navigator) navigator.mediaSession.playbackState = 'paused';
  renderPlayer();
});
audio.addEventListener('seeking', () => reporter.seek());
audio.addEventListener('ended', () => {
  void reporter.end();
  // The next song of the queue; at its end, the player stops.
  next();
});
// Leaving the page ends the play; it waits in localStorage and is reported on the next visit.
addEventListener('pagehide', () => void reporter.end());

/** Where a song is started from, as a play reports it. */
function contextOf(route: Route): PlayContext | undefined {
  switch (route.view) {
    case 'album': return { albumId: { value: route.id } };
    case 'artist': return { artistId: { value: route.id } };
    case 'search': return { searchQuery: route.q.slice(0, 200) };
    case 'playlist': return { playlistId: { value: route.id } };
    default: return undefined;
  }
}

// ---- rendering ----

function render() {
  const text = t();
  document.documentElement.lang = state.lang;
  document.documentElement.dir = state.lang === 'ar' ? 'rtl' : 'ltr';
  document.title = text.title;
  $('controls').replaceChildren(
    h('button', { type: 'button', lang: state.lang === 'ar' ? 'en' : 'ar', class: 'lang', 'data-testid': 'lang', onclick: () => void switchLanguage() }, text.otherLang),
    ...(state.user
      ? [
          // The account's name, never the token's scopes: a listener has no use for OAuth's words.
          h('span', { 'data-testid': 'user', class: 'meta' }, text.signedInAs(state.displayName || state.user.sub)),
          h('button', { type: 'button', class: 'sign-out', 'data-testid': 'sign-out', onclick: () => void act(signOut) }, h('span', { class: 'label' }, text.signOut)),
        ]
      : [h('button', { type: 'button', class: 'primary', 'data-testid': 'sign-in', onclick: () => void signIn() }, text.signIn)]),
  );
  $('home-link').setAttribute('title', text.home);
  const box = $('search') as HTMLInputElement;
  box.placeholder = text.searchPlaceholder;
  box.setAttribute('aria-label', text.search);
  $('search-form').hidden = !state.user;
  renderSections(text);
  renderMain();
  renderPlayer();
  renderLyrics();
  renderQueue();
}

/** Home and the library's pages, one tap away on every view. */
function renderSections(text: Texts) {
  const nav = $('sections');
  nav.hidden = !state.user;
  nav.setAttribute('aria-label', text.library);
  const route = currentRoute();
  const here = (target: Route) => {
    const same = route.view === target.view && (target.view !== 'library' || (route.view === 'library' && route.tab === target.tab));
    // A playlist's page is one of Playlists'.
    return same || (target.view === 'playlists' && route.view === 'playlist') ? { 'aria-current': 'page' } : {};
  };
  const tab = (target: Route, label: string, testId: string) => h('a', { href: link(target), 'data-testid': testId, ...here(target) }, label);
  nav.replaceChildren(
    tab({ view: 'home' }, text.home, 'nav-home'),
    tab({ view: 'library', tab: 'songs' }, text.likedSongs, 'nav-liked'),
    tab({ view: 'library', tab: 'albums' }, text.savedAlbums, 'nav-albums'),
    tab({ view: 'library', tab: 'artists' }, text.following, 'nav-following'),
    tab({ view: 'playlists' }, text.playlists, 'nav-playlists'),
  );
}

function renderMain() {
  const text = t();
  const main = $('main');
  main.setAttribute('aria-busy', String(state.loading));
  if (!state.user) {
    main.replaceChildren(
      h('section', { class: 'hero' },
        h('h2', { tabindex: '-1' }, text.welcome),
        h('p', {}, text.intro),
        h('button', { type: 'button', class: 'primary', onclick: () => void signIn() }, text.signIn)),
    );
    return;
  }
  const view = state.view;
  if (!view) {
    main.replaceChildren(h('p', { class: 'meta' }, text.loading));
    return;
  }
  renderSections(text);
  if (view.view === 'home') main.replaceChildren(...homeView(view, text));
  else if (view.view === 'library') main.replaceChildren(...libraryView(view, text));
  else if (view.view === 'artist') main.replaceChildren(...artistView(view, text));
  else if (view.view === 'search') main.replaceChildren(...searchView(view, text));
  else if (view.view === 'playlists') main.replaceChildren(...playlistsView(view, text));
  else if (view.view === 'playlist') main.replaceChildren(...playlistView(view, text));
  else main.replaceChildren(...albumView(view, text));
}

function shelf(title: string, testId: string, items: Node[]) {
  const id = `shelf-${testId}`;
  return h('section', { 'aria-labelledby': id, class: 'shelf' }, h('h3', { id }, title), h('ul', { class: 'cards', 'data-testid': testId }, ...items.map((item) => h('li', {}, item))));
}

function artistCard(artist: Artist) {
  return h('a', { href: link({ view: 'artist', id: artist.id.value }), class: 'card artist-card', 'data-testid': 'artist-link' },
    cover(artist.artwork, '', 'portrait'),
    h('span', { class: 'card-title', dir: 'auto' }, artist.name.value),
    h('span', { class: 'meta' }, t().listeners(compact(Number(artist.monthlyListeners)))));
}

function albumCard(album: Album) {
  return h('div', { class: 'card-wrap' },
    h('a', { href: link({ view: 'album', id: album.id.value }), class: 'card', 'data-testid': 'album-link', 'data-album-type': album.albumType },
      cover(album.artwork, '', 'cover'),
      h('span', { class: 'card-title', dir: 'auto' }, album.title.value),
      h('span', { class: 'meta' }, `${t().albumTypes[album.albumType]} · ${year(album.releaseDate)}`)),
    heart('album', album.id.value, album.title.value, 'on-card'));
}

/**
 * A heart that likes a song or album, or unlikes it: shown at once, saved in
 * the background, put back with a message when the save fails.
 */
function heart(kind: 'song' | 'album', id: string, title: string, className = '') {
  const button = h('button', { type: 'button', class: `heart ${className}`, 'data-heart': `${kind}:${id}`, 'data-testid': `heart-${kind}` });
  paintHeart(button, title);
  button.addEventListener('click', () => void toggleSaved(kind, id, title));
  return button;
}

function paintHeart(button: HTMLElement, title: string) {
  const saved = state.saved.has(button.dataset.heart!);
  button.setAttribute('aria-pressed', String(saved));
  button.setAttribute('aria-label', saved ? t().unlike(title) : t().like(title));
  button.textContent = saved ? '♥' : '♡';
}

/** Every heart of the item on screen (a song may show twice) follows its state. */
function paintHearts(key: string, title: string) {
  for (const button of Array.from(document.querySelectorAll<HTMLElement>(`[data-heart="${CSS.escape(key)}"]`))) paintHeart(button, title);
}

async function toggleSaved(kind: 'song' | 'album', id: string, title: string) {
  const key = `${kind}:${id}`;
  const saving = !state.saved.has(key);
  setSaved(key, saving);
  paintHearts(key, title);
  say('');
  try {
    const items = kind === 'song' ? { songs: [id] } : { albums: [id] };
    if (saving) {
      const { songs, albums } = await maqam.library.save(items);
      const result = (kind === 'song' ? songs : albums).get(id);
      if (result?.error) throw new Error(result.error.message);
    } else {
      await maqam.library.remove(items);
    }
  } catch (error) {
    setSaved(key, !saving);
    paintHearts(key, title);
    say(error instanceof PermissionDeniedError ? t().needsWrite : t().couldNotSave(title));
  }
}

/** Follow or unfollow the artist, shown at once and put back if it fails. */
function followButton(artist: Artist) {
  const id = artist.id.value;
  const name = artist.name.value;
  const paint = (button: HTMLElement) => {
    const following = state.following.has(id);
    // Its name is what it shows (the state is aria-pressed), so a voice command of the visible word works.
    button.setAttribute('aria-pressed', String(following));
    button.textContent = following ? `✓ ${t().followingNow}` : t().follow;
  };
  const button = h('button', { type: 'button', class: 'follow', 'data-testid': 'follow' });
  paint(button);
  button.addEventListener('click', () => void (async () => {
    const following = !state.following.has(id);
    if (following) state.following.add(id);
    else state.following.delete(id);
    paint(button);
    say('');
    try {
      if (following) {
        const result = (await maqam.library.follow([id])).get(id);
        if (result?.error) throw new Error(result.error.message);
      } else {
        await maqam.library.unfollow([id]);
      }
    } catch (error) {
      if (following) state.following.delete(id);
      else state.following.add(id);
      paint(button);
      say(error instanceof PermissionDeniedError ? t().needsWrite : t().couldNotSave(name));
    }
  })());
  return button;
}

function homeView(view: Extract<View, { view: 'home' }>, text: Texts): Node[] {
  return [
    h('h2', { tabindex: '-1', class: 'visually-hidden' }, text.home),
    // The artists people know and their latest albums first, each album a tap from playing.
    shelf(text.featuredArtists, 'featured', view.artists.map(artistCard)),
    shelf(text.newReleases, 'releases', view.releases.map(albumCard)),
    view.playable.length > 0
      ? h('section', { 'aria-labelledby': 'shelf-playable', class: 'shelf' },
          h('h3', { id: 'shelf-playable' }, text.playableNow),
          trackList(view.playable, text, { showAlbumArt: true, testId: 'playable' }))
      : h('p', { class: 'meta' }, text.noDemoMedia),
    h('section', { 'aria-labelledby': 'shelf-recent', class: 'shelf' },
      h('h3', { id: 'shelf-recent' }, text.recentlyPlayed),
      view.recent.length > 0
        ? trackList(view.recent, text, { showAlbumArt: true, testId: 'recent' })
        : h('p', { class: 'meta', 'data-testid': 'recent-empty' }, text.recentEmpty)),
  ];
}

function libraryView(view: Extract<View, { view: 'library' }>, text: Texts): Node[] {
  const title = view.tab === 'songs' ? text.likedSongs : view.tab === 'albums' ? text.savedAlbums : text.following;
  const empty = view.tab === 'songs' ? view.songs.length === 0 : view.tab === 'albums' ? view.albums.length === 0 : view.artists.length === 0;
  const nodes: (Node | null)[] = [
    h('p', { class: 'eyebrow' }, text.library),
    h('h2', { tabindex: '-1', class: 'page-title', 'data-testid': 'library-title' }, title),
    empty ? h('p', { class: 'meta', 'data-testid': 'library-empty' }, view.tab === 'songs' ? text.likedEmpty : view.tab === 'albums' ? text.albumsEmpty : text.followingEmpty) : null,
    view.tab === 'songs' && view.songs.length > 0 ? trackList(view.songs, text, { showAlbumArt: true, testId: 'liked-songs' }) : null,
    view.tab === 'albums' && view.albums.length > 0 ? h('ul', { class: 'cards', 'data-testid': 'saved-albums' }, ...view.albums.map((album) => h('li', {}, albumCard(album)))) : null,
    view.tab === 'artists' && view.artists.length > 0 ? h('ul', { class: 'cards', 'data-testid': 'followed-artists' }, ...view.artists.map((artist) => h('li', {}, artistCard(artist)))) : null,
    view.token ? h('button', { type: 'button', 'data-testid': 'more-library', onclick: () => void act(async () => {
      await moreLibrary(view);
      await markSaved(view.songs, view.albums);
    }) }, text.more) : null,
  ];
  return nodes.filter((node): node is Node => node !== null);
}

function searchView(view: Extract<View, { view: 'search' }>, text: Texts): Node[] {
  const empty = view.artists.length + view.albums.length + view.songs.length === 0;
  return [
    h('h2', { tabindex: '-1', 'data-testid': 'search-heading' }, text.resultsFor(view.q)),
    empty ? h('p', { class: 'meta', 'data-testid': 'no-results' }, text.noResults) : null,
    view.artists.length > 0 ? shelf(text.artists, 'search-artists', view.artists.map(artistCard)) : null,
    view.albums.length > 0 ? shelf(text.albums, 'search-albums', view.albums.map(albumCard)) : null,
    view.songs.length > 0
      ? h('section', { 'aria-labelledby': 'search-songs-heading' }, h('h3', { id: 'search-songs-heading' }, text.tracks), trackList(view.songs, text, { showAlbumArt: true, testId: 'search-songs' }))
      : null,
  ].filter((node): node is HTMLElement => node !== null);
}

function artistView(view: Extract<View, { view: 'artist' }>, text: Texts): Node[] {
  const { artist } = view;
  const filters: (AlbumType | '')[] = ['', 'ALBUM_TYPE_ALBUM', 'ALBUM_TYPE_SINGLE', 'ALBUM_TYPE_EP', 'ALBUM_TYPE_COMPILATION'];
  return [
    h('header', { class: 'profile' },
      cover(artist.artwork, '', 'portrait large'),
      h('div', {},
        h('p', { class: 'eyebrow' }, artist.isVerified ? `✓ ${text.verified}` : text.artist),
        h('h2', { tabindex: '-1', dir: 'auto', 'data-testid': 'artist-name' }, artist.name.value),
        artist.name.originalValue !== artist.name.value ? h('p', { class: 'original', lang: '' }, artist.name.originalValue) : null,
        h('p', { class: 'meta' }, [text.listeners(compact(Number(artist.monthlyListeners))), text.followers(compact(Number(artist.followerCount))), ...artist.genres].join(' · ')),
        followButton(artist),
        artist.bio ? h('p', { class: 'bio' }, artist.bio.value) : null)),
    h('section', { 'aria-labelledby': 'top-heading' },
      h('h3', { id: 'top-heading' }, text.popular),
      playButtons(view.top, text, 'top'),
      trackList(view.top, text, { showAlbumArt: true, testId: 'top-tracks' })),
    h('section', { 'aria-labelledby': 'discography-heading', class: 'shelf' },
      h('h3', { id: 'discography-heading' }, text.discography),
      h('div', { class: 'chips', role: 'group', 'aria-label': text.albumType },
        ...filters.map((type) => h('button', {
          type: 'button', class: 'chip', 'aria-pressed': String(view.albumType === type), 'data-testid': `filter-${type || 'all'}`,
          onclick: () => void act(() => filterDiscography(view, type)),
        }, type ? text.albumTypesPlural[type] : text.all))),
      view.albums.length > 0
        ? h('ul', { class: 'cards', 'data-testid': 'discography' }, ...view.albums.map((album) => h('li', {}, albumCard(album))))
        : h('p', { class: 'meta' }, text.noAlbums),
      view.albumsToken ? h('button', { type: 'button', 'data-testid': 'more-albums', onclick: () => void act(() => moreAlbums(view)) }, text.more) : null),
    h('section', { 'aria-labelledby': 'related-heading', class: 'shelf' },
      h('h3', { id: 'related-heading' }, text.related),
      view.related.length > 0
        ? h('ul', { class: 'cards', 'data-testid': 'related' }, ...view.related.map((other) => h('li', {}, artistCard(other))))
        : h('p', { class: 'meta' }, text.noRelated),
      view.relatedToken
        ? h('button', { type: 'button', 'data-testid': 'more', onclick: () => void act(() => moreRelated(view)) }, text.more)
        : view.related.length > 0 ? h('p', { class: 'meta', 'data-testid': 'no-more' }, text.noMore) : null),
  ];
}

function albumView(view: Extract<View, { view: 'album' }>, text: Texts): Node[] {
  const { album } = view;
  const discs = [...new Set(view.tracks.map((song) => song.discNumber))];
  return [
    h('header', { class: 'profile' },
      cover(album.artwork, '', 'cover large'),
      h('div', {},
        h('p', { class: 'eyebrow' }, text.albumTypes[album.albumType]),
        h('div', { class: 'title-row' },
          h('h2', { tabindex: '-1', dir: 'auto', 'data-testid': 'album-title' }, album.title.value),
          heart('album', album.id.value, album.title.value, 'large')),
        h('p', {}, ...album.artists.flatMap((ref, i) => [
          i > 0 ? (state.lang === 'ar' ? '، ' : ', ') : '',
          h('a', { href: link({ view: 'artist', id: ref.id.value }) }, h('bdi', {}, ref.name.value)),
        ])),
        h('p', { class: 'meta' }, [year(album.releaseDate), text.songCount(album.trackCount, number(album.trackCount)), longDuration(album.totalDurationMs), album.label, ...album.genres].filter(Boolean).join(' · ')),
        playButtons(view.tracks, text, 'album'))),
    ...discs.map((disc) => h('section', { 'aria-label': discs.length > 1 ? text.disc(number(disc)) : text.tracks },
      discs.length > 1 ? h('h3', {}, text.disc(number(disc))) : h('h3', { class: 'visually-hidden' }, text.tracks),
      trackList(view.tracks.filter((song) => song.discNumber === disc), text, { numbered: true, testId: 'tracks' }))),
  ];
}

/** Songs as rows; Play on one plays the list from it (Next and Previous move through the list). */
function trackList(songs: Song[], text: Texts, options: { numbered?: boolean; showAlbumArt?: boolean; testId: string }) {
  return h('ol', { class: 'tracks', 'data-testid': options.testId },
    ...songs.map((song, index) => songRow(song, index, text, { ...options, list: songs })));
}

/** Play and Shuffle for a list of songs (an album, an artist's top songs, a playlist). */
function playButtons(songs: readonly Song[], text: Texts, testId: string) {
  const any = songs.some(playable);
  return h('div', { class: 'actions' },
    h('button', { type: 'button', class: 'primary', 'data-testid': `play-${testId}`, disabled: any ? undefined : '', onclick: () => playFrom(songs) }, `▶ ${text.play}`),
    h('button', { type: 'button', 'data-testid': `shuffle-${testId}`, disabled: any ? undefined : '', onclick: () => playFrom(songs, undefined, true) }, icon('shuffle'), ` ${text.shuffle}`),
    any ? null : h('span', { class: 'meta' }, text.noPlayable));
}

/**
 * A song as a row: number or cover, title and artists, lyrics mark, heart,
 * Add to playlist, length, and Play where the demo has audio (then `queue`
 * plays after it); `extra` ends the row.
 */
function songRow(song: Song, index: number, text: Texts, options: { numbered?: boolean; showAlbumArt?: boolean; list?: readonly Song[] }, extra: Node | null = null) {
  const title = song.title.value;
  const isCurrent = state.nowPlaying?.id.value === song.id.value;
  return h('li', { 'data-song': song.id.value, class: isCurrent ? 'current' : '' },
    h('span', { class: 'index', 'aria-hidden': 'true' }, options.numbered ? number(song.trackNumber ?? index + 1) : number(index + 1)),
    options.showAlbumArt ? cover(song.artwork, '', 'thumb') : null,
    h('span', { class: 'track-main' },
      h('span', { class: 'track-title', dir: 'auto' }, title, song.isExplicit ? h('abbr', { class: 'badge', title: text.explicit }, 'E') : null),
      h('span', { class: 'meta' }, artistNames(song.artists))),
    song.hasLyrics ? h('span', { class: 'meta lyrics-mark', title: text.hasLyrics }, '♪') : h('span', {}),
    song.id ? heart('song', song.id.value, title) : h('span', {}),
    song.id
      ? h('button', {
          type: 'button', class: 'add', 'aria-haspopup': 'menu', 'aria-expanded': 'false', 'aria-label': text.addTo(title), 'data-testid': 'add-to-playlist',
          onclick: (event) => void openAddMenu(event.currentTarget as HTMLElement, song),
        }, '+')
      : h('span', {}),
    h('span', { class: 'meta duration' }, clock(song.durationMs)),
    playable(song)
      ? h('button', { type: 'button', class: 'play', 'aria-label': `${text.play}: ${iso(title)}`, 'data-testid': 'play', onclick: playAction(song, options.list) }, '▶')
      : h('span', { class: 'play-placeholder' }),
    song.albumId && !options.numbered
      ? h('a', { href: link({ view: 'album', id: song.albumId.value }), class: 'visually-hidden' }, text.openAlbum(title))
      : null,
    extra);
}

// ---- playlists ----

/** The Add to playlist menu open now, and the button that opened it (focus returns there). */
let openMenu: { element: HTMLElement; opener: HTMLElement } | undefined;

function closeMenu(returnFocus = true) {
  if (!openMenu) return;
  const { element, opener } = openMenu;
  openMenu = undefined;
  element.remove();
  opener.setAttribute('aria-expanded', 'false');
  if (returnFocus && opener.isConnected) opener.focus();
}

/** A menu of the user's playlists (and a new one) under the row's +: arrows move, Escape closes. */
async function openAddMenu(opener: HTMLElement, song: Song) {
  const wasOpen = openMenu?.opener === opener;
  closeMenu(false);
  if (wasOpen) return;
  const text = t();
  const title = song.title.value ?? '';
  try {
    state.myPlaylists ??= await collect(maqam.playlists.list({ locale: state.lang, pageSize: 50 }));
  } catch (error) {
    say(t().error(error instanceof MaqamError ? error.message : String(error)));
    return;
  }
  const items = [
    ...state.myPlaylists.map((playlist) => h('button', {
      type: 'button', role: 'menuitem', 'data-testid': 'menu-playlist', dir: 'auto', onclick: () => void addToPlaylist(playlist, song),
    }, playlist.name.value)),
    h('button', { type: 'button', role: 'menuitem', class: 'new', 'data-testid': 'menu-new-playlist', onclick: () => void addToNewPlaylist(song) }, `+ ${text.newPlaylist}`),
  ];
  const menu = h('div', { role: 'menu', class: 'menu', 'aria-label': text.addTo(title), 'data-testid': 'playlist-menu' }, ...items);
  menu.addEventListener('keydown', (event) => {
    const at = items.indexOf(document.activeElement as HTMLButtonElement);
    if (event.key === 'Escape') closeMenu();
    else if (event.key === 'ArrowDown') items[(at + 1) % items.length]!.focus();
    else if (event.key === 'ArrowUp') items[(at - 1 + items.length) % items.length]!.focus();
    else if (event.key === 'Tab') closeMenu(false);
    else return;
    event.preventDefault();
  });
  document.body.append(menu);
  // Under its button, inside the window, on the side the page reads from.
  const box = opener.getBoundingClientRect();
  const width = menu.offsetWidth;
  const left = state.lang === 'ar' ? box.left : box.right - width;
  menu.style.left = `${Math.max(8, Math.min(left, innerWidth - width - 8)) + scrollX}px`;
  menu.style.top = `${box.bottom + 4 + scrollY}px`;
  opener.setAttribute('aria-expanded', 'true');
  openMenu = { element: menu, opener };
  items[0]!.focus();
}
document.addEventListener('click', (event) => {
  if (openMenu && !openMenu.element.contains(event.target as Node) && !openMenu.opener.contains(event.target as Node)) closeMenu(false);
});

async function addToPlaylist(playlist: Playlist, song: Song) {
  closeMenu();
  await act(async () => {
    await maqam.playlists.add(playlist.id.value, [song.id.value]);
    state.myPlaylists = null;
    say(t().addedTo(song.title.value ?? '', playlist.name.value));
    await refreshPlaylistOnScreen(playlist.id.value);
  });
}

/** A new playlist's name when the user gives none: "My playlist 3" after two. */
const defaultPlaylistName = () => t().newPlaylistName(number((state.myPlaylists?.length ?? 0) + 1));

async function addToNewPlaylist(song: Song) {
  closeMenu();
  await act(async () => {
    const name = defaultPlaylistName();
    await maqam.playlists.create({ name, songs: [song.id.value] });
    state.myPlaylists = null;
    say(t().addedTo(song.title.value ?? '', name));
    if (state.view?.view === 'playlists') state.view = await loadView({ view: 'playlists' });
  });
}

async function createPlaylist(name: string) {
  const playlist = await maqam.playlists.create({ name: name.trim() || defaultPlaylistName() });
  state.myPlaylists = null;
  location.hash = link({ view: 'playlist', id: playlist.id.value });
}

/** The playlist on screen read again (its cover, count and order as the server has them), focus kept where it was. */
async function refreshPlaylistOnScreen(playlistId: string) {
  const view = state.view;
  if (view?.view !== 'playlist' || view.playlist.id.value !== playlistId) return;
  const fresh = await loadView({ view: 'playlist', id: playlistId });
  if (state.view !== view) return;
  const focused = document.activeElement;
  const row = focused?.closest<HTMLElement>('[data-item]')?.dataset.item;
  const control = focused?.getAttribute('data-testid');
  state.view = await withLibraryState(fresh);
  renderMain();
  if (row && control) document.querySelector<HTMLElement>(`[data-item="${CSS.escape(row)}"] [data-testid="${control}"]:not(:disabled)`)?.focus();
}

/** Moves the entry at `from` to `to`: shown at once, written in the background, the playlist read again after. */
async function moveEntry(view: Extract<View, { view: 'playlist' }>, from: number, to: number) {
  if (to < 0 || to >= view.items.length || from === to) return;
  const items = [...view.items];
  const [item] = items.splice(from, 1);
  items.splice(to, 0, item!);
  // Just before the entry that follows it now; at the end when none does.
  const before = items[to + 1]?.itemId;
  view.items = items.map((entry, position) => ({ ...entry, position }));
  renderMain();
  const control = to < from ? 'move-up' : 'move-down';
  const row = `[data-item="${CSS.escape(item!.itemId)}"]`;
  (document.querySelector<HTMLElement>(`${row} [data-testid="${control}"]:not(:disabled)`) ?? document.querySelector<HTMLElement>(`${row} [data-testid="move-up"], ${row} [data-testid="move-down"]`))?.focus();
  say(t().moved(item!.song?.title.value ?? t().unavailable, number(to + 1)));
  await changePlaylist(view, () => maqam.playlists.move(view.playlist.id.value, [item!.itemId], before ? { before } : {}));
}

async function removeEntry(view: Extract<View, { view: 'playlist' }>, index: number) {
  const item = view.items[index]!;
  view.items = view.items.filter((entry) => entry !== item).map((entry, position) => ({ ...entry, position }));
  renderMain();
  await changePlaylist(view, () => maqam.playlists.remove(view.playlist.id.value, [item.itemId]));
}

/** A change to the playlist on screen, already shown: written, then the playlist read again; put back as the server has it if it fails. */
async function changePlaylist(view: Extract<View, { view: 'playlist' }>, write: () => Promise<unknown>) {
  try {
    await write();
  } catch {
    say(t().couldNotChange);
  }
  await refreshPlaylistOnScreen(view.playlist.id.value).catch(() => undefined);
}

async function toggleVisibility(view: Extract<View, { view: 'playlist' }>) {
  const visibility = view.playlist.visibility === 'PLAYLIST_VISIBILITY_PUBLIC' ? 'PLAYLIST_VISIBILITY_PRIVATE' : 'PLAYLIST_VISIBILITY_PUBLIC';
  view.playlist = await maqam.playlists.update(view.playlist.id.value, { visibility });
  state.myPlaylists = null;
}

async function deletePlaylist(view: Extract<View, { view: 'playlist' }>) {
  const name = view.playlist.name.value;
  if (!confirm(t().confirmDelete(name))) return;
  await maqam.playlists.delete(view.playlist.id.value);
  state.myPlaylists = null;
  say(t().deleted(name));
  location.hash = link({ view: 'playlists' });
}

const shareUrl = (playlist: Playlist) => `${location.origin}/demo${link({ view: 'playlist', id: playlist.id.value })}`;

/** A length as people say it: "1 hr, 32 min", not "92:08". */
function longDuration(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  const DurationFormat = (Intl as unknown as { DurationFormat?: new (locale: string, options: object) => { format(duration: object): string } }).DurationFormat;
  if (!DurationFormat || minutes < 1) return clock(ms);
  return new DurationFormat(digits(), { style: 'short' }).format(minutes >= 60 ? { hours: Math.floor(minutes / 60), minutes: minutes % 60 } : { minutes });
}

function playlistCard(playlist: Playlist) {
  const text = t();
  return h('a', { href: link({ view: 'playlist', id: playlist.id.value }), class: 'card', 'data-testid': 'playlist-link' },
    cover(playlist.coverArtwork, '', 'cover'),
    h('span', { class: 'card-title', dir: 'auto' }, playlist.name.value),
    h('span', { class: 'meta' }, `${text.visibility[playlist.visibility]} · ${text.songCount(playlist.itemCount, number(playlist.itemCount))}`));
}

function playlistsView(view: Extract<View, { view: 'playlists' }>, text: Texts): Node[] {
  const input = h('input', { type: 'text', name: 'name', maxlength: '100', autocomplete: 'off', placeholder: text.newPlaylistName(number(view.playlists.length + 1)), 'data-testid': 'new-playlist-name' });
  return [
    h('p', { class: 'eyebrow' }, text.library),
    h('h2', { tabindex: '-1', class: 'page-title', 'data-testid': 'library-title' }, text.playlists),
    h('form', {
      class: 'new-playlist', 'data-testid': 'new-playlist-form',
      onsubmit: (event) => {
        event.preventDefault();
        void act(() => createPlaylist(input.value));
      },
    }, h('label', {}, h('span', { class: 'visually-hidden' }, text.playlistName), input), h('button', { type: 'submit', class: 'primary', 'data-testid': 'create-playlist' }, `+ ${text.newPlaylist}`)),
    view.playlists.length === 0
      ? h('p', { class: 'meta', 'data-testid': 'playlists-empty' }, text.playlistsEmpty)
      : h('ul', { class: 'cards', 'data-testid': 'playlists' }, ...view.playlists.map((playlist) => h('li', {}, playlistCard(playlist)))),
  ];
}

function playlistView(view: Extract<View, { view: 'playlist' }>, text: Texts): Node[] {
  const { playlist } = view;
  const isPublic = playlist.visibility === 'PLAYLIST_VISIBILITY_PUBLIC';
  const songs = view.items.flatMap((item) => (item.song ? [item.song] : []));
  const shareInput = h('input', { type: 'text', readonly: '', value: shareUrl(playlist), dir: 'ltr', 'data-testid': 'share-link', 'aria-label': text.shareLink });
  return [
    h('header', { class: 'profile' },
      cover(playlist.coverArtwork, '', 'cover large'),
      h('div', {},
        h('p', { class: 'eyebrow' }, `${text.playlist} · ${text.visibility[playlist.visibility]}`),
        h('h2', { tabindex: '-1', dir: 'auto', 'data-testid': 'playlist-title' }, playlist.name.value),
        playlist.description.value ? h('p', { class: 'bio', dir: 'auto' }, playlist.description.value) : null,
        h('p', { class: 'meta', 'data-testid': 'playlist-meta' },
          h('bdi', {}, text.byOwner(playlist.ownerName)), ' · ', text.songCount(playlist.itemCount, number(playlist.itemCount)), ' · ', longDuration(Number(playlist.totalDurationMs))),
        h('div', { class: 'actions' },
          h('button', { type: 'button', class: 'primary', 'data-testid': 'play-all', onclick: () => playFrom(songs) }, `▶ ${text.playAll}`),
          h('button', { type: 'button', 'data-testid': 'shuffle-playlist', onclick: () => playFrom(songs, undefined, true) }, icon('shuffle'), ` ${text.shuffle}`),
          view.mine
            ? h('button', { type: 'button', role: 'switch', class: 'switch', 'aria-checked': String(isPublic), 'data-testid': 'visibility', onclick: () => void act(() => toggleVisibility(view)) }, text.publicSwitch)
            : null,
          view.mine ? h('button', { type: 'button', class: 'quiet', 'data-testid': 'delete-playlist', onclick: () => void act(() => deletePlaylist(view)) }, text.deletePlaylist) : null),
        view.mine && isPublic
          ? h('div', { class: 'share' },
              h('p', { class: 'meta' }, text.publicHint),
              shareInput,
              h('button', {
                type: 'button', 'data-testid': 'copy-link',
                onclick: () => void navigator.clipboard.writeText(shareInput.value).then(() => say(text.linkCopied), () => shareInput.select()),
              }, text.copyLink))
          : null,
        view.mine ? null : h('p', { class: 'meta', 'data-testid': 'read-only' }, text.readOnly(playlist.ownerName)))),
    view.items.length === 0
      ? h('p', { class: 'meta', 'data-testid': 'playlist-empty' }, view.mine ? text.playlistEmpty : text.playlistEmptyOther)
      : entryList(view, text, songs),
    view.mine && view.items.length > 1 ? h('p', { class: 'meta hint' }, text.reorderHint) : null,
    view.token
      ? h('button', { type: 'button', 'data-testid': 'more-entries', onclick: () => void act(() => moreEntries(view)) }, text.more)
      : null,
  ].filter((node): node is HTMLElement => node !== null);
}

/** The playlist's entries: songs (or their place, when withdrawn); its owner's rows move by drag and drop or by their arrows. */
function entryList(view: Extract<View, { view: 'playlist' }>, text: Texts, songs: Song[]) {
  return h('ol', { class: `tracks entries${view.mine ? ' editable' : ''}`, 'data-testid': 'playlist-items' },
    ...view.items.map((item, index) => {
      const title = item.song?.title.value ?? text.unavailable;
      // The last entry on screen moves down only when it is the playlist's last: there is no entry on screen to put it before.
      const lastMovable = view.token ? view.items.length - 2 : view.items.length - 1;
      const controls = view.mine
        ? h('span', { class: 'entry-controls' },
            h('button', { type: 'button', class: 'icon', 'aria-label': text.moveUp(title), 'data-testid': 'move-up', disabled: index === 0 ? '' : undefined, onclick: () => void moveEntry(view, index, index - 1) }, '↑'),
            h('button', { type: 'button', class: 'icon', 'aria-label': text.moveDown(title), 'data-testid': 'move-down', disabled: index >= lastMovable ? '' : undefined, onclick: () => void moveEntry(view, index, index + 1) }, '↓'),
            h('button', { type: 'button', class: 'icon', 'aria-label': text.removeEntry(title), 'data-testid': 'remove-entry', onclick: () => void removeEntry(view, index) }, '×'))
        : null;
      const row = item.song
        ? songRow(item.song, index, text, { showAlbumArt: true, list: songs }, controls)
        : h('li', { class: 'unavailable' },
            h('span', { class: 'index', 'aria-hidden': 'true' }, number(index + 1)),
            h('span', { class: 'thumb blank' }),
            h('span', { class: 'track-main' }, h('span', { class: 'track-title' }, text.unavailable)),
            controls);
      row.dataset.item = item.itemId;
      row.dataset.testid = 'entry';
      if (view.mine) draggableEntry(row, view, item);
      return row;
    }));
}

/** Drag an entry onto another to put it in that one's place. */
function draggableEntry(row: HTMLElement, view: Extract<View, { view: 'playlist' }>, item: PlaylistItem) {
  row.draggable = true;
  row.addEventListener('dragstart', (event) => {
    event.dataTransfer?.setData('text/plain', item.itemId);
    if (event.dataTransfer) event.dataTransfer.effectAllowed = 'move';
    row.classList.add('dragging');
  });
  row.addEventListener('dragend', () => row.classList.remove('dragging'));
  row.addEventListener('dragover', (event) => {
    event.preventDefault();
    row.classList.add('drop-target');
  });
  row.addEventListener('dragleave', () => row.classList.remove('drop-target'));
  row.addEventListener('drop', (event) => {
    event.preventDefault();
    row.classList.remove('drop-target');
    const dragged = event.dataTransfer?.getData('text/plain');
    const from = view.items.findIndex((entry) => entry.itemId === dragged);
    const to = view.items.findIndex((entry) => entry.itemId === item.itemId);
    if (from !== -1) void moveEntry(view, from, to);
  });
}

async function moreEntries(view: Extract<View, { view: 'playlist' }>) {
  const page = await maqam.playlists.itemsPage(view.playlist.id.value, { locale: state.lang, pageSize: PLAYLIST_PAGE_SIZE, pageToken: view.token });
  view.items.push(...page.items);
  view.token = page.nextPageToken;
  await markSaved(page.items.flatMap((item) => (item.song ? [item.song] : [])), []);
}

function renderPlayer() {
  const text = t();
  const bar = $('player');
  const song = state.nowPlaying;
  if (!state.user || !song) {
    bar.hidden = true;
    document.body.classList.remove('with-player');
    return;
  }
  bar.hidden = false;
  document.body.classList.add('with-player');
  playerSize.observe(bar);
  const title = song.title.value;
  bar.replaceChildren(
    h('div', { class: 'now' },
      cover(song.artwork, '', 'thumb'),
      h('div', {},
        h('p', { class: 'track-title', dir: 'auto', 'data-testid': 'now-playing' }, title),
        h('p', { class: 'meta' }, artistNames(song.artists)))),
    h('div', { class: 'transport' },
      h('div', { class: 'buttons' },
        h('button', {
          type: 'button', class: 'icon', 'aria-pressed': String(queue.shuffled), 'aria-label': text.shuffle, title: `${text.shuffle} (S)`, 'data-testid': 'shuffle', onclick: () => toggleShuffle(),
        }, icon('shuffle')),
        h('button', { type: 'button', class: 'icon', 'aria-label': text.previous, title: `${text.previous} (P)`, 'data-testid': 'previous', onclick: () => previous() }, icon('previous')),
        h('button', {
          type: 'button', class: 'round', 'data-testid': 'toggle', 'aria-label': audio.paused ? text.resume : text.pause, title: `${audio.paused ? text.resume : text.pause} (Space)`,
          onclick: () => togglePlaying(),
        }, icon(audio.paused ? 'play' : 'pause')),
        h('button', { type: 'button', class: 'icon', 'aria-label': text.next, title: `${text.next} (N)`, 'data-testid': 'next', disabled: queue.hasNext ? undefined : '', onclick: () => next() }, icon('next'))),
      h('div', { class: 'progress' },
        h('span', { id: 'elapsed', class: 'meta time' }),
        h('input', {
          id: 'seek', type: 'range', min: '0', step: '100', 'aria-label': text.seek, 'data-testid': 'seek',
          oninput: (event) => void (audio.currentTime = Number((event.target as HTMLInputElement).value) / 1000),
        }),
        h('span', { id: 'total', class: 'meta time' }))),
    h('div', { class: 'extras' },
      song.hasLyrics
        ? h('button', { type: 'button', 'aria-pressed': String(state.lyricsOpen), 'aria-controls': 'lyrics', title: `${text.lyrics} (L)`, 'data-testid': 'lyrics-toggle', onclick: () => toggleLyrics() }, text.lyrics)
        : null,
      h('button', { type: 'button', 'aria-pressed': String(state.queueOpen), 'aria-controls': 'queue', title: `${text.queue} (Q)`, 'data-testid': 'queue-toggle', onclick: () => toggleQueue() }, text.queue),
      h('label', { class: 'meta quality' }, `${text.quality} `, qualitySelect(text)),
      h('button', { type: 'button', class: 'icon shortcuts', 'aria-label': text.shortcuts, title: text.shortcutsHelp, 'data-testid': 'shortcuts', onclick: () => say(text.shortcutsHelp) }, '⌨')),
  );
  onTime();
}

/** The player's height, as the sheets above it and the page's last rows need it: it wraps to more rows on a phone. */
const playerSize = new ResizeObserver(([entry]) => {
  if (entry) document.documentElement.style.setProperty('--player-height', `${Math.ceil(entry.borderBoxSize[0]?.blockSize ?? entry.contentRect.height)}px`);
});

/** The queue as a panel (a sheet above the player on a phone): what played, what plays, what is next; a tap plays one. */
function renderQueue() {
  const text = t();
  const panel = $('queue');
  panel.hidden = !(state.user && state.queueOpen && state.nowPlaying);
  document.body.classList.toggle('with-queue', !panel.hidden);
  if (panel.hidden) return;
  const { songs, at } = queue.playOrder;
  panel.replaceChildren(
    h('div', { class: 'lyrics-head' },
      h('h2', { id: 'queue-heading' }, text.queue),
      h('button', { type: 'button', class: 'round', 'aria-label': text.close, onclick: () => toggleQueue() }, '×')),
    h('ol', { class: 'queue', 'data-testid': 'queue' },
      ...songs.map((song, place) => h('li', { class: place === at ? 'current' : place < at ? 'played' : '', 'data-song': song.id.value },
        h('button', {
          type: 'button', class: 'line', 'aria-current': place === at ? 'true' : undefined,
          onclick: () => {
            queue.jump(place);
            void playCurrent();
          },
        },
        h('span', { class: 'track-title', dir: 'auto' }, song.title.value),
        h('span', { class: 'meta' }, artistNames(song.artists)))))),
    queue.hasNext ? '' : h('p', { class: 'meta hint' }, text.queueEnd),
  );
  panel.querySelector('[aria-current="true"]')?.scrollIntoView({ block: 'nearest' });
}

function toggleQueue() {
  if (!state.nowPlaying) return;
  state.queueOpen = !state.queueOpen;
  // One panel at a time: on a phone both are sheets in the same place.
  if (state.queueOpen) state.lyricsOpen = false;
  renderPlayer();
  renderLyrics();
  renderQueue();
}

function renderLyrics() {
  const text = t();
  const panel = $('lyrics');
  const lyrics = state.lyrics;
  panel.hidden = !(state.user && state.lyricsOpen && state.nowPlaying);
  document.body.classList.toggle('with-lyrics', !panel.hidden);
  if (panel.hidden) return;
  const synced = lyrics?.syncedLyrics?.lines;
  panel.replaceChildren(
    h('div', { class: 'lyrics-head' },
      h('h2', { id: 'lyrics-heading' }, text.lyricsOf(state.nowPlaying?.title.value ?? '')),
      h('button', { type: 'button', class: 'round', 'aria-label': text.close, onclick: () => toggleLyrics() }, '×')),
    !lyrics
      ? h('p', { class: 'meta' }, text.loading)
      : synced
        ? h('ol', { class: 'lyrics synced', lang: lyrics.language, dir: lyrics.language === 'ar' ? 'rtl' : 'auto', 'data-testid': 'lyrics-lines' },
            ...synced.map((line, i) => h('li', {},
              h('button', {
                type: 'button', class: 'line', 'data-line': String(i), 'data-testid': 'lyrics-line',
                'aria-label': `${line.text || '…'} (${clock(Number(line.startTimeMs))})`,
                onclick: () => {
                  audio.currentTime = Number(line.startTimeMs) / 1000;
                  void audio.play().catch(() => undefined);
                },
              }, line.text || '♪'))))
        : h('ol', { class: 'lyrics', lang: lyrics.language, dir: lyrics.language === 'ar' ? 'rtl' : 'auto', 'data-testid': 'lyrics-lines' }, ...lyrics.lyrics.lines.map((line) => h('li', {}, line))),
    synced ? h('p', { class: 'meta hint' }, text.tapToSeek) : '',
  );
  onTime();
}

function toggleLyrics() {
  state.lyricsOpen = !state.lyricsOpen;
  if (state.lyricsOpen) state.queueOpen = false;
  renderPlayer();
  renderLyrics();
  renderQueue();
}

function qualitySelect(text: Texts) {
  return h('select', { 'data-testid': 'quality', onchange: (event) => void (state.quality = (event.target as HTMLSelectElement).value as AudioQuality) },
    ...(Object.keys(text.qualities) as AudioQuality[]).map((quality) =>
      h('option', { value: quality, ...(quality === state.quality ? { selected: '' } : {}) }, text.qualities[quality])));
}

// ---- actions ----

async function filterDiscography(view: Extract<View, { view: 'artist' }>, type: AlbumType | '') {
  const page = await maqam.artists.listAlbums(view.artist.id.value, { locale: state.lang, pageSize: DISCOGRAPHY_PAGE_SIZE, ...(type ? { albumType: type } : {}) });
  Object.assign(view, { albumType: type, albums: page.items, albumsToken: page.nextPageToken });
}

async function moreAlbums(view: Extract<View, { view: 'artist' }>) {
  const page = await maqam.artists.listAlbums(view.artist.id.value, {
    locale: state.lang, pageSize: DISCOGRAPHY_PAGE_SIZE, pageToken: view.albumsToken, ...(view.albumType ? { albumType: view.albumType } : {}),
  });
  Object.assign(view, { albums: [...view.albums, ...page.items], albumsToken: page.nextPageToken });
}

async function moreRelated(view: Extract<View, { view: 'artist' }>) {
  const page = await maqam.artists.listRelated(view.artist.id.value, { locale: state.lang, pageSize: RELATED_PAGE_SIZE, pageToken: view.relatedToken });
  Object.assign(view, { related: [...view.related, ...page.items], relatedToken: page.nextPageToken });
}

async function signIn() {
  location.assign(await maqam.auth.createAuthorizationUrl({ scope: 'read stream write' }));
}

async function signOut() {
  reporter.end();
  await reporter.flush();
  await maqam.auth.signOut();
  audio.pause();
  player?.destroy();
  player = undefined;
  audio.removeAttribute('src');
  queue.start([], 0);
  sessionStorage.removeItem(QUEUE_KEY);
  Object.assign(state, { user: null, displayName: '', view: null, nowPlaying: null, lyrics: null, lyricsOpen: false, queueOpen: false, saved: new Set(), following: new Set() });
}

async function switchLanguage() {
  state.lang = state.lang === 'ar' ? 'en' : 'ar';
  localStorage.setItem('maqam-demo:lang', state.lang);
  render();
  // Names come localized from the API: ask again in the new language, the song playing included.
  await act(async () => {
    if (!state.user) return;
    const [view, song] = await Promise.all([
      loadView(currentRoute()).then(withLibraryState),
      state.nowPlaying ? maqam.songs.get(state.nowPlaying.id.value, { locale: state.lang }) : Promise.resolve(null),
    ]);
    state.view = view;
    if (song && state.nowPlaying?.id.value === song.id.value) {
      state.nowPlaying = song;
      describeToSystem(song);
    }
  });
}

/** Search as the user types: after a short pause, in the address (so Back returns to the results), stale answers cancelled. */
let typing: ReturnType<typeof setTimeout> | undefined;
function onSearchInput() {
  clearTimeout(typing);
  typing = setTimeout(() => {
    const q = ($('search') as HTMLInputElement).value.trim();
    const target = q === '' ? '#/' : link({ view: 'search', q });
    if (location.hash === target) return;
    if (currentRoute().view === 'search') history.replaceState(null, '', target);
    else history.pushState(null, '', target);
    void navigate(false);
  }, 250);
}
$('search').addEventListener('input', onSearchInput);
$('search-form').addEventListener('submit', (event) => {
  event.preventDefault();
  clearTimeout(typing);
  onSearchInput();
});

async function start() {
  if (location.pathname === '/demo/callback') {
    const url = location.href;
    history.replaceState(null, '', '/demo');
    await act(async () => void (await maqam.auth.handleRedirect(url)));
  }
  if (await maqam.auth.tokens()) {
    await act(async () => {
      state.user = await maqam.auth.tokenInfo();
      const [me, view] = await Promise.all([maqam.library.me().catch(() => null), loadView(currentRoute()).then(withLibraryState)]);
      state.displayName = me?.displayName ?? '';
      state.view = view;
      // A queue this tab kept across a reload: shown in the player, paused, ready to go on.
      state.nowPlaying = queue.current ?? null;
      // Plays left from an earlier visit (offline, or the page closed mid-song).
      void reporter.flush();
    });
  } else {
    render();
  }
  addEventListener('hashchange', () => void navigate());
  const route = currentRoute();
  if (route.view === 'search') ($('search') as HTMLInputElement).value = route.q;
}

await start();
