// The header (the demo's name, the search box, the language and the account)
// and the sections under it: home, Watch and the library's pages, one tap
// away, and a developer's API keys.
import { html, nothing } from 'lit-html';
import { live } from 'lit-html/directives/live.js';
import { signInScope } from './developer-access.ts';
import { t } from './format.ts';
import { navigate, switchLanguage } from './navigation.ts';
import { endPlays, stopPlayback } from './player/player.ts';
import { currentRoute, link, type Route } from './router.ts';
import { act, maqam } from './session.ts';
import { store, type State } from './store.ts';

export async function signIn() {
  location.assign(await maqam.auth.createAuthorizationUrl({ scope: signInScope() }));
}

async function signOut() {
  await endPlays();
  await maqam.auth.signOut();
  stopPlayback();
  store.update({
    user: null, developer: false, displayName: '', view: null, nowPlaying: null, lyrics: null, lyricsOpen: false, queueOpen: false, saved: new Set(), following: new Set(),
  });
}

/** Search as the user types: after a short pause, in the address (so Back returns to the results), stale answers cancelled. */
let typing: ReturnType<typeof setTimeout> | undefined;
function searchSoon() {
  clearTimeout(typing);
  typing = setTimeout(() => {
    const q = store.state.searchText.trim();
    const target = q === '' ? '#/' : link({ view: 'search', q });
    if (location.hash === target) return;
    if (currentRoute().view === 'search') history.replaceState(null, '', target);
    else history.pushState(null, '', target);
    void navigate(false);
  }, 250);
}

/**
 * A link or Back went elsewhere meanwhile: the search still waiting must not
 * take the page back (typing, emptying the box and tapping Playlists within
 * the pause showed Home).
 */
export const forgetTypedSearch = () => clearTimeout(typing);

function onSearchInput(event: Event) {
  store.update({ searchText: (event.target as HTMLInputElement).value });
  searchSoon();
}

function onSearchSubmit(event: Event) {
  event.preventDefault();
  searchSoon();
}

export function header(state: State) {
  const text = t();
  const { user } = state;
  return html`
    <h1><a id="home-link" data-testid="home-link" href="#/" title=${state.starting ? nothing : text.home}><span lang="ar">مقام</span><span class="sub"> · <span lang="en">Maqam</span></span></a></h1>
    <form id="search-form" role="search" ?hidden=${!user} @submit=${onSearchSubmit}><input id="search" data-testid="search" type="search" autocomplete="off" enterkeyhint="search"
      placeholder=${text.searchPlaceholder} aria-label=${text.search} .value=${live(state.searchText)} @input=${onSearchInput}></form>
    <nav id="controls" aria-label="الحساب واللغة · Account and language">${state.starting ? nothing : html`
      <button type="button" lang=${state.lang === 'ar' ? 'en' : 'ar'} class="lang" data-testid="lang" @click=${() => void switchLanguage()}>${text.otherLang}</button>
      ${user
        ? html`
          <span data-testid="user" class="meta">${text.signedInAs(state.displayName || user.sub)}</span>
          <button type="button" class="sign-out" data-testid="sign-out" @click=${() => void act(signOut)}><span class="label">${text.signOut}</span></button>`
        : html`<button type="button" class="primary" data-testid="sign-in" @click=${() => void signIn()}>${text.signIn}</button>`}`}
    </nav>`;
}

/** Home, Watch, the library's pages and (for a developer) Developer; the one on screen marked (a playlist's page is one of Playlists', a title's one of Watch's). */
export function sections(state: State) {
  const text = t();
  const { route } = state;
  const here = (target: Route) =>
    (route.view === target.view && (target.view !== 'library' || (route.view === 'library' && route.tab === target.tab))) ||
    (target.view === 'playlists' && route.view === 'playlist') ||
    (target.view === 'watch' && (route.view === 'show' || route.view === 'movie' || route.view === 'player'));
  const tab = (target: Route, label: string, testId: string) => html`<a href=${link(target)} data-testid=${testId} aria-current=${here(target) ? 'page' : nothing}>${label}</a>`;
  return html`
    ${tab({ view: 'home' }, text.home, 'nav-home')}
    ${tab({ view: 'watch' }, text.watch, 'nav-watch')}
    ${tab({ view: 'library', tab: 'songs' }, text.likedSongs, 'nav-liked')}
    ${tab({ view: 'library', tab: 'albums' }, text.savedAlbums, 'nav-albums')}
    ${tab({ view: 'library', tab: 'artists' }, text.following, 'nav-following')}
    ${tab({ view: 'playlists' }, text.playlists, 'nav-playlists')}
    ${state.developer ? tab({ view: 'developer' }, text.developer, 'nav-developer') : nothing}`;
}

/** Signed out: what the demo is, and the way in. */
export function welcome() {
  const text = t();
  return html`
    <section class="hero">
      <h2 tabindex="-1">${text.welcome}</h2>
      <p>${text.intro}</p>
      <button type="button" class="primary" @click=${() => void signIn()}>${text.signIn}</button>
    </section>`;
}
