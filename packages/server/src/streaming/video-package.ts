/**
 * A title's packaged video (contract section 15), as `maqam media add-video`
 * writes it and AcquireVideoStream serves it: the ladder, what the
 * video_packages row records of a package, the files a package holds, and
 * the master playlist Maqam writes from the record (never ffmpeg's), with
 * only the variants a stream may play.
 *
 * A package is a directory of its own under MAQAM_MEDIA_DIR
 * (`video/<hash of kind and id>/<package id>/`), written aside, moved into
 * place whole, and recorded after: a node reads a package's files only
 * through the row that names its directory, so it never serves half of one.
 *
 *   v<height>/index.m3u8, v<height>/seg00000.ts ...   video renditions (H.264, no audio), AES-128
 *   v<height>/iframes.m3u8                            its I-frame playlist (byte ranges of the same segments)
 *   a-<lang>/index.m3u8, a-<lang>/seg00000.ts ...     one audio rendition a language (AAC), AES-128
 *   s-<lang>/index.m3u8, s-<lang>/seg00000.vtt ...    WebVTT subtitles on the same segment grid (not encrypted)
 *
 * Media playlists name their segments by file name and their key as
 * `#EXT-X-KEY:METHOD=AES-128,URI="key",IV=0x...`: serving signs both.
 */

export const VIDEO_QUALITIES = ['VIDEO_QUALITY_SD', 'VIDEO_QUALITY_HD', 'VIDEO_QUALITY_FULL_HD', 'VIDEO_QUALITY_UHD'] as const;
export type VideoQuality = (typeof VIDEO_QUALITIES)[number];

/** A step of the ladder: a rendition is made at each step no higher than the source. */
export interface LadderStep {
  readonly quality: VideoQuality;
  readonly width: number;
  readonly height: number;
  /** The H.264 target bit rate (kbps); the recorded BANDWIDTH is measured, not this. */
  readonly videoKbps: number;
  /** The H.264 profile and level, as CODECS names them (RFC 6381). */
  readonly codecs: string;
}

export const LADDER: readonly LadderStep[] = [
  { quality: 'VIDEO_QUALITY_SD', width: 854, height: 480, videoKbps: 1_400, codecs: 'avc1.64001e' },
  { quality: 'VIDEO_QUALITY_HD', width: 1280, height: 720, videoKbps: 2_800, codecs: 'avc1.64001f' },
  { quality: 'VIDEO_QUALITY_FULL_HD', width: 1920, height: 1080, videoKbps: 5_000, codecs: 'avc1.640028' },
  { quality: 'VIDEO_QUALITY_UHD', width: 3840, height: 2160, videoKbps: 14_000, codecs: 'avc1.640033' },
];

export const videoQualityRank = (quality: string) => VIDEO_QUALITIES.indexOf(quality as VideoQuality);

/** A video rendition of a package (the `renditions` JSON column holds a list of these, lowest first). */
export interface VideoRendition {
  readonly quality: VideoQuality;
  readonly width: number;
  readonly height: number;
  /** Peak and average bits per second of its segments, measured (with the largest audio rendition's). */
  readonly bandwidth: number;
  readonly averageBandwidth: number;
  /** The video codec as ffprobe reports it, in RFC 6381 form (avc1.64001f). */
  readonly codecs: string;
  readonly frameRate: number;
  /** Relative to the package: `v720/index.m3u8`, `v720/iframes.m3u8`. */
  readonly playlist: string;
  readonly iframePlaylist: string;
  /** BANDWIDTH of its I-frame playlist (bits per second). */
  readonly iframeBandwidth: number;
}

/** An audio rendition (the `audio` column): one a language, one group shared by every variant. */
export interface AudioRendition {
  /** BCP 47. */
  readonly language: string;
  /** The language's own name: "العربية", "English". */
  readonly name: string;
  /** Only the title's original language's. */
  readonly isDefault: boolean;
  /** RFC 6381: mp4a.40.2. */
  readonly codecs: string;
  readonly channels: number;
  readonly playlist: string;
}

