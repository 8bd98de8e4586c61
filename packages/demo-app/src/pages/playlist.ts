// A playlist: its cover, owner and length, Play all and Shuffle; for its
// owner a public switch with a link to share, Delete, and entries that move
// by drag and drop or by their arrows, or go by their ×. Another listener
// sees it read-only.
import type { Playlist, PlaylistItem, Song } from '@maqam/sdk';
import { html, nothing } from 'lit-html';
import { cover } from '../components/cards.ts';
import { icon } from '../components/icons.ts';
import { markSaved } from '../components/likes.ts';
import { isCurrent, songCells } from '../components/song-list.ts';
import { longDuration, number, t } from '../format.ts';
import { playFrom } from '../player/player.ts';
import { forgetMyPlaylists, loadPlaylist, PLAYLIST_PAGE_SIZE, refreshPlaylistOnScreen } from '../playlists.ts';
import { link, type Route } from '../router.ts';
import { act, maqam, say } from '../session.ts';
import { store, type Shown } from '../store.ts';

export interface PlaylistView {
  view: 'playlist';
  playlist: Playlist;
  items: PlaylistItem[];
  /** The next page's token; empty on the last. */
  token: string;
  mine: boolean;
  /** The entry being dragged, and the one it is over (where it would go). */
  dragging?: string | undefined;
  dropTarget?: string | undefined;
}

export const load = (route: Extract<Route, { view: 'playlist' }>) => loadPlaylist(route.id);

/** Moves the entry at `from` to `to`: shown at once, written in the background, the playlist read again after. */
async function moveEntry(view: Shown<PlaylistView>, from: number, to: number) {
  if (to < 0 || to >= view.items.length || from === to) return;
  const items = [...view.items];
  const [item] = items.splice(from, 1);
  items.splice(to, 0, item!);
  // Just before the entry that follows it now; at the end when none does.
  const before = items[to + 1]?.itemId;
  store.patchView(view, () => ({ items: items.map((entry, position) => ({ ...entry, position })) }));
  const control = to < from ? 'move-up' : 'move-down';
  const row = `[data-item="${CSS.escape(item!.itemId)}"]`;
  (document.querySelector<HTMLElement>(`${row} [data-testid="${control}"]:not(:disabled)`) ?? document.querySelector<HTMLElement>(`${row} [data-testid="move-up"], ${row} [data-testid="move-down"]`))?.focus();
  say(t().moved(item!.song?.title.value ?? t().unavailable, number(to + 1)));
  await changePlaylist(view, () => maqam.playlists.move(view.playlist.id.value, [item!.itemId], before ? { before } : {}));
}

async function removeEntry(view: Shown<PlaylistView>, index: number) {
  const item = view.items[index]!;
  store.patchView(view, (current) => ({ items: current.items.filter((entry) => entry !== item).map((entry, position) => ({ ...entry, position })) }));
  await changePlaylist(view, () => maqam.playlists.remove(view.playlist.id.value, [item.itemId]));
}

/** A change to the playlist on screen, already shown: written, then the playlist read again (as the server has it, if the write failed). */
async function changePlaylist(view: Shown<PlaylistView>, write: () => Promise<unknown>) {
  try {
    await write();
  } catch {
    say(t().couldNotChange);
  }
  await refreshPlaylistOnScreen(view.playlist.id.value).catch(() => undefined);
}

async function toggleVisibility(view: Shown<PlaylistView>) {
  const visibility = view.playlist.visibility === 'PLAYLIST_VISIBILITY_PUBLIC' ? 'PLAYLIST_VISIBILITY_PRIVATE' : 'PLAYLIST_VISIBILITY_PUBLIC';
  const playlist = await maqam.playlists.update(view.playlist.id.value, { visibility });
  store.patchView(view, () => ({ playlist }));
  forgetMyPlaylists();
}

async function deletePlaylist(view: Shown<PlaylistView>) {
  const name = view.playlist.name.value;
  if (!confirm(t().confirmDelete(name))) return;
  await maqam.playlists.delete(view.playlist.id.value);
  forgetMyPlaylists();
  say(t().deleted(name));
  location.hash = link({ view: 'playlists' });
}

async function moreEntries(view: Shown<PlaylistView>) {
  const page = await maqam.playlists.itemsPage(view.playlist.id.value, { locale: store.state.lang, pageSize: PLAYLIST_PAGE_SIZE, pageToken: view.token });
  await markSaved(page.items.flatMap((item) => (item.song ? [item.song] : [])), []);
  store.patchView(view, (current) => ({ items: [...current.items, ...page.items], token: page.nextPageToken }));
}

const shareUrl = (playlist: Playlist) => `${location.origin}/demo${link({ view: 'playlist', id: playlist.id.value })}`;

function copyLink(event: Event) {
  const input = (event.currentTarget as HTMLElement).parentElement!.querySelector('input')!;
  void navigator.clipboard.writeText(input.value).then(() => say(t().linkCopied), () => input.select());
}

