// The whole page as one template of the state: header, sections, status
// line, the page on screen with the lyrics and queue panels beside it, the
// player bar and the Add to playlist menu. The store calls `renderApp` after
// every change; lit-html touches only what changed.
import { html, nothing, render } from 'lit-html';
import { guard } from 'lit-html/directives/guard.js';
import { addMenu } from './components/add-menu.ts';
import { t } from './format.ts';
import { header, sections, welcome } from './header.ts';
import { renderView } from './pages/index.ts';
import { followLyrics, lyricsPanel } from './player/lyrics-panel.ts';
import { playerBar } from './player/player-bar.ts';
import { followQueue, queuePanel } from './player/queue-panel.ts';
import type { State } from './store.ts';
import { followVideo } from './video/video-player.ts';

/** The player's height, as the sheets above it and the page's last rows need it: it wraps to more rows on a phone. */
const playerSize = new ResizeObserver(([entry]) => {
  if (entry) document.documentElement.style.setProperty('--player-height', `${Math.ceil(entry.borderBoxSize[0]?.blockSize ?? entry.contentRect.height)}px`);
});

function mainContent(state: State) {
  if (state.starting) return html`<p>…</p>`;
  if (!state.user) return welcome();
  if (!state.view) return html`<p class="meta">${t().loading}</p>`;
  return renderView(state.view);
}

/**
 * What the page on screen is drawn from. It is drawn again only when one of
 * these changes: not at each tick of the music, which moves only the
 * progress bar and the lyrics. A page or component that reads more of the
 * state (through `store.state`, `t()` or `playable`) adds it here.
 */
const mainInputs = (state: State) => [
  state.starting, state.user, state.lang, state.view, state.saved, state.following, state.nowPlaying?.id.value, state.settings.mediaSongs, state.menu?.opener,
  state.video, state.developer, state.exportingMyData,
];

export function renderApp(state: State, previous: State) {
  const root = document.documentElement;
  root.lang = state.lang;
  root.dir = state.lang === 'ar' ? 'rtl' : 'ltr';
  if (!state.starting) document.title = t().title;
  // The music's player bar gives way to the video player on its page (the music pauses when a video starts).
  const playing = state.user !== null && state.nowPlaying !== null && state.route.view !== 'player';
  const lyricsShown = playing && state.lyricsOpen;
  const queueShown = playing && state.queueOpen;
  document.body.classList.toggle('with-player', playing);
  document.body.classList.toggle('with-lyrics', lyricsShown);
  document.body.classList.toggle('with-queue', queueShown);
  render(html`
    <header class="bar">${header(state)}</header>
    <nav id="sections" class="sections" aria-label=${t().library} ?hidden=${!state.user}>${sections(state)}</nav>
    <p id="status" role="status" aria-live="polite">${state.status || nothing}</p>
    <div class="page">
      <main id="main" aria-busy=${String(state.loading)}>${guard(mainInputs(state), () => mainContent(state))}</main>
      <aside id="lyrics" aria-labelledby="lyrics-heading" ?hidden=${!lyricsShown}>${lyricsShown ? lyricsPanel(state) : nothing}</aside>
      <aside id="queue" class="panel" aria-labelledby="queue-heading" ?hidden=${!queueShown}>${queueShown ? queuePanel(state) : nothing}</aside>
    </div>
    <section id="player" class="player" aria-label="المشغّل · Player" ?hidden=${!playing}>${playing ? playerBar(state) : nothing}</section>
    ${addMenu(state)}`, document.body, { renderBefore: document.getElementById('audio') });
  if (playing) playerSize.observe(document.getElementById('player')!);
  followLyrics(state, lyricsShown);
  followQueue(state, previous, queueShown);
  followVideo(state);
  // A new page, or the sections just shown (signed in, the Developer section added).
  if (state.route !== previous.route || state.user !== previous.user || state.developer !== previous.developer) revealCurrentSection();
}

/**
 * On a phone the sections are a row that scrolls sideways: the one on
 * screen is brought into it (Developer, the last, starts out of sight).
 * Sideways only, so the page itself does not move.
 */
function revealCurrentSection() {
  const row = document.getElementById('sections');
  const current = row?.querySelector('[aria-current="page"]');
  if (!row || !current) return;
  const [inRow, tab] = [row.getBoundingClientRect(), current.getBoundingClientRect()];
  const margin = 16;
  if (tab.left < inRow.left) row.scrollBy({ left: tab.left - inRow.left - margin });
  else if (tab.right > inRow.right) row.scrollBy({ left: tab.right - inRow.right + margin });
}
