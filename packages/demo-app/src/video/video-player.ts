// The video player: the player page's <video>, fed the title's stream by
// hls.js (or natively where there is no Media Source, as on older iPhones);
// its qualities, audio languages and subtitles; the SDK's WatchReporter, so
// continue watching resumes where the viewer left off on any device; and a
// stream whose URLs stopped working (a 403 after a very long pause) acquired
// again and played on from the same place. video-controls.ts draws it.
import { localStorageTokens, MaqamError, NotFoundError, SignInRequiredError, type PlayableTitle, type ProgressResult, type WatchReporter } from '@maqam/sdk';
import type HlsPlayer from 'hls.js';
import type { ErrorData } from 'hls.js';
import { t } from '../format.ts';
import type { VideoView } from '../pages/video-page.ts';
import { pause as pauseMusic } from '../player/player.ts';
import { maqam, say } from '../session.ts';
import { store, type State } from '../store.ts';
import { cancelCountdown, playNextEpisode, startCountdown, stopCountdown } from './next-episode.ts';
import { giveBackSystemControls, takeSystemControls } from './system-controls.ts';
import { hideControlsSoon, showControls, stopHidingControls } from './video-overlays.ts';
import { attachStream, saveChoices, saveData, savedChoices, subtitlesOff, switchLevel, type Choices } from './video-stream.ts';
import { initialVideoState, patchVideo, subtitlesOn } from './video-state.ts';

/** Text tracks that are subtitles (hls.js adds a hidden `metadata` track for a stream's ID3 tags). */
const SUBTITLE_KINDS = ['subtitles', 'captions', 'forced'];

let reporter: WatchReporter;
/** The <video> playing, and the title it plays ("movie:ID"). */
let element: HTMLVideoElement | undefined;
let titleKey = '';
let hls: HlsPlayer | undefined;
/** Each open and close moves it: the work of an earlier one stops when it sees it moved. */
let generation = 0;
/** The <video>'s listeners, removed with it. */
let listening: AbortController | undefined;
/**
 * Acquiring the stream again: the <video>'s events meanwhile (its reset to
 * 0, a pause) are the reload's, not the viewer's, and are not reported.
 */
let renewing: { at: number } | undefined;
let lastRenewal = 0;
let recoveredMedia = false;
/** A seek of the player's own (restarting the decoder after a quality switch): not the viewer's, not reported. */
let quietSeek = false;

/** Whether the demo has video for a film or an episode: the only ones it offers to play (every one, when the server does not say). */
export function hasVideo(id: string): boolean {
  const titles = store.state.settings.videoTitles;
  return titles === undefined || titles.includes(id);
}

/** The reporter, told of each report's results (`onReported`), and what leaving the page does. */
export function startVideo(options: { onReported?: (results: ProgressResult[]) => void } = {}) {
  reporter = maqam.watchReporter({ storage: localStorageTokens(), onReported: options.onReported });
  // Leaving or hiding the page: the place is reported now (queued in localStorage if it cannot be sent).
  addEventListener('pagehide', () => {
    if (element && store.state.video && !renewing) reporter.pause(element.currentTime * 1000);
  });
  document.addEventListener('fullscreenchange', () => patchVideo({ fullscreen: document.fullscreenElement !== null }));
}

/** Sends the progress reports waiting (a place left on the page before, offline, or a moment ago). */
export const flushWatchReports = () => reporter.flush();
export const pendingWatchReports = () => reporter.pending();

/** After each render: the player page's <video> plays its title; leaving the page (or another title on it) stops it. */
export function followVideo(state: State) {
  const view = state.view?.view === 'player' ? state.view : undefined;
  const video = view ? document.querySelector<HTMLVideoElement>('[data-testid="video"]') : null;
  if (!view || !video) {
    if (element) close();
    return;
  }
  const key = `${view.kind}:${view.id}`;
  if (video === element && key === titleKey) return;
  if (element) close();
  element = video;
  titleKey = key;
  // Not within the render that found it: opening changes the state.
  queueMicrotask(() => void open(video, view));
}

