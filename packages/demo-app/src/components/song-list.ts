// Songs as rows: number or cover, title and artists, lyrics mark, heart, Add
// to playlist, length, and Play where the demo has audio (Play on a row plays
// its list from it; Next and Previous move through the list).
import type { Song } from '@maqam/sdk';
import { html, nothing, type TemplateResult } from 'lit-html';
import { artistNames, clock, number, t } from '../format.ts';
import { playable, playFrom } from '../player/player.ts';
import { link } from '../router.ts';
import { store } from '../store.ts';
import { iso } from '../texts.ts';
import { openAddMenu } from './add-menu.ts';
import { cover } from './cards.ts';
import { icon } from './icons.ts';
import { heart } from './likes.ts';

export interface RowOptions {
  /** The track's own number (an album), not its place in the list. */
  numbered?: boolean;
  showAlbumArt?: boolean;
  /** What Play on the row plays through. */
  list: readonly Song[];
  /** Names the row's Add to playlist button among the page's (its menu's opener). */
  menuKey: string;
}

/** A list of songs; `menuKey` tells its rows' menu buttons from another list's on the page (the test id, unless two lists share it). */
export function trackList(songs: Song[], options: { numbered?: boolean; showAlbumArt?: boolean; testId: string; menuKey?: string }) {
  return html`<ol class="tracks" data-testid=${options.testId}>${songs.map((song, index) =>
    songRow(song, index, { ...options, list: songs, menuKey: `${options.menuKey ?? options.testId}:${index}` }))}</ol>`;
}

export const isCurrent = (song: Song) => store.state.nowPlaying?.id.value === song.id.value;

export const songRow = (song: Song, index: number, options: RowOptions) =>
  html`<li data-song=${song.id.value} class=${isCurrent(song) ? 'current' : ''}>${songCells(song, index, options)}</li>`;

/** A row's cells; `extra` ends the row (a playlist entry's controls). */
export function songCells(song: Song, index: number, options: RowOptions, extra: TemplateResult | typeof nothing = nothing) {
  const text = t();
  const title = song.title.value;
  const menuOpen = store.state.menu?.opener === options.menuKey;
  return html`
    <span class="index" aria-hidden="true">${options.numbered ? number(song.trackNumber ?? index + 1) : number(index + 1)}</span>
    ${options.showAlbumArt ? cover(song.artwork, '', 'thumb') : nothing}
    <span class="track-main">
      <span class="track-title" dir="auto">${title}${song.isExplicit ? html`<abbr class="badge" title=${text.explicit}>E</abbr>` : nothing}</span>
      <span class="meta">${artistNames(song.artists)}</span>
    </span>
    ${song.hasLyrics ? html`<span class="meta lyrics-mark" title=${text.hasLyrics}>♪</span>` : html`<span></span>`}
    ${heart('song', song.id.value, title)}
    <button type="button" class="add" aria-haspopup="menu" aria-expanded=${String(menuOpen)} aria-label=${text.addTo(title)} data-testid="add-to-playlist"
      @click=${(event: Event) => void openAddMenu(event.currentTarget as HTMLElement, options.menuKey, song)}>+</button>
    <span class="meta duration">${clock(song.durationMs)}</span>
    ${playable(song)
      ? html`<button type="button" class="play" aria-label=${`${text.play}: ${iso(title)}`} data-testid="play" @click=${() => playFrom(options.list, song)}>▶</button>`
      : html`<span class="play-placeholder"></span>`}
    ${song.albumId && !options.numbered ? html`<a href=${link({ view: 'album', id: song.albumId.value })} class="visually-hidden">${text.openAlbum(title)}</a>` : nothing}
    ${extra}`;
}

/** Play and Shuffle for a list of songs (an album, an artist's top songs). */
export function playButtons(songs: readonly Song[], testId: string) {
  const text = t();
  const any = songs.some(playable);
  return html`
    <div class="actions">
      <button type="button" class="primary" data-testid=${`play-${testId}`} ?disabled=${!any} @click=${() => playFrom(songs)}>${`▶ ${text.play}`}</button>
      <button type="button" data-testid=${`shuffle-${testId}`} ?disabled=${!any} @click=${() => playFrom(songs, undefined, true)}>${icon('shuffle')}${` ${text.shuffle}`}</button>
      ${any ? nothing : html`<span class="meta">${text.noPlayable}</span>`}
    </div>`;
}
