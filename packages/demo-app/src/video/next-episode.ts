// The end of an episode: the next one (by season, then number; the page
// found it) starts after a short countdown the viewer can cancel, or at once.
import { link } from '../router.ts';
import { store } from '../store.ts';
import { patchVideo } from './video-state.ts';

/** Seconds the next episode waits, its countdown on screen, before it starts. */
export const NEXT_EPISODE_SECONDS = 6;

let countdownTimer: ReturnType<typeof setInterval> | undefined;

const nextEpisode = () => (store.state.view?.view === 'player' ? store.state.view.next : null);

export function startCountdown() {
  if (!nextEpisode()) return;
  clearInterval(countdownTimer);
  patchVideo({ countdown: NEXT_EPISODE_SECONDS });
  countdownTimer = setInterval(() => {
    const left = (store.state.video?.countdown ?? 0) - 1;
    if (left <= 0) playNextEpisode();
    else patchVideo({ countdown: left });
  }, 1000);
}

export function cancelCountdown() {
  clearInterval(countdownTimer);
  patchVideo({ countdown: null });
}

/** Leaving the player: no countdown goes on. */
export const stopCountdown = () => clearInterval(countdownTimer);

export function playNextEpisode() {
  const next = nextEpisode();
  cancelCountdown();
  if (next) location.hash = link({ view: 'player', kind: 'episode', id: next.id.value });
}
