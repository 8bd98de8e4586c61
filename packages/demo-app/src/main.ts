// The Maqam demo: a small music app built on the SDK, as an app developer
// would build one. Sign in with PKCE, browse featured artists, artist pages
// (top tracks, discography by type, related artists) and album pages (tracks
// by disc), play what has demo media in a player bar that stays while you
// browse, and follow time-synced lyrics that light up with the music and seek
// when tapped. Like songs and albums, follow artists, and find them again in
// your library; what you play shows up under "Recently played" (reported by
// the SDK's PlayReporter). Make playlists, add any song to one from its
// row, play them through, reorder them by dragging or with the keyboard, and
// share a public one by its link. Watch: shows and films on shelves, a
// show's seasons and episodes, a film's languages, and the songs of their
// soundtracks, which play like any others (watching itself comes later).
// A developer makes, rotates and revokes API keys, and sees each one's calls
// day by day. Arabic (right to left) first, English a tap away.
//
// The pieces: store.ts holds the state and is the one place it changes;
// app.ts draws the page from it (lit-html templates; a module per page under
// pages/); router.ts reads the address and navigation.ts follows it; the
// player/ folder plays, reports plays and draws the player.
import { renderApp } from './app.ts';
import { startAddMenu } from './components/add-menu.ts';
import { developerScopeRefused, managesKeys } from './developer-access.ts';
import { forgetTypedSearch, signIn } from './header.ts';
import { navigate } from './navigation.ts';
import { loadView } from './pages/index.ts';
import { refreshRecent } from './pages/home.ts';
import { currentOf } from './player/play-queue.ts';
import { reportLeftPlays, startPlayer } from './player/player.ts';
import { startShortcuts } from './player/shortcuts.ts';
import { currentRoute } from './router.ts';
import { act, connect, firstLanguage, readSettings } from './session.ts';
import { store } from './store.ts';
import { startVideoKeys } from './video/video-keys.ts';
import { startVideo } from './video/video-player.ts';

const settings = await readSettings();
// The sign-in returns to the issuer's origin; start there so the stored PKCE verifier is found on return.
if (new URL(settings.issuer).origin !== location.origin) location.replace(`${settings.issuer}/demo`);
store.init(firstLanguage(), settings, currentRoute());
const maqam = connect(settings);
// For the console: try `await maqam.artists.get('artist-1')`.
Object.assign(globalThis, { maqam });
startPlayer({ onReported: () => void refreshRecent() });
startShortcuts();
startVideo();
startVideoKeys();
startAddMenu();
store.subscribe(renderApp);

if (location.pathname === '/demo/callback') {
  const url = location.href;
  history.replaceState(null, '', '/demo');
  if (developerScopeRefused(url)) {
    // A client registered before DeveloperService: sign in again without asking for it. The page is leaving.
    await signIn();
    await new Promise(() => {});
  }
  await act(async () => void (await maqam.auth.handleRedirect(url)));
}
const route = currentRoute();
store.update({ route, searchText: route.view === 'search' ? route.q : '' });
if (await maqam.auth.tokens()) {
  await act(async () => {
    const user = await maqam.auth.tokenInfo();
    store.update({ user });
    const [me, view, developer] = await Promise.all([maqam.library.me().catch(() => null), loadView(route), managesKeys(user)]);
    store.update({ displayName: me?.displayName ?? '', developer });
    store.show(view);
    // A queue this tab kept across a reload: shown in the player, paused, ready to go on.
    store.update({ nowPlaying: currentOf(store.state.queue) ?? null });
    // Plays left from an earlier visit (offline, or the page closed mid-song).
    reportLeftPlays();
  });
}
store.update({ starting: false });
addEventListener('hashchange', () => {
  forgetTypedSearch();
  void navigate();
});
