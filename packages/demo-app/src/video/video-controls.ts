// The video player as the page draws it: the picture, its subtitles, what
// it is doing (loading, renewing, failed), the resume hint, the next
// episode's countdown, the shortcuts' help, and the controls: the seek bar,
// play, ten seconds back and ahead, sound, and the subtitle, audio and
// quality menus (each language named in itself), and full screen.
import type { Episode } from '@maqam/sdk';
import { html, nothing, type TemplateResult } from 'lit-html';
import { live } from 'lit-html/directives/live.js';
import { icon, type IconName } from '../components/icons.ts';
import { artworkOf } from '../components/titles.ts';
import { clock, number, t } from '../format.ts';
import { cancelCountdown, NEXT_EPISODE_SECONDS, playNextEpisode } from './next-episode.ts';
import { chooseAudio, chooseLevel, chooseSubtitles, seekBy, seekTo, setVolume, startOver, toggleFullscreen, toggleMute, togglePlay } from './video-player.ts';
import { closeMenus, hideControls, showControls, toggleHelp, toggleMenu } from './video-overlays.ts';
import { levelName, subtitlesOn, type VideoMenu, type VideoState } from './video-state.ts';
import { seekKeys } from './video-keys.ts';

/** A control: its symbol, its name (and shortcut) on hover and to a screen reader; `menu` names the menu it opens. */
function control(name: IconName, label: string, key: string, onClick: () => void, options: { testId: string; extra?: TemplateResult | undefined; menu?: { kind: VideoMenu; open: boolean } }) {
  return html`<button type="button" class="vc" data-testid=${options.testId} aria-label=${label} title=${key ? `${label} (${key})` : label}
    aria-haspopup=${options.menu ? 'menu' : nothing} aria-expanded=${options.menu ? String(options.menu.open) : nothing}
    @click=${onClick}>${icon(name)}${options.extra ?? nothing}</button>`;
}

/** Arrows move between a menu's items, Escape closes it with the focus back on its button. */
function onMenuKey(event: KeyboardEvent, menu: VideoMenu) {
  const items = Array.from((event.currentTarget as HTMLElement).querySelectorAll<HTMLElement>('[role="menuitemradio"]'));
  const at = items.indexOf(document.activeElement as HTMLElement);
  if (event.key === 'Escape') {
    closeMenus();
    document.querySelector<HTMLElement>(`[data-testid="video-${menu}"]`)?.focus();
  } else if (event.key === 'ArrowDown') items[(at + 1) % items.length]?.focus();
  else if (event.key === 'ArrowUp') items[(at - 1 + items.length) % items.length]?.focus();
  else return;
  event.preventDefault();
  event.stopPropagation();
}

interface Option {
  label: string;
  lang?: string;
  checked: boolean;
  choose: () => void;
}

function menu(kind: VideoMenu, heading: string, options: Option[]) {
  return html`
    <div class="video-menu" role="menu" aria-label=${heading} data-testid=${`video-menu-${kind}`} @keydown=${(event: KeyboardEvent) => onMenuKey(event, kind)}>
      <p class="video-menu-heading" aria-hidden="true">${heading}</p>
      ${options.map((option) => html`
        <button type="button" role="menuitemradio" aria-checked=${String(option.checked)} lang=${option.lang ?? nothing} data-testid="video-option"
          @click=${option.choose}><span dir="auto">${option.label}</span></button>`)}
    </div>`;
}

function openMenu(video: VideoState) {
  const text = t();
  switch (video.menu) {
    case 'quality': {
      const playing = levelName(video.levels[video.playingLevel]);
      // Highest first, as players list them.
      const levels = video.levels.map((level, index) => ({ level, index })).sort((a, b) => b.level.height - a.level.height);
      return menu('quality', text.quality, [
        { label: video.level < 0 && playing ? text.autoQualityNow(playing) : text.autoQuality, checked: video.level < 0, choose: () => chooseLevel(-1) },
        ...levels.map(({ level, index }) => ({ label: levelName(level), lang: 'en', checked: video.level === index, choose: () => chooseLevel(index) })),
      ]);
    }
    case 'audio':
      return menu('audio', text.audioLanguage, video.audioTracks.map((track, index) => ({
        label: track.name, lang: track.lang, checked: video.audioTrack === index, choose: () => chooseAudio(index),
      })));
    case 'subtitles':
      // Forced subtitles are not a choice: they show when none is chosen.
      return menu('subtitles', text.subtitlesMenu, [
        { label: text.subtitlesOff, checked: !subtitlesOn(video), choose: () => chooseSubtitles(-1) },
        ...video.subtitleTracks.flatMap((track, index) => (track.forced ? [] : [{
          label: track.name, lang: track.lang, checked: video.subtitleTrack === index, choose: () => chooseSubtitles(index),
        }])),
      ]);
    default:
      return nothing;
  }
}

