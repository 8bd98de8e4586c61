// The player's symbols, drawn (a system may have no font with ⏮ or 🔀); not
// mirrored right to left, as they stand for time.
import { html } from 'lit-html';

const ICONS = {
  previous: 'M6 5h2v14H6zM20 5v14L9 12z',
  next: 'M16 5h2v14h-2zM4 5v14l11-7z',
  shuffle: 'M16 4h4v4l-1.5-1.5-4 4-1.4-1.4 4-4zM4 6.5l1.4-1.4L19 18.6V17h1v3h-3v-1h1.6zM20 16v4h-4l1.5-1.5-3.2-3.2 1.4-1.4 3.2 3.2z',
  play: 'M7 4v16l13-8z',
  pause: 'M6 4h4v16H6zm8 0h4v16h-4z',
};

export const icon = (name: keyof typeof ICONS) =>
  html`<svg viewBox="0 0 24 24" aria-hidden="true" class="glyph"><path d=${ICONS[name]} fill="currentColor"></path></svg>`;
