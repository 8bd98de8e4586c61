// A title's stream on the page's <video>: hls.js (loaded when first needed)
// or the browser's own HLS; the viewer's quality, audio and subtitles
// applied to it, and kept for the next title (the languages) or a renewed
// stream (all three). The store hears of its qualities and tracks.
import type HlsPlayer from 'hls.js';
import type { ErrorData } from 'hls.js';
import { t } from '../format.ts';
import { patchVideo } from './video-state.ts';

/** Where the viewer's languages are kept: the audio and subtitles they chose last, for the next title. */
const CHOICES_KEY = 'maqam-demo:video-languages';

/** hls.js, once loaded. */
let Hls: typeof HlsPlayer | undefined;

/** The viewer asked to save data: the stream is acquired at SD at most. */
export const saveData = () => (navigator as Navigator & { connection?: { saveData?: boolean } }).connection?.saveData === true;

/** What the viewer chose: kept across a renewal (the quality too), and the languages for the next title. */
export interface Choices {
  level?: number;
  audio?: string;
  /** A subtitle language, or '' for none. */
  subtitles?: string;
}

export function savedChoices(): Choices {
  try {
    return JSON.parse(localStorage.getItem(CHOICES_KEY) ?? '{}') as Choices;
  } catch {
    return {};
  }
}

export function saveChoices(change: Choices) {
  localStorage.setItem(CHOICES_KEY, JSON.stringify({ ...savedChoices(), ...change }));
}

/**
 * Plays `manifestUrl` on `video` from `startSeconds` with the viewer's
 * `choices`: the hls.js player (undefined where the browser plays HLS
 * itself), or null when `isCurrent` says the page moved on meanwhile.
 */
export async function attachStream(video: HTMLVideoElement, manifestUrl: string, startSeconds: number, choices: Choices,
  handlers: { isCurrent: () => boolean; onError: (data: ErrorData) => void }): Promise<HlsPlayer | undefined | null> {
  Hls ??= (await import('hls.js')).default;
  if (!handlers.isCurrent()) return null;
  if (!Hls.isSupported()) {
    // Native HLS (Safari on an iPhone): the system's own menus choose languages.
    if (!video.canPlayType('application/vnd.apple.mpegurl')) throw new Error(t().cannotPlay);
    video.src = manifestUrl;
    if (startSeconds > 0) video.addEventListener('loadedmetadata', () => void (video.currentTime = startSeconds), { once: true });
    return undefined;
  }
  const player = new Hls({
    startPosition: startSeconds > 0 ? startSeconds : -1,
    // Auto never picks more pixels than the player shows.
    capLevelToPlayerSize: true,
    ...(choices.audio ? { audioPreference: { lang: choices.audio } } : {}),
    ...(choices.subtitles ? { subtitlePreference: { lang: choices.subtitles } } : {}),
  });
  // Subtitles are drawn by the page: the tracks stay hidden, their cues still timed.
  player.subtitleDisplay = false;
  const tracks = () => ({
    audioTracks: player.audioTracks.map((track) => ({ name: track.name, lang: track.lang ?? '' })),
    audioTrack: player.audioTrack,
    subtitleTracks: player.subtitleTracks.map((track) => ({ name: track.name, lang: track.lang ?? '', forced: track.forced })),
    subtitleTrack: player.subtitleTrack,
  });
  player.on(Hls.Events.MANIFEST_PARSED, () => {
    if (choices.level !== undefined && choices.level >= 0 && choices.level < player.levels.length) player.currentLevel = choices.level;
    if (!choices.subtitles) subtitlesOff(player);
    patchVideo({ levels: player.levels.map((level) => ({ height: level.height, bitrate: level.bitrate })), level: player.manualLevel, ...tracks() });
  });
  player.on(Hls.Events.LEVEL_SWITCHED, (_event, data) => patchVideo({ playingLevel: data.level }));
  player.on(Hls.Events.AUDIO_TRACKS_UPDATED, () => patchVideo(tracks()));
  player.on(Hls.Events.AUDIO_TRACK_SWITCHED, () => {
    // Forced subtitles follow the audio's language.
    if (player.subtitleTrack < 0 || player.subtitleTracks[player.subtitleTrack]?.forced) subtitlesOff(player);
    patchVideo(tracks());
  });
  player.on(Hls.Events.SUBTITLE_TRACKS_UPDATED, () => patchVideo(tracks()));
  player.on(Hls.Events.SUBTITLE_TRACK_SWITCH, () => patchVideo(tracks()));
  player.on(Hls.Events.ERROR, (_event, data) => handlers.onError(data));
  player.loadSource(manifestUrl);
  player.attachMedia(video);
  return player;
}

/** No subtitles chosen: the forced ones of the audio's language where the title has them, else none. */
export function subtitlesOff(player: HlsPlayer) {
  const audio = player.audioTracks[player.audioTrack]?.lang;
  const forced = player.subtitleTracks.findIndex((track) => track.forced && track.lang === audio);
  if (player.subtitleTrack !== forced) player.subtitleTrack = forced;
}

/**
 * A quality (-1: Auto) on `player`. A quality chosen shows at once, as the
 * viewer expects: hls.js replaces the buffer, and `restartDecoder` (a seek
 * to where the picture is) restarts the decoder there once the new quality
 * is buffered (Chromium would otherwise show the old picture, frozen, until
 * the next keyframe, up to a segment away). Auto takes over at the next
 * segment, without a pause.
 */
export function switchLevel(player: HlsPlayer, level: number, restartDecoder: () => void) {
  if (level < 0) {
    player.nextLevel = -1;
    return;
  }
  player.currentLevel = level;
  const { FRAG_BUFFERED } = Hls!.Events;
  const buffered = (_event: typeof FRAG_BUFFERED, data: { frag: { type: string } }) => {
    if (data.frag.type !== 'main') return;
    player.off(FRAG_BUFFERED, buffered);
    restartDecoder();
  };
  player.on(FRAG_BUFFERED, buffered);
}
