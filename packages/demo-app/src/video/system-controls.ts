// The lock screen, the notification and the media keys (Media Session API)
// while a video plays: they belong to the video player on its page, and go
// back to the music's player when it leaves.
import { answerSystemControls, describeToSystem } from '../player/player.ts';
import type { VideoView } from '../pages/video-page.ts';
import { store } from '../store.ts';

/**
 * The lock screen, the notification and the media keys (Media Session API)
 * play, pause and seek the video while its page is on screen, and name what
 * plays; the next track is the next episode.
 */
export function takeSystemControls(view: VideoView, control: { play(): void; pause(): void; seekBy(seconds: number): void; seekTo(ms: number): void; next?: (() => void) | undefined }) {
  if (!('mediaSession' in navigator)) return;
  const item = view.movie ?? view.episode;
  if (!item) return;
  navigator.mediaSession.metadata = new MediaMetadata({
    title: item.title.value,
    artist: view.show?.title.value ?? '',
    artwork: item.artwork.map((image) => ({ src: image.url, sizes: `${image.width}x${image.height}`, type: image.url.endsWith('.svg') ? 'image/svg+xml' : 'image/jpeg' })),
  });
  const actions: [MediaSessionAction, MediaSessionActionHandler | null][] = [
    ['play', () => control.play()],
    ['pause', () => control.pause()],
    ['seekbackward', (details) => control.seekBy(-(details.seekOffset ?? 10))],
    ['seekforward', (details) => control.seekBy(details.seekOffset ?? 10)],
    ['seekto', (details) => details.seekTime !== undefined && control.seekTo(details.seekTime * 1000)],
    ['nexttrack', control.next ? () => control.next?.() : null],
    ['previoustrack', null],
  ];
  for (const [action, handler] of actions) {
    try {
      navigator.mediaSession.setActionHandler(action, handler);
    } catch {
      // A browser that does not know this action.
    }
  }
}

/** Back to the music's: its controls, and the song it holds, if any. */
export function giveBackSystemControls() {
  if (!('mediaSession' in navigator)) return;
  navigator.mediaSession.metadata = null;
  answerSystemControls();
  const song = store.state.nowPlaying;
  if (song) describeToSystem(song);
}
