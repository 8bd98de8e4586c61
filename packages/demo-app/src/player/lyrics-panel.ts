// The lyrics of the song playing, as a panel beside the page (a sheet above
// the player on a phone): synced lines light up with the music and seek when
// tapped; unsynced lyrics are plain lines.
import { html, nothing } from 'lit-html';
import { clock, t } from '../format.ts';
import type { State } from '../store.ts';
import { seekTo, toggleLyrics } from './player.ts';

/** The synced line sung at `ms`: the last that has started. */
function activeLine(state: State): number {
  const lines = state.lyrics?.syncedLyrics?.lines ?? [];
  let active = -1;
  for (let i = 0; i < lines.length; i++) if (Number(lines[i]!.startTimeMs) <= state.position) active = i;
  return active;
}

export function lyricsPanel(state: State) {
  const text = t();
  const { lyrics } = state;
  const synced = lyrics?.syncedLyrics?.lines;
  const active = activeLine(state);
  const dir = lyrics?.language === 'ar' ? 'rtl' : 'auto';
  return html`
    <div class="lyrics-head">
      <h2 id="lyrics-heading">${text.lyricsOf(state.nowPlaying?.title.value ?? '')}</h2>
      <button type="button" class="round" aria-label=${text.close} @click=${toggleLyrics}>×</button>
    </div>
    ${!lyrics
      ? html`<p class="meta">${text.loading}</p>`
      : synced
        ? html`<ol class="lyrics synced" lang=${lyrics.language} dir=${dir} data-testid="lyrics-lines">${synced.map((line, i) => html`<li><button type="button" class="line" data-line=${i} data-testid="lyrics-line"
            aria-label=${`${line.text || '…'} (${clock(Number(line.startTimeMs))})`} aria-current=${i === active ? 'true' : nothing}
            @click=${() => seekTo(Number(line.startTimeMs), true)}>${line.text || '♪'}</button></li>`)}</ol>`
        : html`<ol class="lyrics" lang=${lyrics.language} dir=${dir} data-testid="lyrics-lines">${lyrics.lyrics.lines.map((line) => html`<li>${line}</li>`)}</ol>`}
    ${synced ? html`<p class="meta hint">${text.tapToSeek}</p>` : null}`;
}

/** The line lit last and its lyrics, so that a newly lit line is scrolled to once (not at every tick, which would fight the reader's own scrolling). */
let scrolled: { line: number; lyrics: State['lyrics'] } = { line: -1, lyrics: null };

/** After a render: a line that has just lit (or the lit line of a panel just opened) is scrolled to the middle of the panel. */
export function followLyrics(state: State, shown: boolean) {
  const line = shown ? activeLine(state) : -1;
  if (line >= 0 && (line !== scrolled.line || state.lyrics !== scrolled.lyrics)) {
    document.querySelector(`#lyrics [data-line="${line}"]`)?.scrollIntoView({ block: 'center', behavior: 'smooth' });
  }
  scrolled = { line, lyrics: state.lyrics };
}
