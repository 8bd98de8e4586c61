// The player: one <audio> for the whole visit, fed an HLS stream (natively,
// or by hls.js where the browser has no HLS), the queue it plays through, the
// lyrics of the song playing, the lock screen's controls (Media Session), and
// the SDK's PlayReporter, which measures each play and reports it.
import { localStorageTokens, NotFoundError, type PlayReporter, type Song } from '@maqam/sdk';
import { t } from '../format.ts';
import { playContextOf } from '../router.ts';
import { act, maqam, say } from '../session.ts';
import { store } from '../store.ts';
import { currentOf, EMPTY_QUEUE, hasNext, hasPrevious, jump, restoreQueue, startQueue, withShuffle, type QueueState } from './play-queue.ts';

/** Where a tab keeps its queue across a reload. */
const QUEUE_KEY = 'maqam-demo:queue';

let audio: HTMLAudioElement;
/** The hls.js instance of the stream playing, where HLS is not native. */
let hls: { destroy(): void } | undefined;
let reporter: PlayReporter;

/** Whether the demo has audio for a song: the only ones it offers to play. */
export const playable = (song: Song) => store.state.settings.mediaSongs.includes(song.id.value);

/** Starts the player on the page's <audio>: the queue this tab kept, the reporter (told of each report by `onReported`), the system's controls. */
export function startPlayer(options: { onReported: () => void }) {
  audio = document.getElementById('audio') as HTMLAudioElement;
  // Plays are measured and reported by the SDK; they wait in localStorage while offline.
  reporter = maqam.playReporter({ storage: localStorageTokens(), onReported: options.onReported });
  try {
    const kept = sessionStorage.getItem(QUEUE_KEY);
    const queue = kept ? restoreQueue<Song>(JSON.parse(kept)) : undefined;
    if (queue) store.update({ queue });
  } catch {
    sessionStorage.removeItem(QUEUE_KEY);
  }
  store.subscribe((state, previous) => {
    if (state.queue === previous.queue) return;
    if (state.queue.songs.length === 0) sessionStorage.removeItem(QUEUE_KEY);
    else sessionStorage.setItem(QUEUE_KEY, JSON.stringify(state.queue));
  });
  audio.addEventListener('timeupdate', followTime);
  audio.addEventListener('durationchange', followTime);
  audio.addEventListener('play', () => {
    const song = store.state.nowPlaying;
    if (song?.id && reporter.current?.songId === song.id.value) reporter.resume();
    else if (song?.id) reporter.start(song.id.value, { durationMs: song.durationMs, context: store.state.playContext });
    if ('mediaSession' in navigator) navigator.mediaSession.playbackState = 'playing';
    store.update({ paused: false });
  });
  audio.addEventListener('pause', () => {
    reporter.pause();
    if ('mediaSession' in navigator) navigator.mediaSession.playbackState = 'paused';
    store.update({ paused: true });
  });
  audio.addEventListener('seeking', () => reporter.seek());
  audio.addEventListener('ended', () => {
    void reporter.end();
    // The next song of the queue; at its end, the player stops.
    next();
  });
  // Leaving the page ends the play; it waits in localStorage and is reported on the next visit.
  addEventListener('pagehide', () => void reporter.end());
  answerSystemControls();
}

/** Plays left from an earlier visit (offline, or the page closed mid-song), sent now. */
export const reportLeftPlays = () => void reporter.flush();

/** The progress bar and the lit lyrics line follow the audio; the lock screen too. */
function followTime() {
  store.update({ position: audio.currentTime * 1000, duration: audio.duration * 1000 });
  if ('mediaSession' in navigator && Number.isFinite(audio.duration) && audio.duration > 0) {
    navigator.mediaSession.setPositionState({ duration: audio.duration, position: Math.min(audio.currentTime, audio.duration), playbackRate: audio.playbackRate });
  }
}

/** Starts a song of the queue: its stream acquired, its lyrics fetched, the lock screen told. */
async function play(song: Song) {
  const { stream } = await maqam.streaming.acquireMusic(song.id.value, { maxQuality: store.state.quality });
  // The song before it, if it was playing, ends here: its play is reported.
  reporter.end();
  store.update({ nowPlaying: song, playContext: playContextOf(store.state.route), lyrics: null });
  hls?.destroy();
  hls = undefined;
  if (audio.canPlayType('application/vnd.apple.mpegurl')) {
    audio.src = stream.manifestUrl;
  } else {
    // Browsers without native HLS get hls.js, loaded only now.
    const { default: Hls } = await import('hls.js');
    if (!Hls.isSupported()) throw new Error(t().cannotPlay);
    const player = new Hls();
    player.loadSource(stream.manifestUrl);
    player.attachMedia(audio);
    hls = player;
  }
  describeToSystem(song);
  followTime();
  // The lyrics load while the audio starts, and show as soon as they come: a slow start must not hold them back.
  await Promise.all([
    audio.play().catch(() => undefined), // autoplay may be refused; the play button is there
    song.hasLyrics ? loadLyrics(song) : undefined,
  ]);
}

async function loadLyrics(song: Song) {
  const lyrics = await maqam.songs.lyrics(song.id.value).catch((error: unknown) => {
    if (error instanceof NotFoundError) return null;
    throw error;
  });
  // Another song may have started meanwhile: its lyrics are its own.
  if (store.state.nowPlaying === song) store.update({ lyrics });
}

