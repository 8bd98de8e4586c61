// Keyboard shortcuts, by the key's place (so an Arabic layout works too):
// Space or K play and pause, N and P move through the queue, S shuffles, L
// opens the lyrics, Q the queue, the arrows seek (in the direction the
// progress bar fills), / goes to the search box. Not while typing, and not
// Space on a button, which presses it. Not on the video player's page, whose
// own shortcuts (video/video-keys.ts) take the keys.
import { store } from '../store.ts';
import { next, previous, seekBy, toggleLyrics, togglePlaying, toggleQueue, toggleShuffle } from './player.ts';

export function startShortcuts() {
  document.addEventListener('keydown', (event) => {
    const { user, lang, nowPlaying, route } = store.state;
    if (event.ctrlKey || event.metaKey || event.altKey || !user || route.view === 'player') return;
    const target = event.target as HTMLElement;
    if (target.closest('input, textarea, select, [contenteditable="true"]')) return;
    const onControl = target.closest('button, a, [role="menuitem"]') !== null;
    const forward = lang === 'ar' ? 'ArrowLeft' : 'ArrowRight';
    const backward = lang === 'ar' ? 'ArrowRight' : 'ArrowLeft';
    switch (event.code) {
      case 'Space':
        if (onControl) return;
        togglePlaying();
        break;
      case 'KeyK': togglePlaying(); break;
      case 'KeyN': next(); break;
      case 'KeyP': previous(); break;
      case 'KeyS': toggleShuffle(); break;
      case 'KeyL': if (nowPlaying?.hasLyrics) toggleLyrics(); break;
      case 'KeyQ': toggleQueue(); break;
      case forward: if (onControl) return; seekBy(5); break;
      case backward: if (onControl) return; seekBy(-5); break;
      case 'Slash': document.getElementById('search')?.focus(); break;
      default: return;
    }
    event.preventDefault();
  });
}