function listen(video: HTMLVideoElement, signal: AbortSignal) {
  const on = (type: string, handler: () => void) => video.addEventListener(type, handler, { signal });
  const at = () => video.currentTime * 1000;
  const title = () => store.state.video?.title;
  on('play', () => {
    patchVideo({ paused: false, ended: false });
    const playing = title();
    if (playing && !renewing) reporter.play(playing, at());
    hideControlsSoon();
  });
  on('playing', () => {
    patchVideo({ waiting: false });
    settleRenewal(video);
  });
  on('canplay', () => {
    patchVideo({ waiting: false });
    if (video.paused) settleRenewal(video);
  });
  on('waiting', () => patchVideo({ waiting: true }));
  on('pause', () => {
    patchVideo({ paused: true, controls: true });
    // At the end, `ended` reports; a pause of the reload is not the viewer's.
    if (!video.ended && !renewing) reporter.pause(at());
  });
  on('timeupdate', () => {
    if (renewing) return;
    patchVideo((current) => ({ position: at(), resumedAt: current.resumedAt > 0 && at() > current.resumedAt + 8000 ? 0 : current.resumedAt }));
    reporter.timeUpdate(at());
  });
  on('durationchange', () => {
    if (Number.isFinite(video.duration)) patchVideo({ duration: video.duration * 1000 });
  });
  on('seeked', () => {
    if (renewing || quietSeek) {
      quietSeek = false;
      return;
    }
    patchVideo({ position: at(), ended: false });
    reporter.seek(at());
  });
  on('ended', () => {
    reporter.end(at());
    patchVideo({ ended: true, paused: true, controls: true });
    startCountdown();
  });
  on('volumechange', () => patchVideo({ muted: video.muted, volume: video.volume }));
  // Subtitles are drawn by the page (above the controls, in the page's type), from the cues of the track chosen.
  // A track's active cues are trusted once it has told of a change in them: Chromium does not recompute them for a
  // track enabled again (off, then on again: C twice) until its next cue, so until then they are read off the time.
  const told = new WeakSet<TextTrack>();
  const followCues = () => {
    const track = Array.from(video.textTracks).find((candidate) => candidate.mode !== 'disabled' && SUBTITLE_KINDS.includes(candidate.kind));
    const time = video.currentTime;
    const cues = !track ? [] : told.has(track)
      ? Array.from(track.activeCues ?? [])
      : Array.from(track.cues ?? []).filter((cue) => cue.startTime <= time && time < cue.endTime);
    patchVideo({ cue: cues.map((cue) => (cue as VTTCue).text.replace(/<[^>]*>/g, '')).join('\n'), cueLang: track?.language ?? '' });
  };
  const followTrack = (track: TextTrack) => track.addEventListener('cuechange', () => {
    told.add(track);
    followCues();
  }, { signal });
  video.textTracks.addEventListener('addtrack', (event) => event.track && followTrack(event.track), { signal });
  for (const track of Array.from(video.textTracks)) followTrack(track);
  video.textTracks.addEventListener('change', () => {
    for (const track of Array.from(video.textTracks)) if (track.mode === 'disabled') told.delete(track);
    followCues();
  }, { signal });
  on('seeked', followCues);
  on('timeupdate', followCues);
}

/** The reload after a renewal is where it was: from here the <video>'s events are the viewer's again. */
function settleRenewal(video: HTMLVideoElement) {
  if (!renewing || Math.abs(video.currentTime - renewing.at) > 1.5) return;
  renewing = undefined;
  patchVideo({ phase: 'ready' });
}