/** A subtitle rendition (the `subtitles` column). */
export interface SubtitleRendition {
  readonly language: string;
  readonly name: string;
  readonly forced: boolean;
  readonly playlist: string;
}

/** A package as its row records it. */
export interface VideoPackage {
  readonly directory: string;
  readonly renditions: readonly VideoRendition[];
  readonly audio: readonly AudioRendition[];
  readonly subtitles: readonly SubtitleRendition[];
  readonly keyHex: string;
  readonly ivHex: string;
  readonly durationMs: number;
}

/** Files a package's playlists may name: segments, media and I-frame playlists, under their rendition's folder. */
export const VIDEO_PACKAGE_FILE = /^(?:v\d{3,4}|a-[a-z]{2,3}(?:-[a-z0-9]{1,8})*|s-[a-z]{2,3}(?:-[a-z0-9]{1,8})*)\/(?:index\.m3u8|iframes\.m3u8|seg\d{5}\.(?:ts|vtt))$/;

const attribute = (value: string) => `"${value.replace(/["\r\n]/g, '')}"`;

/**
 * The master playlist of a stream (RFC 8216 §4.3.4): the variants up to the
 * stream's quality, each with its measured BANDWIDTH and AVERAGE-BANDWIDTH,
 * CODECS (video and audio), RESOLUTION, FRAME-RATE and CLOSED-CAPTIONS=NONE;
 * one audio group every variant shares, DEFAULT=YES only on the original
 * language's audio; WebVTT subtitles, FORCED where packaged so; an I-frame
 * playlist a variant. `uri` turns a package-relative path into the URL the
 * client fetches (signed).
 */
export function masterPlaylist(pkg: VideoPackage, maxQuality: VideoQuality, uri: (path: string) => string): string {
  const lines = ['#EXTM3U', '#EXT-X-VERSION:6', '#EXT-X-INDEPENDENT-SEGMENTS'];
  const audioCodecs = [...new Set(pkg.audio.map((track) => track.codecs))];
  for (const track of pkg.audio) {
    lines.push(
      `#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="audio",LANGUAGE=${attribute(track.language)},NAME=${attribute(track.name)},` +
        `DEFAULT=${track.isDefault ? 'YES' : 'NO'},AUTOSELECT=YES,CHANNELS="${track.channels}",URI=${attribute(uri(track.playlist))}`,
    );
  }
  for (const track of pkg.subtitles) {
    lines.push(
      `#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",LANGUAGE=${attribute(track.language)},NAME=${attribute(track.name)},` +
        `DEFAULT=NO,AUTOSELECT=YES,FORCED=${track.forced ? 'YES' : 'NO'},URI=${attribute(uri(track.playlist))}`,
    );
  }
  const playable = pkg.renditions.filter((rendition) => videoQualityRank(rendition.quality) <= videoQualityRank(maxQuality));
  for (const rendition of playable) {
    const groups = `${pkg.audio.length > 0 ? ',AUDIO="audio"' : ''}${pkg.subtitles.length > 0 ? ',SUBTITLES="subs"' : ''}`;
    lines.push(
      `#EXT-X-STREAM-INF:BANDWIDTH=${rendition.bandwidth},AVERAGE-BANDWIDTH=${rendition.averageBandwidth},` +
        `CODECS=${attribute([rendition.codecs, ...audioCodecs].join(','))},RESOLUTION=${rendition.width}x${rendition.height},` +
        `FRAME-RATE=${rendition.frameRate.toFixed(3)},CLOSED-CAPTIONS=NONE${groups}`,
      uri(rendition.playlist),
    );
  }
  for (const rendition of playable) {
    lines.push(
      `#EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=${rendition.iframeBandwidth},CODECS=${attribute(rendition.codecs)},` +
        `RESOLUTION=${rendition.width}x${rendition.height},URI=${attribute(uri(rendition.iframePlaylist))}`,
    );
  }
  return `${lines.join('\n')}\n`;
}