function controlsBar(video: VideoState, headline: TemplateResult | string) {
  const text = t();
  const duration = Number.isFinite(video.duration) ? video.duration : 0;
  const toggleLabel = video.paused ? text.playVideo : text.pauseVideo;
  const ten = html`<span class="skip-seconds" aria-hidden="true">${number(10)}</span>`;
  return html`
    <div class="video-controls" role="group" aria-label=${text.player} data-testid="video-controls">
      <div class="seek-row">
        <span class="time" data-testid="video-elapsed">${clock(video.position)}</span>
        <input type="range" class="video-seek" data-testid="video-seek" min="0" step="1000" aria-label=${text.seek}
          .max=${String(Math.round(duration))} .value=${live(String(Math.round(video.position)))} aria-valuetext=${`${clock(video.position)} / ${clock(duration)}`}
          @input=${(event: Event) => seekTo(Number((event.target as HTMLInputElement).value))}>
        <span class="time">${clock(duration)}</span>
      </div>
      <div class="button-row">
        <div class="video-transport">
          ${control('back10', text.back10, seekKeys().backward, () => seekBy(-10), { testId: 'video-back', extra: ten })}
          ${control(video.paused ? 'play' : 'pause', toggleLabel, 'K', togglePlay, { testId: 'video-toggle' })}
          ${control('ahead10', text.ahead10, seekKeys().forward, () => seekBy(10), { testId: 'video-ahead', extra: ten })}
        </div>
        <div class="video-volume">
          ${control(video.muted ? 'muted' : 'volume', video.muted ? text.unmute : text.mute, 'M', toggleMute, { testId: 'video-mute' })}
          <input type="range" class="volume-slider" min="0" max="1" step="0.05" aria-label=${text.volume} .value=${live(String(video.muted ? 0 : video.volume))}
            @input=${(event: Event) => setVolume(Number((event.target as HTMLInputElement).value))}>
        </div>
        <p class="video-heading">${headline}</p>
        <div class="video-settings">
          ${video.subtitleTracks.some((track) => !track.forced)
            ? control('subtitles', text.subtitlesMenu, 'C', () => toggleMenu('subtitles'), {
              testId: 'video-subtitles', menu: { kind: 'subtitles', open: video.menu === 'subtitles' }, extra: subtitlesOn(video) ? html`<span class="on-mark" aria-hidden="true"></span>` : undefined,
            })
            : nothing}
          ${video.audioTracks.length > 1 ? control('audio', text.audioLanguage, '', () => toggleMenu('audio'), { testId: 'video-audio', menu: { kind: 'audio', open: video.menu === 'audio' } }) : nothing}
          ${video.levels.length > 1 ? control('quality', text.quality, '', () => toggleMenu('quality'), { testId: 'video-quality', menu: { kind: 'quality', open: video.menu === 'quality' } }) : nothing}
          <button type="button" class="vc help-button" data-testid="video-help" aria-label=${text.keyboardShortcuts} title=${`${text.keyboardShortcuts} (?)`} aria-expanded=${String(video.help)} @click=${toggleHelp}>?</button>
          ${control(video.fullscreen ? 'exitFullscreen' : 'fullscreen', video.fullscreen ? text.exitFullscreen : text.fullscreen, 'F', toggleFullscreen, { testId: 'video-fullscreen' })}
        </div>
      </div>
    </div>`;
}

function helpDialog() {
  const text = t();
  const { forward, backward } = seekKeys();
  return html`
    <div class="video-help" role="dialog" aria-modal="false" aria-labelledby="video-help-heading" data-testid="video-help-dialog">
      <div class="video-help-head">
        <h3 id="video-help-heading">${text.keyboardShortcuts}</h3>
        <button type="button" class="vc" aria-label=${text.close} @click=${toggleHelp}>×</button>
      </div>
      <dl>${text.videoShortcuts(forward, backward).map(([keys, what]) => html`<div><dt>${keys.map((key, i) => html`${i > 0 ? ' ' : ''}<kbd>${key}</kbd>`)}</dt><dd>${what}</dd></div>`)}</dl>
    </div>`;
}

