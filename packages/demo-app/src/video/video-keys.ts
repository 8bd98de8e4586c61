// The video player's keyboard shortcuts, by the key's place (an Arabic
// layout works too), while its page is on screen: Space or K play and
// pause, the arrows seek ten seconds (ahead in the direction the seek bar
// fills: leftwards in Arabic), F full screen, M mute, C subtitles, ? the
// list of them, Escape closes a menu. Not while typing, not Space on a
// button or a link (it presses it), not the arrows on a slider or in a menu.
import { store } from '../store.ts';
import { closeMenus, showControls, toggleHelp } from './video-overlays.ts';
import { seekBy, toggleFullscreen, toggleMute, togglePlay, toggleSubtitles } from './video-player.ts';

/** The arrows that seek ahead and back on this page, as the help names them. */
export const seekKeys = () => (store.state.lang === 'ar' ? { forward: '←', backward: '→' } : { forward: '→', backward: '←' });

export function startVideoKeys() {
  document.addEventListener('keydown', (event) => {
    const { video, lang } = store.state;
    if (!video || event.ctrlKey || event.metaKey || event.altKey) return;
    const target = event.target as HTMLElement;
    if (target.closest('input:not([type="range"]), textarea, select, [contenteditable="true"]')) return;
    const onControl = target.closest('button, a') !== null;
    // A slider's arrows move it, a menu's move between its items.
    const arrowsTaken = target.matches('input[type="range"]') || target.closest('[role="menu"]') !== null;
    const forward = lang === 'ar' ? 'ArrowLeft' : 'ArrowRight';
    const backward = lang === 'ar' ? 'ArrowRight' : 'ArrowLeft';
    if (event.key === '?' || event.key === '؟') {
      toggleHelp();
      event.preventDefault();
      return;
    }
    switch (event.code) {
      case 'Space':
        if (onControl) return;
        togglePlay();
        break;
      case 'KeyK': togglePlay(); break;
      case forward: if (arrowsTaken) return; seekBy(10); break;
      case backward: if (arrowsTaken) return; seekBy(-10); break;
      case 'KeyF': toggleFullscreen(); break;
      case 'KeyM': toggleMute(); break;
      case 'KeyC': toggleSubtitles(); break;
      case 'Escape': if (!video.menu && !video.help) return; closeMenus(); break;
      default: return;
    }
    showControls();
    event.preventDefault();
  });
}