/** Plays the queue's current song; one that has lost its media since says so. */
export async function playCurrent() {
  const song = currentOf(store.state.queue);
  if (!song) return;
  await act(async () => {
    try {
      await play(song);
    } catch (error) {
      if (error instanceof NotFoundError) say(t().noMedia);
      else throw error;
    }
  });
}

/** Plays `songs` (those with media) from `song`, in order or shuffled: an album, a playlist, a list of results. */
export function playFrom(songs: readonly Song[], song?: Song, shuffled = false) {
  const playableSongs = songs.filter(playable);
  const first = song ? playableSongs.findIndex((other) => other.id.value === song.id.value) : shuffled ? Math.floor(Math.random() * playableSongs.length) : 0;
  if (playableSongs.length === 0 || first === -1) {
    say(t().noPlayable);
    return;
  }
  store.update({ queue: startQueue(playableSongs, first, shuffled) });
  void playCurrent();
}

/** Moves the queue to `queue` (when there is one) and plays its song. */
function playQueue(queue: QueueState<Song> | undefined) {
  if (!queue) return;
  store.update({ queue });
  void playCurrent();
}

export const next = () => playQueue(hasNext(store.state.queue) ? jump(store.state.queue, store.state.queue.at + 1) : undefined);

/** The song at `place` of the queue's play order. */
export const playPlace = (place: number) => playQueue(jump(store.state.queue, place));

/** Back to the start of the song a few seconds in, as players do; else the song before. */
export function previous() {
  if (audio.currentTime > 3 || !hasPrevious(store.state.queue)) {
    audio.currentTime = 0;
    return;
  }
  playQueue(jump(store.state.queue, store.state.queue.at - 1));
}

export function toggleShuffle() {
  const queue = withShuffle(store.state.queue, !store.state.queue.shuffled);
  store.update({ queue });
  say(queue.shuffled ? t().shuffleOn : t().shuffleOff);
}

export function togglePlaying() {
  if (!store.state.nowPlaying) return;
  if (audio.paused) {
    // A queue restored after a reload has no stream yet.
    if (!audio.currentSrc) void playCurrent();
    else void audio.play();
  } else {
    audio.pause();
  }
}

export const pause = () => audio.pause();

/** To `ms` into the song; playing from there when `andPlay` (a tapped lyrics line). */
export function seekTo(ms: number, andPlay = false) {
  audio.currentTime = ms / 1000;
  if (andPlay) void audio.play().catch(() => undefined);
}

export function seekBy(seconds: number) {
  if (!store.state.nowPlaying || !Number.isFinite(audio.duration)) return;
  audio.currentTime = Math.max(0, Math.min(audio.duration, audio.currentTime + seconds));
}

export function toggleLyrics() {
  const lyricsOpen = !store.state.lyricsOpen;
  // One panel at a time: on a phone both are sheets in the same place.
  store.update({ lyricsOpen, queueOpen: lyricsOpen ? false : store.state.queueOpen });
}

export function toggleQueue() {
  if (!store.state.nowPlaying) return;
  const queueOpen = !store.state.queueOpen;
  store.update({ queueOpen, lyricsOpen: queueOpen ? false : store.state.lyricsOpen });
}

/** Signing out: the play playing ends and is reported while the session still can. */
export async function endPlays() {
  reporter.end();
  await reporter.flush();
}

/** Silence, no stream, an empty queue (the state's player fields are the caller's to reset). */
export function stopPlayback() {
  audio.pause();
  hls?.destroy();
  hls = undefined;
  audio.removeAttribute('src');
  store.update({ queue: EMPTY_QUEUE });
}

/**
 * The lock screen, the notification and the media keys (Media Session API):
 * what plays, with its cover.
 */
export function describeToSystem(song: Song) {
  if (!('mediaSession' in navigator)) return;
  navigator.mediaSession.metadata = new MediaMetadata({
    title: song.title.value,
    artist: song.artists.map((ref) => ref.name.value).join(', '),
    artwork: song.artwork.map((image) => ({ src: image.url, sizes: `${image.width}x${image.height}`, type: image.url.endsWith('.svg') ? 'image/svg+xml' : 'image/jpeg' })),
  });
}

/** What play, pause, next, previous and seeking do from the lock screen and the media keys (the video player takes them while it is on screen, and gives them back). */
export function answerSystemControls() {
  if (!('mediaSession' in navigator)) return;
  const actions: [MediaSessionAction, MediaSessionActionHandler][] = [
    ['play', () => togglePlaying()],
    ['pause', () => audio.pause()],
    ['nexttrack', () => next()],
    ['previoustrack', () => previous()],
    ['seekbackward', (details) => seekBy(-(details.seekOffset ?? 10))],
    ['seekforward', (details) => seekBy(details.seekOffset ?? 10)],
    ['seekto', (details) => {
      if (details.seekTime !== undefined) audio.currentTime = details.seekTime;
    }],
  ];
  for (const [action, handler] of actions) {
    try {
      navigator.mediaSession.setActionHandler(action, handler);
    } catch {
      // A browser that does not know this action.
    }
  }
}