/** At the end of an episode: the next one, starting after a countdown the viewer can cancel. */
function nextEpisodeCard(video: VideoState, next: Episode) {
  const text = t();
  const still = artworkOf(next.artwork, 'wide');
  const left = video.countdown ?? 0;
  return html`
    <div class="next-episode" role="group" aria-labelledby="next-heading" data-testid="next-episode">
      ${still ? html`<img src=${still.url} alt="" class="still" width=${still.width} height=${still.height}>` : nothing}
      <div>
        <p class="eyebrow" id="next-heading">${text.nextEpisode}</p>
        <p class="next-title"><span class="episode-code">${text.episodeCode(number(next.seasonNumber), number(next.episodeNumber))}</span> <bdi>${next.title.value}</bdi></p>
        ${video.countdown !== null
          ? html`<p class="meta" data-testid="next-countdown">${text.nextIn(left, number(left))}</p>
            <progress class="countdown" max=${NEXT_EPISODE_SECONDS} .value=${NEXT_EPISODE_SECONDS - left} aria-hidden="true"></progress>`
          : nothing}
        <div class="actions">
          <button type="button" class="primary" data-testid="next-play" @click=${playNextEpisode}>${icon('play')}${` ${text.playNow}`}</button>
          ${video.countdown !== null ? html`<button type="button" data-testid="next-cancel" @click=${cancelCountdown}>${text.cancel}</button>` : nothing}
        </div>
      </div>
    </div>`;
}

/** What covers the picture: the stream loading or being renewed, a failure, the end. */
function overlay(video: VideoState, next: Episode | null, backLink: { href: string; label: string }) {
  const text = t();
  if (video.phase === 'failed') {
    return html`<div class="video-message" role="alert" data-testid="video-error"><p>${video.error}</p><a href=${backLink.href} class="button">${backLink.label}</a></div>`;
  }
  if (video.phase === 'renewing') return html`<div class="video-message" role="status" data-testid="video-renewing"><span class="spinner"></span><p>${text.renewing}</p></div>`;
  if (video.ended && next) return nextEpisodeCard(video, next);
  if (video.ended) {
    return html`<div class="video-message" data-testid="video-ended">
      <div class="actions"><button type="button" class="primary" @click=${startOver}>${text.watchAgain}</button><a href=${backLink.href} class="button">${backLink.label}</a></div></div>`;
  }
  if (video.phase === 'loading' || video.waiting) return html`<div class="video-message quiet" role="status"><span class="spinner"></span><span class="visually-hidden">${text.loadingVideo}</span></div>`;
  return nothing;
}

/** A click on the picture plays or pauses (with a mouse); a tap shows the controls (on a touch screen), a second tap hides them. */
function onPictureClick(event: PointerEvent, video: VideoState) {
  // A click beside an open menu closes it, and only that.
  if (video.menu || video.help) closeMenus();
  else if (event.pointerType === 'mouse' || event.pointerType === '') togglePlay();
  else if (video.controls && !video.paused) hideControls();
  else showControls();
}

/**
 * The player: `heading` names what plays (`headline` is the same in parts,
 * on the controls' bar), `poster` shows until it starts, `backLink` leads to
 * its title's page.
 */
export function videoStage(video: VideoState | null, options: {
  heading: string; headline: TemplateResult | string; poster?: string | undefined; next: Episode | null; backLink: { href: string; label: string };
}) {
  const text = t();
  const shown = !video || video.controls || video.paused || video.menu !== null;
  return html`
    <div class="stage" data-testid="stage" data-controls=${String(shown)} data-ended=${String(video?.ended === true)} @pointermove=${(event: PointerEvent) => event.pointerType === 'mouse' && showControls()}>
      <video data-testid="video" playsinline preload="auto" poster=${options.poster ?? nothing} aria-label=${options.heading}
        @click=${(event: PointerEvent) => video && onPictureClick(event, video)} @dblclick=${toggleFullscreen}></video>
      <div class="cue-layer" aria-hidden=${video?.cue ? 'false' : 'true'}>
        ${video?.cue ? html`<p class="cue" data-testid="cue" lang=${video.cueLang || nothing} dir="auto">${video.cue}</p>` : nothing}
      </div>
      ${video ? overlay(video, options.next, options.backLink) : nothing}
      ${video && video.resumedAt > 0 && !video.ended && video.phase === 'ready' && !video.menu && !video.help
        ? html`<div class="resume-hint" data-testid="resume-hint"><span>${text.resumedAt(clock(video.resumedAt))}</span>
            <button type="button" data-testid="start-over" @click=${startOver}>${text.startOver}</button></div>`
        : nothing}
      ${video?.help ? helpDialog() : nothing}
      ${video && video.phase !== 'failed' ? controlsBar(video, options.headline) : nothing}
      ${video ? openMenu(video) : nothing}
    </div>`;
}
