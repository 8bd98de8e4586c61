// The queue as a panel (a sheet above the player on a phone): what played,
// what plays, what is next; a tap plays one.
import { html, nothing } from 'lit-html';
import { artistNames, t } from '../format.ts';
import type { State } from '../store.ts';
import { hasNext, playOrder } from './play-queue.ts';
import { playPlace, toggleQueue } from './player.ts';

export function queuePanel(state: State) {
  const text = t();
  const { songs, at } = playOrder(state.queue);
  return html`
    <div class="lyrics-head">
      <h2 id="queue-heading">${text.queue}</h2>
      <button type="button" class="round" aria-label=${text.close} @click=${toggleQueue}>×</button>
    </div>
    <ol class="queue" data-testid="queue">${songs.map((song, place) => html`
      <li class=${place === at ? 'current' : place < at ? 'played' : ''} data-song=${song.id.value}>
        <button type="button" class="line" aria-current=${place === at ? 'true' : nothing} @click=${() => playPlace(place)}>
          <span class="track-title" dir="auto">${song.title.value}</span>
          <span class="meta">${artistNames(song.artists)}</span>
        </button>
      </li>`)}
    </ol>
    ${hasNext(state.queue) ? null : html`<p class="meta hint">${text.queueEnd}</p>`}`;
}

/** After a render that changed the queue or opened it: the song playing is in sight. */
export function followQueue(state: State, previous: State, shown: boolean) {
  if (shown && (state.queue !== previous.queue || state.queueOpen !== previous.queueOpen || state.nowPlaying !== previous.nowPlaying)) {
    document.querySelector('#queue [aria-current="true"]')?.scrollIntoView({ block: 'nearest' });
  }
}
