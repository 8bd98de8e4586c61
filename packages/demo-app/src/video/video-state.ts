// What the video player shows, as the store holds it: the stream's state as
// the <video> and hls.js tell it, the viewer's choices, and which of the
// player's layers are open. video-player.ts is the one writer.
import type { PlayableTitle } from '@maqam/sdk';
import { store } from '../store.ts';

/** A quality of the stream: hls.js's level, by its height ("720p"). */
export interface VideoLevel {
  height: number;
  bitrate: number;
}

/** An audio or subtitle rendition, named in its own language as the playlist's NAME says. */
export interface VideoTrackOption {
  name: string;
  lang: string;
  /** Forced subtitles: only what is not in the audio's language (a sign, a line in another language), shown with no subtitles chosen. */
  forced?: boolean;
}

export type VideoMenu = 'quality' | 'audio' | 'subtitles';

export interface VideoState {
  title: PlayableTitle;
  /** loading: acquiring or starting; renewing: acquiring again after the stream's URLs expired; failed: `error` says why. */
  phase: 'loading' | 'ready' | 'renewing' | 'failed';
  error: string;
  paused: boolean;
  ended: boolean;
  /** Waiting for data while playing (a spinner). */
  waiting: boolean;
  /** Position and length in ms (NaN until the stream says). */
  position: number;
  duration: number;
  muted: boolean;
  volume: number;
  levels: VideoLevel[];
  /** The quality chosen: -1 is Auto. */
  level: number;
  /** The quality playing now (what Auto chose). */
  playingLevel: number;
  audioTracks: VideoTrackOption[];
  audioTrack: number;
  subtitleTracks: VideoTrackOption[];
  /** -1: off (or the forced subtitles of the audio's language, when there are). */
  subtitleTrack: number;
  /** The subtitle on screen now, and its language. */
  cue: string;
  cueLang: string;
  menu: VideoMenu | null;
  help: boolean;
  /** The controls are shown (they hide while playing, after a few seconds untouched). */
  controls: boolean;
  fullscreen: boolean;
  /** Seconds left before the next episode starts; null when no countdown runs. */
  countdown: number | null;
  /** Where playback resumed (ms), shown with Start over until the viewer moves on; 0: from the start. */
  resumedAt: number;
}

export const initialVideoState = (title: PlayableTitle, resumedAt: number): VideoState => ({
  title, phase: 'loading', error: '', paused: true, ended: false, waiting: false, position: resumedAt, duration: Number.NaN, muted: false, volume: 1,
  levels: [], level: -1, playingLevel: -1, audioTracks: [], audioTrack: -1, subtitleTracks: [], subtitleTrack: -1, cue: '', cueLang: '',
  menu: null, help: false, controls: true, fullscreen: false, countdown: null, resumedAt,
});

/** A quality's name: its height, as every player names it ("720p"). */
export const levelName = (level: VideoLevel | undefined) => (level ? `${level.height}p` : '');

/** Changes the player's state, if a player is on screen; a change that changes nothing redraws nothing (the mouse moves often). */
export function patchVideo(change: Partial<VideoState> | ((video: VideoState) => Partial<VideoState>)) {
  store.update(({ video }) => {
    if (!video) return {};
    const patch = typeof change === 'function' ? change(video) : change;
    if (Object.entries(patch).every(([key, value]) => Object.is(video[key as keyof VideoState], value))) return {};
    return { video: { ...video, ...patch } };
  });
}

/** Whether the viewer has subtitles on (a forced track shows with them off). */
export const subtitlesOn = (video: VideoState) => video.subtitleTrack >= 0 && video.subtitleTracks[video.subtitleTrack]?.forced !== true;