/** The title's stream acquired and played from `view.resumeMs`. */
async function open(video: HTMLVideoElement, view: VideoView) {
  const run = ++generation;
  const title: PlayableTitle = view.kind === 'movie' ? { movieId: view.id } : { episodeId: view.id };
  listening = new AbortController();
  listen(video, listening.signal);
  renewing = undefined;
  recoveredMedia = false;
  store.update({ video: initialVideoState(title, view.resumeMs) });
  pauseMusic();
  takeSystemControls(view, {
    play: () => void element?.play().catch(() => undefined), pause: () => element?.pause(), seekBy, seekTo, next: view.next ? playNextEpisode : undefined,
  });
  try {
    const { stream } = await maqam.streaming.acquireVideo(title, { maxQuality: saveData() ? 'VIDEO_QUALITY_SD' : undefined, locale: store.state.lang });
    if (run !== generation) return;
    await load(video, stream.manifestUrl, view.resumeMs / 1000, savedChoices(), run, true);
  } catch (error) {
    if (run === generation) fail(error);
  }
}

/** The stream attached (`run` still the player's current one), then played if the viewer was playing. */
async function load(video: HTMLVideoElement, manifestUrl: string, startSeconds: number, choices: Choices, run: number, play: boolean) {
  const player = await attachStream(video, manifestUrl, startSeconds, choices, { isCurrent: () => run === generation, onError: onStreamError });
  if (player === null) return;
  hls = player;
  patchVideo({ phase: renewing ? 'renewing' : 'ready' });
  // Autoplay may be refused (a reload has no tap): the play button is there.
  if (play) await video.play().catch(() => patchVideo({ paused: true }));
}

/**
 * A stream's failures, as hls.js reports them. A 403 is a URL that no longer
 * opens (the viewing window it was signed for is over): the stream is
 * acquired again and plays on from the same place. A fatal media error is
 * recovered once; anything else says the video could not play.
 */
function onStreamError(data: ErrorData) {
  const status = data.response?.code;
  if (String(data.type) === 'networkError' && status === 403) {
    void renew();
    return;
  }
  if (!data.fatal) return;
  if (String(data.type) === 'mediaError' && !recoveredMedia) {
    recoveredMedia = true;
    hls?.recoverMediaError();
    return;
  }
  fail(new Error(`${t().videoFailed} (${data.details})`));
}

/** The stream acquired again, and played on where it was, with the viewer's quality, audio and subtitles. */
async function renew() {
  const video = element;
  const state = store.state.video;
  if (renewing || !video || !state || state.phase === 'failed') return;
  // A stream refused again right after a renewal would loop: that is a failure.
  if (Date.now() - lastRenewal < 15_000) {
    fail(new Error(t().videoFailed));
    return;
  }
  lastRenewal = Date.now();
  const run = generation;
  const at = state.position / 1000;
  renewing = { at };
  const choices: Choices = {
    level: state.level,
    audio: state.audioTracks[state.audioTrack]?.lang,
    subtitles: subtitlesOn(state) ? state.subtitleTracks[state.subtitleTrack]?.lang : '',
  };
  patchVideo({ phase: 'renewing' });
  try {
    const { stream } = await maqam.streaming.acquireVideo(state.title, { maxQuality: saveData() ? 'VIDEO_QUALITY_SD' : undefined, locale: store.state.lang });
    if (run !== generation) return;
    hls?.destroy();
    hls = undefined;
    await load(video, stream.manifestUrl, at, choices, run, !state.paused);
  } catch (error) {
    renewing = undefined;
    if (run === generation) fail(error);
  }
}

function fail(error: unknown) {
  if (error instanceof SignInRequiredError) {
    store.update({ user: null });
    say(t().signedOut);
    return;
  }
  const message = error instanceof NotFoundError ? t().noVideo : error instanceof MaqamError ? error.message : error instanceof Error ? error.message : String(error);
  hls?.destroy();
  hls = undefined;
  patchVideo({ phase: 'failed', error: message, waiting: false, controls: true });
}

