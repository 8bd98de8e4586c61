// The player bar, on every page while something plays: the song, the
// transport (shuffle, previous, play or pause, next), the progress bar, and
// the lyrics, queue, quality and shortcuts buttons.
import type { AudioQuality } from '@maqam/sdk';
import { html } from 'lit-html';
import { live } from 'lit-html/directives/live.js';
import { cover } from '../components/cards.ts';
import { icon } from '../components/icons.ts';
import { artistNames, clock, t } from '../format.ts';
import { say } from '../session.ts';
import { store, type State } from '../store.ts';
import { hasNext } from './play-queue.ts';
import { next, previous, seekTo, toggleLyrics, togglePlaying, toggleQueue, toggleShuffle } from './player.ts';

/** The bar's content for the song playing (the bar shows only while one is). */
export function playerBar(state: State) {
  const song = state.nowPlaying!;
  const text = t();
  // The stream's own length once it is known (a demo clip is shorter than the catalog's song).
  const duration = Number.isFinite(state.duration) ? state.duration : song.durationMs;
  const toggleLabel = state.paused ? text.resume : text.pause;
  return html`
    <div class="now">
      ${cover(song.artwork, '', 'thumb')}
      <div>
        <p class="track-title" dir="auto" data-testid="now-playing">${song.title.value}</p>
        <p class="meta">${artistNames(song.artists)}</p>
      </div>
    </div>
    <div class="transport">
      <div class="buttons">
        <button type="button" class="icon" aria-pressed=${String(state.queue.shuffled)} aria-label=${text.shuffle} title=${`${text.shuffle} (S)`} data-testid="shuffle" @click=${toggleShuffle}>${icon('shuffle')}</button>
        <button type="button" class="icon" aria-label=${text.previous} title=${`${text.previous} (P)`} data-testid="previous" @click=${previous}>${icon('previous')}</button>
        <button type="button" class="round" data-testid="toggle" aria-label=${toggleLabel} title=${`${toggleLabel} (Space)`} @click=${togglePlaying}>${icon(state.paused ? 'play' : 'pause')}</button>
        <button type="button" class="icon" aria-label=${text.next} title=${`${text.next} (N)`} data-testid="next" ?disabled=${!hasNext(state.queue)} @click=${next}>${icon('next')}</button>
      </div>
      <div class="progress">
        <span id="elapsed" class="meta time">${clock(state.position)}</span>
        <input id="seek" type="range" min="0" step="100" aria-label=${text.seek} data-testid="seek"
          .max=${String(Math.round(duration))} .value=${live(String(Math.round(state.position)))} aria-valuetext=${`${clock(state.position)} / ${clock(duration)}`}
          @input=${(event: Event) => seekTo(Number((event.target as HTMLInputElement).value))}>
        <span id="total" class="meta time">${clock(duration)}</span>
      </div>
    </div>
    <div class="extras">
      ${song.hasLyrics
        ? html`<button type="button" aria-pressed=${String(state.lyricsOpen)} aria-controls="lyrics" title=${`${text.lyrics} (L)`} data-testid="lyrics-toggle" @click=${toggleLyrics}>${text.lyrics}</button>`
        : null}
      <button type="button" aria-pressed=${String(state.queueOpen)} aria-controls="queue" title=${`${text.queue} (Q)`} data-testid="queue-toggle" @click=${toggleQueue}>${text.queue}</button>
      <label class="meta quality">${`${text.quality} `}${qualitySelect(state.quality)}</label>
      <button type="button" class="icon shortcuts" aria-label=${text.shortcuts} title=${text.shortcutsHelp} data-testid="shortcuts" @click=${() => say(text.shortcutsHelp)}>⌨</button>
    </div>`;
}

function qualitySelect(quality: AudioQuality) {
  const text = t();
  return html`<select data-testid="quality" @change=${(event: Event) => store.update({ quality: (event.target as HTMLSelectElement).value as AudioQuality })}>${
    (Object.keys(text.qualities) as AudioQuality[]).map((option) => html`<option value=${option} ?selected=${option === quality}>${text.qualities[option]}</option>`)
  }</select>`;
}
