// The Add to playlist menu under a row's +: the user's playlists and a new
// one. Arrows move, Escape closes (the focus back on its button), a click
// elsewhere closes it.
import { MaqamError, type Song } from '@maqam/sdk';
import { html, nothing } from 'lit-html';
import { t } from '../format.ts';
import { addToNewPlaylist, addToPlaylist, loadMyPlaylists } from '../playlists.ts';
import { say } from '../session.ts';
import { store, type State } from '../store.ts';

/** The button that opened the menu: where it stands, and where the focus returns. */
let opener: HTMLElement | undefined;

export function startAddMenu() {
  document.addEventListener('click', (event) => {
    const menu = document.querySelector('[data-testid="playlist-menu"]');
    if (store.state.menu && !menu?.contains(event.target as Node) && !opener?.contains(event.target as Node)) closeMenu(false);
  });
}

export function closeMenu(returnFocus = true) {
  if (!store.state.menu) return;
  store.update({ menu: null });
  if (returnFocus && opener?.isConnected) opener.focus();
}

/** Opens the menu under `button` (named `key` among the page's), or closes it when it was open there. */
export async function openAddMenu(button: HTMLElement, key: string, song: Song) {
  const wasOpen = store.state.menu?.opener === key;
  closeMenu(false);
  if (wasOpen) return;
  try {
    await loadMyPlaylists();
  } catch (error) {
    say(t().error(error instanceof MaqamError ? error.message : String(error)));
    return;
  }
  opener = button;
  store.update({ menu: { song, opener: key } });
  // Under its button, inside the window, on the side the page reads from.
  const menu = document.querySelector<HTMLElement>('[data-testid="playlist-menu"]')!;
  const box = button.getBoundingClientRect();
  const width = menu.offsetWidth;
  const left = store.state.lang === 'ar' ? box.left : box.right - width;
  // Set on its style object: the page's CSP refuses style attributes.
  menu.style.left = `${Math.max(8, Math.min(left, innerWidth - width - 8)) + scrollX}px`;
  menu.style.top = `${box.bottom + 4 + scrollY}px`;
  menu.querySelector<HTMLElement>('[role="menuitem"]')?.focus();
}

function onKey(event: KeyboardEvent) {
  const items = Array.from((event.currentTarget as HTMLElement).querySelectorAll<HTMLElement>('[role="menuitem"]'));
  const at = items.indexOf(document.activeElement as HTMLElement);
  if (event.key === 'Escape') closeMenu();
  else if (event.key === 'ArrowDown') items[(at + 1) % items.length]!.focus();
  else if (event.key === 'ArrowUp') items[(at - 1 + items.length) % items.length]!.focus();
  else if (event.key === 'Tab') closeMenu(false);
  else return;
  event.preventDefault();
}

export function addMenu(state: State) {
  const { menu } = state;
  if (!menu) return nothing;
  const text = t();
  const { song } = menu;
  return html`
    <div role="menu" class="menu" aria-label=${text.addTo(song.title.value)} data-testid="playlist-menu" @keydown=${onKey}>
      ${(state.myPlaylists ?? []).map((playlist) => html`<button type="button" role="menuitem" data-testid="menu-playlist" dir="auto" @click=${() => {
        closeMenu();
        void addToPlaylist(playlist, song);
      }}>${playlist.name.value}</button>`)}
      <button type="button" role="menuitem" class="new" data-testid="menu-new-playlist" @click=${() => {
        closeMenu();
        void addToNewPlaylist(song);
      }}>${`+ ${text.newPlaylist}`}</button>
    </div>`;
}
