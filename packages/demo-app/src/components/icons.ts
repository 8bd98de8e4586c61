// The player's symbols, drawn (a system may have no font with ⏮ or 🔀); not
// mirrored right to left, as they stand for time.
import { html } from 'lit-html';

const ICONS = {
  previous: 'M6 5h2v14H6zM20 5v14L9 12z',
  next: 'M16 5h2v14h-2zM4 5v14l11-7z',
  shuffle: 'M16 4h4v4l-1.5-1.5-4 4-1.4-1.4 4-4zM4 6.5l1.4-1.4L19 18.6V17h1v3h-3v-1h1.6zM20 16v4h-4l1.5-1.5-3.2-3.2 1.4-1.4 3.2 3.2z',
  play: 'M7 4v16l13-8z',
  pause: 'M6 4h4v16H6zm8 0h4v16h-4z',
  // The video player's: ten seconds back and ahead (a circling arrow), sound, full screen, subtitles, audio, quality.
  back10: 'M12 5V1L7 6l5 5V7a6 6 0 1 1-6 6H4a8 8 0 1 0 8-8z',
  ahead10: 'M12 5V1l5 5-5 5V7a6 6 0 1 0 6 6h2a8 8 0 1 1-8-8z',
  volume: 'M3 9v6h4l5 5V4L7 9H3zm13.5 3A4.5 4.5 0 0 0 14 8v8a4.5 4.5 0 0 0 2.5-4zM14 3.2v2.1a7 7 0 0 1 0 13.4v2.1a9 9 0 0 0 0-17.6z',
  muted: 'M3 9v6h4l5 5V4L7 9H3zm13.6 3 2.9-2.9-1.1-1.1-2.9 2.9-2.9-2.9-1.1 1.1 2.9 2.9-2.9 2.9 1.1 1.1 2.9-2.9 2.9 2.9 1.1-1.1z',
  fullscreen: 'M7 14H5v5h5v-2H7v-3zm-2-4h2V7h3V5H5v5zm12 7h-3v2h5v-5h-2v3zM14 5v2h3v3h2V5h-5z',
  exitFullscreen: 'M5 16h3v3h2v-5H5v2zm3-8H5v2h5V5H8v3zm6 11h2v-3h3v-2h-5v5zm2-11V5h-2v5h5V8h-3z',
  subtitles: 'M20 4H4a2 2 0 0 0-2 2v12a2 2 0 0 0 2 2h16a2 2 0 0 0 2-2V6a2 2 0 0 0-2-2zM4 12h4v2H4v-2zm10 6H4v-2h10v2zm6 0h-4v-2h4v2zm0-4H10v-2h10v2z',
  audio: 'M12 2a9 9 0 0 0-9 9v7a3 3 0 0 0 3 3h3v-8H5v-2a7 7 0 0 1 14 0v2h-4v8h3a3 3 0 0 0 3-3v-7a9 9 0 0 0-9-9z',
  // The library's Download my data: an arrow down onto a tray.
  download: 'M11 4h2v8.2l3.3-3.3 1.4 1.4L12 16l-5.7-5.7 1.4-1.4 3.3 3.3zM5 18h14v2H5z',
  quality: 'M19 4H5a2 2 0 0 0-2 2v12a2 2 0 0 0 2 2h14a2 2 0 0 0 2-2V6a2 2 0 0 0-2-2zm-8 11H9.5v-2h-2v2H6V9h1.5v2.5h2V9H11v6zm2-6h4a1 1 0 0 1 1 1v4a1 1 0 0 1-1 1h-4V9zm1.5 4.5h2v-3h-2v3z',
};

export type IconName = keyof typeof ICONS;

export const icon = (name: IconName) =>
  html`<svg viewBox="0 0 24 24" aria-hidden="true" class="glyph"><path d=${ICONS[name]} fill="currentColor"></path></svg>`;