export function render(view: Shown<PlaylistView>) {
  const text = t();
  const { playlist, mine } = view;
  const isPublic = playlist.visibility === 'PLAYLIST_VISIBILITY_PUBLIC';
  const songs = view.items.flatMap((item) => (item.song ? [item.song] : []));
  return html`
    <header class="profile">
      ${cover(playlist.coverArtwork, '', 'cover large')}
      <div>
        <p class="eyebrow">${`${text.playlist} · ${text.visibility[playlist.visibility]}`}</p>
        <h2 tabindex="-1" dir="auto" data-testid="playlist-title">${playlist.name.value}</h2>
        ${playlist.description.value ? html`<p class="bio" dir="auto">${playlist.description.value}</p>` : nothing}
        <p class="meta" data-testid="playlist-meta"><bdi>${text.byOwner(playlist.ownerName)}</bdi> · ${text.songCount(playlist.itemCount, number(playlist.itemCount))} · ${longDuration(Number(playlist.totalDurationMs))}</p>
        <div class="actions">
          <button type="button" class="primary" data-testid="play-all" @click=${() => playFrom(songs)}>${`▶ ${text.playAll}`}</button>
          <button type="button" data-testid="shuffle-playlist" @click=${() => playFrom(songs, undefined, true)}>${icon('shuffle')}${` ${text.shuffle}`}</button>
          ${mine ? html`
            <button type="button" role="switch" class="switch" aria-checked=${String(isPublic)} data-testid="visibility" @click=${() => void act(() => toggleVisibility(view))}>${text.publicSwitch}</button>
            <button type="button" class="quiet" data-testid="delete-playlist" @click=${() => void act(() => deletePlaylist(view))}>${text.deletePlaylist}</button>` : nothing}
        </div>
        ${mine && isPublic ? html`
          <div class="share">
            <p class="meta">${text.publicHint}</p>
            <input type="text" readonly value=${shareUrl(playlist)} dir="ltr" data-testid="share-link" aria-label=${text.shareLink}>
            <button type="button" data-testid="copy-link" @click=${copyLink}>${text.copyLink}</button>
          </div>` : nothing}
        ${mine ? nothing : html`<p class="meta" data-testid="read-only">${text.readOnly(playlist.ownerName)}</p>`}
      </div>
    </header>
    ${view.items.length === 0
      ? html`<p class="meta" data-testid="playlist-empty">${mine ? text.playlistEmpty : text.playlistEmptyOther}</p>`
      : entryList(view, songs)}
    ${mine && view.items.length > 1 ? html`<p class="meta hint">${text.reorderHint}</p>` : nothing}
    ${view.token ? html`<button type="button" data-testid="more-entries" @click=${() => void act(() => moreEntries(view))}>${text.more}</button>` : nothing}`;
}

/** The entries: songs (or their place, when withdrawn); the owner's move by drag and drop or by their arrows. */
function entryList(view: Shown<PlaylistView>, songs: Song[]) {
  const text = t();
  // The last entry on screen moves down only when it is the playlist's last: there is no entry on screen to put it before.
  const lastMovable = view.token ? view.items.length - 2 : view.items.length - 1;
  return html`<ol class=${`tracks entries${view.mine ? ' editable' : ''}`} data-testid="playlist-items">${view.items.map((item, index) => {
    const title = item.song?.title.value ?? text.unavailable;
    const controls = view.mine
      ? html`<span class="entry-controls">
          <button type="button" class="icon" aria-label=${text.moveUp(title)} data-testid="move-up" ?disabled=${index === 0} @click=${() => void moveEntry(view, index, index - 1)}>↑</button>
          <button type="button" class="icon" aria-label=${text.moveDown(title)} data-testid="move-down" ?disabled=${index >= lastMovable} @click=${() => void moveEntry(view, index, index + 1)}>↓</button>
          <button type="button" class="icon" aria-label=${text.removeEntry(title)} data-testid="remove-entry" @click=${() => void removeEntry(view, index)}>×</button>
        </span>`
      : nothing;
    const classes = [item.song ? (isCurrent(item.song) ? 'current' : '') : 'unavailable', view.dragging === item.itemId ? 'dragging' : '', view.dropTarget === item.itemId ? 'drop-target' : ''];
    const drag = view.mine ? dragging(view, item) : undefined;
    return html`<li data-song=${item.song?.id.value ?? nothing} class=${classes.filter(Boolean).join(' ')} data-item=${item.itemId} data-testid="entry"
      draggable=${drag ? 'true' : nothing} @dragstart=${drag?.start ?? nothing} @dragend=${drag?.end ?? nothing} @dragover=${drag?.over ?? nothing}
      @dragleave=${drag?.leave ?? nothing} @drop=${drag?.drop ?? nothing}>${item.song
        ? songCells(item.song, index, { showAlbumArt: true, list: songs, menuKey: `entries:${index}` }, controls)
        : html`<span class="index" aria-hidden="true">${number(index + 1)}</span><span class="thumb blank"></span><span class="track-main"><span class="track-title">${text.unavailable}</span></span>${controls}`}</li>`;
  })}</ol>`;
}

/** Drag an entry onto another to put it in that one's place. */
function dragging(view: Shown<PlaylistView>, item: PlaylistItem) {
  const id = item.itemId;
  return {
    start: (event: DragEvent) => {
      event.dataTransfer?.setData('text/plain', id);
      if (event.dataTransfer) event.dataTransfer.effectAllowed = 'move';
      store.patchView(view, () => ({ dragging: id }));
    },
    end: () => store.patchView(view, (current) => (current.dragging === id ? { dragging: undefined } : {})),
    over: (event: DragEvent) => {
      event.preventDefault();
      store.patchView(view, () => ({ dropTarget: id }));
    },
    leave: () => store.patchView(view, (current) => (current.dropTarget === id ? { dropTarget: undefined } : {})),
    drop: (event: DragEvent) => {
      event.preventDefault();
      store.patchView(view, () => ({ dropTarget: undefined }));
      const dragged = event.dataTransfer?.getData('text/plain');
      const from = view.items.findIndex((entry) => entry.itemId === dragged);
      const to = view.items.findIndex((entry) => entry.itemId === id);
      if (from !== -1) void moveEntry(view, from, to);
    },
  };
}

export const playlistPage = { load, render };
