// Moving between pages: the address changes (a link, Back, the search box),
// the page it names loads while the old one stays on screen, then shows with
// the focus on its heading. And the language: every word at once, then the
// catalog's names asked again in it.
import { describeToSystem } from './player/player.ts';
import { loadView } from './pages/index.ts';
import { currentRoute } from './router.ts';
import { act, maqam, readSettings } from './session.ts';
import { store } from './store.ts';

/** How many navigations have begun: one that ends after a newer began shows nothing (the newer owns the screen). */
let navigations = 0;

/** Shows the page the address names, then moves focus to its heading (not while typing a search: the focus stays in the box). */
export async function navigate(focus = true) {
  if (!store.state.user) return;
  const navigation = ++navigations;
  const route = currentRoute();
  // The box shows the search on screen: kept while typing, restored by Back, emptied elsewhere.
  store.update(({ searchText }) => ({
    route, loading: true, searchText: route.view !== 'search' ? '' : searchText.trim() !== route.q ? route.q : searchText,
  }));
  // What has media grows while the server packages the demo's music.
  store.update({ settings: await readSettings().catch(() => store.state.settings) });
  await act(async () => {
    try {
      const view = await loadView(route);
      // Back pressed while a slow page loaded: the page Back asked for may already be on screen.
      if (navigation === navigations) store.show(view);
    } catch (error) {
      // A newer keystroke cancelled this search: its own answer will show.
      if (error instanceof Error && error.name === 'AbortError') return;
      throw error;
    } finally {
      if (navigation === navigations) store.update({ loading: false });
    }
  });
  if (navigation !== navigations) return;
  scrollTo({ top: 0 });
  if (focus) document.querySelector<HTMLElement>('#main h2')?.focus({ preventScroll: true });
}

export async function switchLanguage() {
  const lang = store.state.lang === 'ar' ? 'en' : 'ar';
  localStorage.setItem('maqam-demo:lang', lang);
  store.update({ lang });
  // Names come localized from the API: ask again in the new language, the song playing included.
  await act(async () => {
    if (!store.state.user) return;
    const playing = store.state.nowPlaying;
    const [view, song] = await Promise.all([loadView(currentRoute()), playing ? maqam.songs.get(playing.id.value, { locale: lang }) : Promise.resolve(null)]);
    store.show(view);
    if (song && store.state.nowPlaying?.id.value === song.id.value) {
      store.update({ nowPlaying: song });
      describeToSystem(song);
    }
  });
}
