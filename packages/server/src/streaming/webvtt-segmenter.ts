import type { SubtitleCue } from './subtitle-text.ts';

/**
 * Segmented WebVTT on the video's segment grid (RFC 8216 §3.5): each
 * segment a file of its own, every one with the X-TIMESTAMP-MAP that ties
 * the cues' clock to the video's, and each cue in every segment it
 * overlaps. Players (hls.js, AVPlayer) load only the segments around the
 * playhead: a cue written only in the segment where it starts would vanish
 * after a seek past that segment's end while it is still on screen, and a
 * missing timestamp map shows every cue early or late by the MPEG-TS
 * muxer's start offset (1.4 s with ffmpeg), the peers' most reported
 * subtitle bug. Repeated cues keep their own times, so a player shows each
 * once (hls.js drops a cue it already has).
 */

/** 90 kHz MPEG-TS time of the video's first frame: what a cue at 00:00:00.000 is shown with. */
export type MpegTsTime = number;

const pad = (value: number, width: number) => String(value).padStart(width, '0');

/** A WebVTT timestamp, always with hours: 01:02:03.456. */
export function webVttTimestamp(ms: number): string {
  const total = Math.max(0, Math.round(ms));
  return `${pad(Math.floor(total / 3_600_000), 2)}:${pad(Math.floor(total / 60_000) % 60, 2)}:${pad(Math.floor(total / 1000) % 60, 2)}.${pad(total % 1000, 3)}`;
}

/**
 * The WebVTT files of the segments, one for each duration in
 * `segmentDurations` (seconds, the video's EXTINF values, so the grids are
 * the same). A segment covers [start, start + duration); a cue that starts
 * after the title's end is in none.
 */
export function segmentWebVtt(cues: readonly SubtitleCue[], segmentDurations: readonly number[], firstVideoPts: MpegTsTime): string[] {
  const header = `WEBVTT\nX-TIMESTAMP-MAP=MPEGTS:${firstVideoPts},LOCAL:00:00:00.000\n`;
  const files: string[] = [];
  let startMs = 0;
  for (const duration of segmentDurations) {
    const endMs = startMs + duration * 1000;
    const inside = cues.filter((cue) => cue.startMs < endMs && cue.endMs > startMs);
    const blocks = inside.map((cue) => `${webVttTimestamp(cue.startMs)} --> ${webVttTimestamp(cue.endMs)}${cue.settings ? ` ${cue.settings}` : ''}\n${cue.text}\n`);
    files.push([header, ...blocks].join('\n'));
    startMs = endMs;
  }
  return files;
}

/** EXTINF's duration: microseconds are enough for 90 kHz and say the same as ffmpeg's playlists. */
export const extinf = (seconds: number) => `#EXTINF:${seconds.toFixed(6)},`;

/**
 * The media playlist of a subtitle rendition: the video's target duration
 * and segment durations, its segment files (seg00000.vtt ...), complete.
 */
export function subtitlePlaylist(segmentDurations: readonly number[], targetDuration: number): string {
  const lines = ['#EXTM3U', '#EXT-X-VERSION:3', `#EXT-X-TARGETDURATION:${targetDuration}`, '#EXT-X-MEDIA-SEQUENCE:0', '#EXT-X-PLAYLIST-TYPE:VOD'];
  segmentDurations.forEach((duration, index) => lines.push(extinf(duration), `seg${pad(index, 5)}.vtt`));
  lines.push('#EXT-X-ENDLIST');
  return `${lines.join('\n')}\n`;
}
