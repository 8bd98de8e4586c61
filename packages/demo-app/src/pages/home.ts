// Home: featured artists and their latest albums first, each a tap from
// playing; then the songs the demo can play, what the user played last, and
// the films and episodes they are in the middle of.
import type { Album, Artist, Song } from '@maqam/sdk';
import { html } from 'lit-html';
import { albumCard, artistCard, shelf } from '../components/cards.ts';
import { continueWatchingShelf, loadContinueWatching, type WatchingEntry } from '../components/continue-watching.ts';
import { markSaved } from '../components/likes.ts';
import { trackList } from '../components/song-list.ts';
import { t } from '../format.ts';
import { maqam } from '../session.ts';
import { store, type Shown } from '../store.ts';

export interface HomeView {
  view: 'home';
  playable: Song[];
  recent: Song[];
  artists: Artist[];
  releases: Album[];
  /** Continue watching: a film or an episode is a tap from going on. */
  watching: WatchingEntry[];
}

/** Songs the home's first shelf offers to play. */
const HOME_PLAYABLE = 8;

export async function load(): Promise<HomeView> {
  const { lang: locale, settings } = store.state;
  const [songs, artists, recent, watching] = await Promise.all([
    settings.mediaSongs.length > 0 ? maqam.songs.batchGet(settings.mediaSongs.slice(0, HOME_PLAYABLE), { locale }) : new Map(),
    settings.featuredArtists.length > 0 ? maqam.artists.batchGet(settings.featuredArtists, { locale }) : new Map(),
    recentlyPlayed(),
    loadContinueWatching(),
  ]);
  const featured = [...artists.values()].flatMap((result) => (result.artist ? [result.artist] : []));
  // New releases: the latest albums of the first featured artists, newest first.
  const latest = await Promise.all(featured.slice(0, 6).map((artist) => maqam.artists.listAlbums(artist.id.value, { locale, pageSize: 2 })));
  const releases = latest.flatMap((page) => page.items).sort((a, b) => b.releaseDate.localeCompare(a.releaseDate));
  const playable = [...songs.values()].flatMap((result) => (result.song ? [result.song] : []));
  await markSaved([...playable, ...recent], releases);
  return { view: 'home', playable, recent, artists: featured, releases, watching };
}

/** The songs of the user's latest counted plays, each once, newest first. */
async function recentlyPlayed(): Promise<Song[]> {
  const songs = new Map<string, Song>();
  for await (const entry of maqam.history.list({ locale: store.state.lang, pageSize: 20 })) {
    if (entry.song.id && !songs.has(entry.song.id.value)) songs.set(entry.song.id.value, entry.song);
    if (songs.size === 8) break;
  }
  return [...songs.values()];
}

/** A play was reported: the home page's row shows it. */
export async function refreshRecent() {
  const view = store.state.view;
  if (view?.view !== 'home') return;
  const recent = await recentlyPlayed().catch(() => view.recent);
  if (store.state.view?.serial !== view.serial) return;
  await markSaved(recent, []);
  store.patchView(view, () => ({ recent }));
}

export function render(view: Shown<HomeView>) {
  const text = t();
  return html`
    <h2 tabindex="-1" class="visually-hidden">${text.home}</h2>
    ${shelf(text.featuredArtists, 'featured', view.artists.map(artistCard))}
    ${shelf(text.newReleases, 'releases', view.releases.map(albumCard))}
    ${view.playable.length > 0
      ? html`
        <section aria-labelledby="shelf-playable" class="shelf">
          <h3 id="shelf-playable">${text.playableNow}</h3>
          ${trackList(view.playable, { showAlbumArt: true, testId: 'playable' })}
        </section>`
      : html`<p class="meta">${text.noDemoMedia}</p>`}
    <section aria-labelledby="shelf-recent" class="shelf">
      <h3 id="shelf-recent">${text.recentlyPlayed}</h3>
      ${view.recent.length > 0
        ? trackList(view.recent, { showAlbumArt: true, testId: 'recent' })
        : html`<p class="meta" data-testid="recent-empty">${text.recentEmpty}</p>`}
    </section>
    ${continueWatchingShelf(view)}`;
}

export const homePage = { load, render };
