// What covers the picture and when: the controls (shown when the viewer
// moves, hidden a few seconds after while playing), the menus and the list
// of shortcuts.
import { store } from '../store.ts';
import { patchVideo, type VideoMenu } from './video-state.ts';

/** How long the controls stay after the viewer last moved, while playing. */
const CONTROLS_MS = 3000;

let controlsTimer: ReturnType<typeof setTimeout> | undefined;

/** Opens a menu (or closes it, open), the focus on its item chosen: the arrows move from there. */
export function toggleMenu(menu: VideoMenu) {
  patchVideo((video) => ({ menu: video.menu === menu ? null : menu, help: false, controls: true }));
  clearTimeout(controlsTimer);
  document.querySelector<HTMLElement>(`[data-testid="video-menu-${menu}"] [aria-checked="true"]`)?.focus();
}

export const closeMenus = () => patchVideo({ menu: null, help: false });

export function toggleHelp() {
  patchVideo((video) => ({ help: !video.help, menu: null, controls: true }));
}

/** The viewer moved: the controls show, and hide again a few seconds later while playing (not while a menu is open). */
export function showControls() {
  patchVideo({ controls: true });
  hideControlsSoon();
}

export const hideControls = () => patchVideo({ controls: false });

export function hideControlsSoon() {
  clearTimeout(controlsTimer);
  controlsTimer = setTimeout(() => {
    const video = store.state.video;
    // A keyboard user moving through the controls keeps them.
    const focused = document.querySelector('[data-testid="stage"] :focus-visible');
    if (video && !video.paused && !video.menu && !video.help && !focused) patchVideo({ controls: false });
  }, CONTROLS_MS);
}

/** Leaving the player: no timer of its controls goes on. */
export const stopHidingControls = () => clearTimeout(controlsTimer);