/** Leaving the title: its place reported, the stream stopped, the player gone. */
function close() {
  generation++;
  const video = element!;
  const state = store.state.video;
  if (state && state.phase !== 'failed') reporter.end(renewing ? state.position : video.currentTime * 1000);
  element = undefined;
  titleKey = '';
  renewing = undefined;
  listening?.abort();
  stopHidingControls();
  stopCountdown();
  hls?.destroy();
  hls = undefined;
  video.pause();
  video.removeAttribute('src');
  if (document.fullscreenElement) void document.exitFullscreen().catch(() => undefined);
  store.update({ video: null });
  giveBackSystemControls();
}

// ---- What the controls and the keyboard do ----

export function togglePlay() {
  const video = element;
  if (!video || store.state.video?.phase === 'failed') return;
  if (store.state.video?.ended) watchAgain();
  else if (video.paused) void video.play().catch(() => undefined);
  else video.pause();
}

export function seekTo(ms: number) {
  const video = element;
  if (!video || !Number.isFinite(video.duration)) return;
  cancelCountdown();
  video.currentTime = Math.max(0, Math.min(video.duration, ms / 1000));
  patchVideo({ position: video.currentTime * 1000 });
  showControls();
}

export const seekBy = (seconds: number) => element && seekTo((element.currentTime + seconds) * 1000);

/** The viewer deliberately starts over: reported as a restart, so the resume point moves back to the start. */
export function startOver() {
  const video = element;
  if (!video) return;
  cancelCountdown();
  video.currentTime = 0;
  reporter.restart(0);
  patchVideo({ resumedAt: 0, ended: false });
  void video.play().catch(() => undefined);
}

export const watchAgain = startOver;

/** A quality (-1: Auto): see switchLevel. */
export function chooseLevel(level: number) {
  const player = hls;
  if (!player) return;
  switchLevel(player, level, () => {
    if (!element || hls !== player) return;
    quietSeek = true;
    element.currentTime = element.currentTime;
  });
  patchVideo({ level, menu: null });
}

export function chooseAudio(index: number) {
  if (!hls) return;
  hls.audioTrack = index;
  saveChoices({ audio: hls.audioTracks[index]?.lang });
  patchVideo({ audioTrack: index, menu: null });
}

/** Subtitles in a language (-1: none, which shows the audio language's forced subtitles where there are). */
export function chooseSubtitles(index: number) {
  if (!hls) return;
  if (index < 0) subtitlesOff(hls);
  else hls.subtitleTrack = index;
  saveChoices({ subtitles: index < 0 ? '' : hls.subtitleTracks[index]?.lang });
  patchVideo({ subtitleTrack: hls.subtitleTrack, menu: null, ...(hls.subtitleTrack < 0 ? { cue: '' } : {}) });
}

/** C: subtitles off, or on in the language chosen last (else the page's, else the first). */
export function toggleSubtitles() {
  const state = store.state.video;
  const full = state?.subtitleTracks.flatMap((track, index) => (track.forced ? [] : [{ ...track, index }])) ?? [];
  if (!state || full.length === 0) return;
  if (subtitlesOn(state)) {
    chooseSubtitles(-1);
    return;
  }
  const wanted = [savedChoices().subtitles, store.state.lang];
  chooseSubtitles((full.find((track) => wanted.includes(track.lang)) ?? full[0]!).index);
}

export function toggleMute() {
  if (element) element.muted = !element.muted;
}

export function setVolume(volume: number) {
  if (!element) return;
  element.volume = volume;
  element.muted = volume === 0;
}

/** The player (the picture, its subtitles and controls) fills the screen; on an iPhone, the system's own player does. */
export function toggleFullscreen() {
  const stage = element?.closest<HTMLElement>('.stage');
  if (!stage) return;
  if (document.fullscreenElement) void document.exitFullscreen().catch(() => undefined);
  else if (stage.requestFullscreen) void stage.requestFullscreen().catch(() => undefined);
  else (element as HTMLVideoElement & { webkitEnterFullscreen?: () => void }).webkitEnterFullscreen?.();
}
