import { spawn } from 'node:child_process';
import { createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rename, rm, stat, statfs, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Db } from '../storage/database.ts';
import { MediaError, runMediaTool } from './media.ts';
import { readSubtitleCues, SubtitleError, type SubtitleCue } from './subtitle-text.ts';
import { extinf, segmentWebVtt, subtitlePlaylist } from './webvtt-segmenter.ts';
import { LADDER, type AudioRendition, type LadderStep, type SubtitleRendition, type VideoPackage, type VideoRendition } from './video-package.ts';

/**
 * `maqam media add-video` (contract section 15): any file ffmpeg reads,
 * packaged as players need it, in one ffmpeg run. The ladder's steps up to
 * the source's size (H.264, video only, each step an encode of one decoded
 * picture through a split filter, keyframes forced at the same instants in
 * every rendition so every 6 s MPEG-TS segment starts with an IDR frame at
 * the same time everywhere), one AAC rendition a language on the same grid,
 * all AES-128 with one key and explicit IV per title; then Maqam's own part:
 * the I-frame playlists, WebVTT segments from SRT or WebVTT files, the
 * measured bandwidths and the codecs, and checks of all of it. The package
 * is written aside, moved into place whole and recorded after, so no node
 * ever reads half of one (video-package.ts).
 */

export type VideoTitleKind = 'movie' | 'episode';

export interface VideoTitle {
  readonly kind: VideoTitleKind;
  readonly id: string;
}

/** How far the encode is: media time written, of the source's duration, and ffmpeg's speed (times real time). */
export interface VideoPackagingProgress {
  readonly encodedMs: number;
  readonly durationMs: number;
  readonly speed: number | undefined;
}

export interface VideoPackagingOptions {
  /**
   * More audio languages, each from a file (its default or first audio stream). One naming the source file itself
   * says the language of the source's audio; one in the source audio's language replaces it.
   */
  readonly audio?: readonly { readonly language: string; readonly file: string }[];
  /** SRT or WebVTT files, UTF-8 or Windows-1256. */
  readonly subtitles?: readonly { readonly language: string; readonly file: string; readonly forced?: boolean }[];
  /** The language of the source's own audio: the title's originalLanguage unless said. */
  readonly sourceLanguage?: string;
  readonly onProgress?: (progress: VideoPackagingProgress) => void;
}

/** What was packaged for a title: its record, as the row holds it. */
export interface PackagedVideo extends VideoPackage {
  readonly title: VideoTitle;
}

const SEGMENT_SECONDS = 6;
const AUDIO_KBPS = 128;
/** The encoder's speed and quality trade: with x264's veryfast a 1080p ladder (three encodes) runs at about real time on two cores. */
const X264_PRESET = 'veryfast';

/** A title's folder under the media directory: a hash, so any id is a safe file name, and kinds never collide. */
export function videoDirectoryOf(title: VideoTitle): string {
  return `video/${createHash('sha256').update(`${title.kind}:${title.id}`).digest('hex').slice(0, 32)}`;
}

/** The original language of a movie or an episode (withdrawn or not: media may be added to any); undefined when there is none of that id. */
async function originalLanguageOf(db: Db, title: VideoTitle): Promise<string | undefined> {
  const row = await db.selectFrom(title.kind === 'movie' ? 'movies' : 'episodes').select('original_language').where('id', '=', title.id).executeTakeFirst();
  return row?.original_language;
}

/** The titles of this id: a movie, an episode, or (ids of two kinds may be equal) both. */
export async function findVideoTitles(db: Db, id: string): Promise<VideoTitle[]> {
  const kinds: VideoTitleKind[] = ['movie', 'episode'];
  const found = await Promise.all(kinds.map(async (kind) => ((await originalLanguageOf(db, { kind, id })) === undefined ? [] : [{ kind, id }])));
  return found.flat();
}

// ---------------------------------------------------------------- languages

/** A BCP 47 tag in its canonical form ("pt-BR"), and the folder its renditions live in ("pt-br", video-package.ts VIDEO_PACKAGE_FILE). */
export function languageOf(tag: string): { tag: string; folder: string } {
  let canonical: string | undefined;
  try {
    canonical = Intl.getCanonicalLocales(tag.trim())[0];
  } catch {
    canonical = undefined;
  }
  const folder = canonical?.toLowerCase();
  if (canonical === undefined || folder === undefined || !/^[a-z]{2,3}(?:-[a-z0-9]{1,8})*$/.test(folder)) {
    throw new MediaError(`"${tag}" is not a language tag (BCP 47: ar, en, fr, pt-BR)`);
  }
  return { tag: canonical, folder };
}

/** A language's name in that language ("العربية", "English", "Français"), as a menu of languages shows each. */
export function languageName(tag: string): string {
  const name = new Intl.DisplayNames([tag], { type: 'language', fallback: 'code' }).of(tag) ?? tag;
  return name.charAt(0).toLocaleUpperCase(tag) + name.slice(1);
}

/** "Forced" in a few of the catalog's languages; names in a group must differ (RFC 8216 §4.3.4.1), and "English (Forced)" is Apple's. */
const FORCED: Record<string, string> = { ar: 'إجبارية', en: 'Forced', fr: 'forcés', es: 'forzados', de: 'erzwungen', tr: 'zorunlu', fa: 'اجباری', ur: 'لازمی' };
const forcedName = (tag: string) => `${languageName(tag)} (${FORCED[tag.split('-')[0]!] ?? 'Forced'})`;

const sameLanguage = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

// ---------------------------------------------------------------- the source

interface SourceVideo {
  /** The picture's displayed size (sample aspect ratio applied). */
  readonly width: number;
  readonly height: number;
  readonly frameRate: number;
  readonly durationMs: number;
  readonly interlaced: boolean;
  /** Index (among the file's audio streams) of the audio to package, if it has any. */
  readonly audioStream: number | undefined;
}

interface ProbedStream {
  codec_type?: string;
  width?: number;
  height?: number;
  sample_aspect_ratio?: string;
  avg_frame_rate?: string;
  r_frame_rate?: string;
  field_order?: string;
  duration?: string;
  disposition?: { default?: number; attached_pic?: number };
  side_data_list?: { rotation?: number }[];
  tags?: { rotate?: string };
}

function ratio(text: string | undefined): number | undefined {
  const [numerator, denominator = '1'] = (text ?? '').split(/[/:]/);
  const value = Number(numerator) / Number(denominator);
  return Number.isFinite(value) && value > 0 ? value : undefined;
}

async function probeStreams(file: string): Promise<{ streams: ProbedStream[]; durationMs: number | undefined }> {
  const output = await runMediaTool('ffprobe', ['-v', 'error', '-show_entries', 'stream=codec_type,width,height,sample_aspect_ratio,avg_frame_rate,r_frame_rate,field_order,duration:stream_disposition=default,attached_pic:stream_side_data=rotation:stream_tags=rotate:format=duration', '-of', 'json', file]);
  const parsed = JSON.parse(output) as { streams?: ProbedStream[]; format?: { duration?: string } };
  const duration = Number(parsed.format?.duration);
  return { streams: parsed.streams ?? [], durationMs: Number.isFinite(duration) && duration > 0 ? Math.round(duration * 1000) : undefined };
}

async function probeSource(file: string): Promise<SourceVideo> {
  const { streams, durationMs } = await probeStreams(file);
  const video = streams.find((stream) => stream.codec_type === 'video' && stream.disposition?.attached_pic !== 1 && (stream.width ?? 0) > 0);
  if (video === undefined) throw new MediaError('ffprobe found no video stream in the file');
  const audio = streams.filter((stream) => stream.codec_type === 'audio');
  const chosenAudio = audio.findIndex((stream) => stream.disposition?.default === 1);
  const streamDuration = Number(video.duration);
  const duration = Number.isFinite(streamDuration) && streamDuration > 0 ? Math.round(streamDuration * 1000) : durationMs;
  if (duration === undefined) throw new MediaError('ffprobe could not tell how long the video is');
  const frameRate = ratio(video.avg_frame_rate) ?? ratio(video.r_frame_rate);
  if (frameRate === undefined) throw new MediaError('ffprobe could not tell the video\'s frame rate');
  const width = Math.round(video.width! * (ratio(video.sample_aspect_ratio) ?? 1));
  // A phone's portrait video is stored sideways with a rotation, which ffmpeg applies as it decodes.
  const rotation = Math.abs(Number(video.side_data_list?.find((data) => data.rotation !== undefined)?.rotation ?? video.tags?.rotate ?? 0)) % 180;
  return {
    width: rotation === 90 ? video.height! : width,
    height: rotation === 90 ? width : video.height!,
    frameRate,
    durationMs: duration,
    interlaced: /^(?:tt|bb|tb|bt)$/.test(video.field_order ?? ''),
    audioStream: audio.length === 0 ? undefined : Math.max(0, chosenAudio),
  };
}

// ---------------------------------------------------------------- the plan

/** A video rendition to encode: its ladder step, its size, its folder and its target rate. */
interface PlannedVideo {
  readonly step: LadderStep;
  readonly width: number;
  readonly height: number;
  readonly kbps: number;
  readonly folder: string;
}

const even = (value: number) => Math.max(2, Math.round(value / 2) * 2);

/**
 * The renditions of a source: each step of the ladder whose picture, fitted
 * into the step's box with the source's shape, is no larger than the
 * source (so a 1080p source gets 480p, 720p and 1080p, and a 1920x800 film
 * its 1080p step at 1920x800); a source smaller than the lowest step gets
 * that step alone, at its own size (even dimensions, as H.264 4:2:0 needs).
 */
export function planLadder(source: { width: number; height: number }): PlannedVideo[] {
  const planned: PlannedVideo[] = [];
  for (const step of LADDER) {
    const scale = Math.min(step.width / source.width, step.height / source.height);
    // A thousandth of slack: 1279.9 wide is the 1280 the step means.
    if (scale > 1.001) continue;
    planned.push({ step, width: even(source.width * scale), height: even(source.height * scale), kbps: step.videoKbps, folder: `v${step.height}` });
  }
  if (planned.length > 0) return planned;
  const step = LADDER[0]!;
  const width = even(source.width);
  const height = even(source.height);
  // Fewer pixels want fewer bits; a floor keeps a tiny picture watchable.
  const kbps = Math.max(300, Math.round((step.videoKbps * width * height) / (step.width * step.height)));
  return [{ step, width, height, kbps, folder: `v${step.height}` }];
}

interface PlannedAudio {
  readonly language: string;
  readonly folder: string;
  readonly name: string;
  readonly isDefault: boolean;
  /** The ffmpeg input (0: the source) and its audio stream. */
  readonly input: number;
  readonly stream: number;
}

interface PlannedSubtitles {
  readonly language: string;
  readonly folder: string;
  readonly name: string;
  readonly forced: boolean;
  readonly cues: readonly SubtitleCue[];
}

// ---------------------------------------------------------------- ffmpeg

const hlsOutput = (keyInfoFile: string, directory: string) => [
  // Timestamps as the encoders give them, in the HLS muxer and the MPEG-TS muxer inside it: left to their default, each
  // output is shifted to start at 0 on its own, the video by its B-frame delay (80 ms at 25 fps) and the audio by the AAC
  // encoder's priming, so renditions muxed apart would play out of sync. Unshifted, every rendition's first picture and
  // first sound share one PTS, the MPEG-TS muxer's constant 1.4 s.
  '-avoid_negative_ts', 'disabled', '-hls_ts_options', 'avoid_negative_ts=disabled',
  '-f', 'hls', '-hls_time', String(SEGMENT_SECONDS), '-hls_playlist_type', 'vod', '-hls_segment_type', 'mpegts',
  '-hls_key_info_file', keyInfoFile, '-hls_segment_filename', join(directory, 'seg%05d.ts'), join(directory, 'index.m3u8'),
];

/**
 * The one ffmpeg run of a package: the source decoded once, deinterlaced if
 * it must be, split into a scaled picture a rendition; each an H.264 encode
 * whose keyframes are forced at every multiple of 6 s and only there (no
 * scene-cut keyframes, a GOP longer than a segment, forced keyframes as
 * IDR), so the HLS muxer cuts every rendition at the same frames and every
 * segment starts with an IDR; each audio language padded or cut to the
 * video's length, so its segments end where the video's do.
 */
export function packagingArguments(
  source: { file: string; frameRate: number; durationMs: number; interlaced: boolean },
  video: readonly PlannedVideo[],
  audio: readonly (PlannedAudio & { file: string })[],
  output: { directory: string; keyInfoFile: string },
): string[] {
  const inputs = [source.file, ...new Set(audio.filter((track) => track.input > 0).map((track) => track.file))];
  const picture = `[0:v:0]${source.interlaced ? 'yadif=deint=interlaced,' : ''}split=${video.length}${video.map((_, i) => `[s${i}]`).join('')}`;
  const scaled = video.map((rendition, i) => `[s${i}]scale=${rendition.width}:${rendition.height}:flags=bicubic,setsar=1,format=yuv420p[v${i}]`);
  const gop = 2 * Math.ceil(SEGMENT_SECONDS * source.frameRate);
  const args = ['-i', inputs[0]!, ...inputs.slice(1).flatMap((file) => ['-i', file]), '-filter_complex', [picture, ...scaled].join(';')];
  video.forEach((rendition, i) => {
    args.push(
      '-map', `[v${i}]`, '-c:v', 'libx264', '-preset', X264_PRESET, '-profile:v', 'high',
      '-b:v', `${rendition.kbps}k`, '-maxrate', `${Math.round(rendition.kbps * 1.5)}k`, '-bufsize', `${rendition.kbps * 2}k`,
      '-g', String(gop), '-keyint_min', String(gop), '-sc_threshold', '0', '-force_key_frames', `expr:gte(t,n_forced*${SEGMENT_SECONDS})`, '-forced-idr', '1',
      '-an', '-sn', '-dn', '-map_metadata', '-1', '-max_muxing_queue_size', '4096',
      ...hlsOutput(output.keyInfoFile, join(output.directory, rendition.folder)),
    );
  });
  for (const track of audio) {
    const input = track.input === 0 ? 0 : inputs.indexOf(track.file);
    args.push(
      '-map', `${input}:a:${track.stream}`, '-c:a', 'aac', '-b:a', `${AUDIO_KBPS}k`, '-ac', '2', '-ar', '48000',
      '-af', 'apad', '-t', (source.durationMs / 1000).toFixed(3),
      '-vn', '-sn', '-dn', '-map_metadata', '-1', '-max_muxing_queue_size', '4096',
      ...hlsOutput(output.keyInfoFile, join(output.directory, track.folder)),
    );
  }
  return args;
}

/** Runs ffmpeg, telling its progress (`-progress pipe:1`) as it goes; a failure is a MediaError with ffmpeg's last complaint. */
function runFfmpeg(args: string[], durationMs: number, onProgress: ((progress: VideoPackagingProgress) => void) | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-nostdin', '-nostats', '-y', '-progress', 'pipe:1', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    let pending = '';
    let speed: number | undefined;
    let encodedMs = 0;
    child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-8192)));
    child.stdout.on('data', (chunk: Buffer) => {
      const lines = (pending + chunk.toString()).split('\n');
      pending = lines.pop()!;
      for (const line of lines) {
        const [key, value = ''] = line.split('=', 2);
        if (key === 'speed') speed = Number.parseFloat(value) || undefined;
        // out_time_us closes no block, progress= does: report there, with the block's speed.
        if (key === 'out_time_us' && /^\d+$/.test(value)) encodedMs = Math.min(durationMs, Number(value) / 1000);
        if (key === 'progress') onProgress?.({ encodedMs: value === 'end' ? durationMs : encodedMs, durationMs, speed });
      }
    });
    child.on('error', (error: NodeJS.ErrnoException) =>
      reject(error.code === 'ENOENT' ? new MediaError('ffmpeg is not installed (Debian: apt-get install ffmpeg); it is needed to package media') : error));
    child.on('exit', (code) =>
      code === 0 ? resolve() : reject(new MediaError(`ffmpeg could not package the file: ${stderr.trim().split('\n').pop() || `exit ${code}`}`)));
  });
}

// ---------------------------------------------------------------- what ffmpeg wrote

interface MediaSegment {
  readonly file: string;
  readonly duration: number;
  readonly bytes: number;
}

/** A media playlist's segments, if it is complete (EXT-X-ENDLIST) and names its key as `URI="key"` with the title's IV. */
async function readMediaPlaylist(directory: string, ivHex: string, encrypted: boolean): Promise<MediaSegment[] | undefined> {
  const text = await readFile(join(directory, 'index.m3u8'), 'utf8').catch(() => '');
  if (!text.startsWith('#EXTM3U') || !/^#EXT-X-ENDLIST\s*$/m.test(text)) return undefined;
  const keys = text.match(/^#EXT-X-KEY:.*$/gm) ?? [];
  if (encrypted && (keys.length !== 1 || !keys[0]!.includes(`METHOD=AES-128,URI="key",IV=0x${ivHex}`))) return undefined;
  const segments: MediaSegment[] = [];
  let duration: number | undefined;
  for (const line of text.split('\n').map((l) => l.trim())) {
    if (line.startsWith('#EXTINF:')) duration = Number.parseFloat(line.slice('#EXTINF:'.length));
    else if (line !== '' && !line.startsWith('#')) {
      if (duration === undefined || !(duration > 0) || !/^seg\d{5}\.(?:ts|vtt)$/.test(line)) return undefined;
      const bytes = await stat(join(directory, line)).then((stats) => stats.size, () => 0);
      segments.push({ file: line, duration, bytes });
      duration = undefined;
    }
  }
  return segments.length > 0 && segments.every((segment) => segment.bytes > 0) ? segments : undefined;
}

/** Why a package is incomplete: a full disk (ffmpeg's HLS muxer exits 0 on one, having written empty files) or a broken run. */
async function incomplete(directory: string, what: string): Promise<MediaError> {
  const space = await statfs(directory).then(({ bavail, bsize }) => bavail * bsize, () => Infinity);
  return new MediaError(space < 16 * 1024 * 1024
    ? 'ffmpeg could not package the file: no space left on device (the media directory\'s disk is full)'
    : `ffmpeg could not package the file: it wrote an incomplete package (${what})`);
}

const TS_PACKET = 188;

/** What the first access unit of a segment's video is, read from its MPEG-TS packets. */
interface SegmentStart {
  /** 90 kHz presentation time of the segment's first frame. */
  readonly pts: number;
  /** Whether that frame is an IDR picture (NAL unit type 5). */
  readonly idr: boolean;
  /** The byte offset where the next frame's packets begin: [0, end) holds the tables and the whole first frame. */
  readonly end: number;
  /** profile_idc, the constraint flags and level_idc of its sequence parameter set (RFC 6381's avc1.PPCCLL). */
  readonly sps: readonly [number, number, number] | undefined;
}

/** Where a TS packet's payload starts, past its adaptation field; undefined when it carries none. */
function payloadStart(packet: Buffer): number | undefined {
  const control = (packet[3]! >> 4) & 3;
  if ((control & 1) === 0) return undefined;
  return control & 2 ? 5 + packet[4]! : 4;
}

/**
 * The first video frame of a (decrypted) MPEG-TS segment: its PTS, whether
 * it is an IDR, where it ends, and its SPS. Walks the packets: the PAT
 * names the PMT, the PMT the H.264 stream (type 0x1B); the first PES of
 * that stream is the frame, the next PES start is where it ends. ffprobe
 * tells a keyframe, not an IDR from an I-frame with a recovery point; the
 * NAL unit types do.
 */
export function segmentStart(ts: Buffer): SegmentStart | undefined {
  let pmtPid: number | undefined;
  let videoPid: number | undefined;
  let pts: number | undefined;
  const frame: Buffer[] = [];
  for (let offset = 0; offset + TS_PACKET <= ts.length; offset += TS_PACKET) {
    const packet = ts.subarray(offset, offset + TS_PACKET);
    if (packet[0] !== 0x47) return undefined;
    const unitStart = (packet[1]! & 0x40) !== 0;
    const pid = ((packet[1]! & 0x1f) << 8) | packet[2]!;
    const start = payloadStart(packet);
    if (start === undefined || start >= TS_PACKET) continue;
    const payload = packet.subarray(start);
    if (pid === 0 && unitStart) {
      const table = payload.subarray(1 + payload[0]!);
      const sectionEnd = Math.min(table.length, 3 + (((table[1]! & 0x0f) << 8) | table[2]!) - 4);
      for (let entry = 8; entry + 4 <= sectionEnd; entry += 4) {
        if (((table[entry]! << 8) | table[entry + 1]!) !== 0) pmtPid = ((table[entry + 2]! & 0x1f) << 8) | table[entry + 3]!;
      }
    } else if (pid === pmtPid && unitStart && videoPid === undefined) {
      const table = payload.subarray(1 + payload[0]!);
      const sectionEnd = Math.min(table.length, 3 + (((table[1]! & 0x0f) << 8) | table[2]!) - 4);
      for (let entry = 12 + (((table[10]! & 0x0f) << 8) | table[11]!); entry + 5 <= sectionEnd; entry += 5 + (((table[entry + 3]! & 0x0f) << 8) | table[entry + 4]!)) {
        if (table[entry] === 0x1b) {
          videoPid = ((table[entry + 1]! & 0x1f) << 8) | table[entry + 2]!;
          break;
        }
      }
    } else if (pid === videoPid) {
      if (unitStart) {
        if (pts !== undefined) return { pts, ...firstFrame(Buffer.concat(frame)), end: offset };
        // A PES header: start code, stream id, length, flags, header length, then PTS (33 bits in 5 bytes) when flagged.
        if (payload[0] !== 0 || payload[1] !== 0 || payload[2] !== 1 || (payload[7]! & 0x80) === 0) return undefined;
        pts = (payload[9]! & 0x0e) * 536870912 + payload[10]! * 4194304 + (payload[11]! >> 1) * 32768 + payload[12]! * 128 + (payload[13]! >> 1);
        frame.push(payload.subarray(9 + payload[8]!));
      } else if (pts !== undefined) {
        frame.push(payload);
      }
    }
  }
  return pts === undefined ? undefined : { pts, ...firstFrame(Buffer.concat(frame)), end: ts.length };
}

/** The NAL units of an H.264 access unit (Annex B): whether one is an IDR slice, and the SPS's profile, constraints and level. */
function firstFrame(unit: Buffer): { idr: boolean; sps: readonly [number, number, number] | undefined } {
  let idr = false;
  let sps: [number, number, number] | undefined;
  for (let i = 0; i + 3 < unit.length; i++) {
    if (unit[i] !== 0 || unit[i + 1] !== 0 || unit[i + 2] !== 1) continue;
    const type = unit[i + 3]! & 0x1f;
    if (type === 5) idr = true;
    if (type === 7 && sps === undefined && i + 6 < unit.length) sps = [unit[i + 4]!, unit[i + 5]!, unit[i + 6]!];
    i += 3;
  }
  return { idr, sps };
}

function decryptSegment(bytes: Buffer, key: Buffer, iv: Buffer): Buffer | undefined {
  try {
    const decipher = createDecipheriv('aes-128-cbc', key, iv);
    return Buffer.concat([decipher.update(bytes), decipher.final()]);
  } catch {
    return undefined;
  }
}

const hex2 = (value: number) => value.toString(16).padStart(2, '0');
const H264_PROFILES: Record<string, number> = { Baseline: 66, 'Constrained Baseline': 66, Main: 77, Extended: 88, High: 100, 'High 10': 110, 'High 4:2:2': 122, 'High 4:4:4 Predictive': 244 };

interface ProbedCodec {
  codec_name?: string;
  profile?: string;
  level?: number;
  width?: number;
  height?: number;
  channels?: number;
}

/** ffprobe's reading of a packaged segment, decrypted by ffmpeg's crypto protocol. */
async function probeSegment(file: string, keyHex: string, ivHex: string): Promise<ProbedCodec> {
  const output = await runMediaTool('ffprobe', ['-v', 'error', '-key', keyHex, '-iv', ivHex, '-show_entries', 'stream=codec_name,profile,level,width,height,channels', '-of', 'json', `crypto:file:${file}`]);
  return (JSON.parse(output) as { streams?: ProbedCodec[] }).streams?.[0] ?? {};
}

/**
 * A video rendition's CODECS (RFC 6381 avc1.PPCCLL): the profile and level
 * ffprobe reports, with the constraint flags of the stream's own SPS (which
 * ffprobe does not print), checked against that SPS's profile and level.
 */
function avcCodecs(probed: ProbedCodec, sps: readonly [number, number, number]): string | undefined {
  const profile = H264_PROFILES[probed.profile ?? ''];
  const level = Number(probed.level);
  if (probed.codec_name !== 'h264' || profile !== sps[0] || level !== sps[2]) return undefined;
  return `avc1.${hex2(profile)}${hex2(sps[1])}${hex2(level)}`;
}

/** An audio rendition's CODECS: mp4a.40 and the AAC object type ffprobe reports (LC 2, HE 5, HEv2 29). */
function aacCodecs(probed: ProbedCodec): string | undefined {
  if (probed.codec_name !== 'aac') return undefined;
  return `mp4a.40.${probed.profile === 'HE-AACv2' ? 29 : probed.profile === 'HE-AAC' ? 5 : 2}`;
}

/** 6.000000 as ffmpeg wrote it; the target duration is every EXTINF rounded, at most (RFC 8216 §4.3.3.1). */
const targetDurationOf = (segments: readonly { duration: number }[]) => Math.max(1, ...segments.map((segment) => Math.round(segment.duration)));

/** A media playlist as Maqam writes it: the title's key as `URI="key"` with its IV, the segments by file name, complete. */
function mediaPlaylist(segments: readonly MediaSegment[], ivHex: string, video: boolean): string {
  const lines = ['#EXTM3U', '#EXT-X-VERSION:3', `#EXT-X-TARGETDURATION:${targetDurationOf(segments)}`, '#EXT-X-MEDIA-SEQUENCE:0', '#EXT-X-PLAYLIST-TYPE:VOD'];
  if (video) lines.push('#EXT-X-INDEPENDENT-SEGMENTS');
  lines.push(`#EXT-X-KEY:METHOD=AES-128,URI="key",IV=0x${ivHex}`);
  for (const segment of segments) lines.push(extinf(segment.duration), segment.file);
  lines.push('#EXT-X-ENDLIST');
  return `${lines.join('\n')}\n`;
}

/**
 * The I-frame playlist of a rendition (RFC 8216 §4.3.3.6): each segment's
 * first frame, its IDR, as the byte range from the segment's start (the
 * PAT and PMT, then the frame) to where the next frame begins. The range
 * starts at 0, where CBC starts with the playlist's IV, so a player decrypts
 * it without the bytes before it (rfc8216bis §6.3.6 widens its end to the
 * next 16 bytes).
 */
function iframePlaylist(segments: readonly (MediaSegment & { start: SegmentStart })[], ivHex: string): string {
  const lines = ['#EXTM3U', '#EXT-X-VERSION:4', `#EXT-X-TARGETDURATION:${targetDurationOf(segments)}`, '#EXT-X-MEDIA-SEQUENCE:0', '#EXT-X-PLAYLIST-TYPE:VOD', '#EXT-X-I-FRAMES-ONLY'];
  lines.push(`#EXT-X-KEY:METHOD=AES-128,URI="key",IV=0x${ivHex}`);
  for (const segment of segments) lines.push(extinf(segment.duration), `#EXT-X-BYTERANGE:${segment.start.end}@0`, segment.file);
  lines.push('#EXT-X-ENDLIST');
  return `${lines.join('\n')}\n`;
}

const peakAndAverage = (segments: readonly MediaSegment[]) => ({
  peak: Math.max(...segments.map((segment) => (segment.bytes * 8) / segment.duration)),
  average: (segments.reduce((sum, segment) => sum + segment.bytes, 0) * 8) / segments.reduce((sum, segment) => sum + segment.duration, 0),
});

// ---------------------------------------------------------------- packaging

/**
 * Packages `file` for a movie or an episode (see the module's comment) and
 * records it, replacing the title's earlier package, whose files are removed
 * once the record names the new one. Throws MediaError (a file ffmpeg cannot
 * read, a title that does not exist, a language that is not one, subtitles
 * that are not) and leaves nothing behind when it fails.
 */
export async function addVideo(db: Db, mediaRoot: string, title: VideoTitle, file: string, options: VideoPackagingOptions = {}): Promise<PackagedVideo> {
  const originalLanguage = await originalLanguageOf(db, title);
  if (originalLanguage === undefined) throw new MediaError(`no ${title.kind} with id "${title.id}"`);
  const plan = await planPackage(file, originalLanguage, options);
  const titleDirectory = videoDirectoryOf(title);
  const packageId = `${Date.now().toString(36)}-${randomBytes(6).toString('hex')}`;
  await mkdir(join(mediaRoot, titleDirectory), { recursive: true });
  const temp = join(mediaRoot, titleDirectory, `.${packageId}.partial`);
  const final = join(mediaRoot, titleDirectory, packageId);
  // The key never touches the media directory: a shared volume is read by every node, and the key is served only signed.
  const keyDirectory = await mkdtemp(join(tmpdir(), 'maqam-key-'));
  const key = randomBytes(16);
  const iv = randomBytes(16);
  let moved = false;
  try {
    await mkdir(temp);
    for (const folder of [...plan.video.map((rendition) => rendition.folder), ...plan.audio.map((track) => track.folder)]) await mkdir(join(temp, folder));
    await writeFile(join(keyDirectory, 'key'), key, { mode: 0o600 });
    await writeFile(join(keyDirectory, 'keyinfo'), `key\n${join(keyDirectory, 'key')}\n${iv.toString('hex')}\n`, { mode: 0o600 });
    const args = packagingArguments({ file, ...plan.source }, plan.video, plan.audio, { directory: temp, keyInfoFile: join(keyDirectory, 'keyinfo') });
    await runFfmpeg(args, plan.source.durationMs, options.onProgress);
    const written = await finishPackage(temp, plan, key, iv);
    await rename(temp, final);
    moved = true;
    const recorded: VideoPackage = { directory: `${titleDirectory}/${packageId}`, ...written, keyHex: key.toString('hex'), ivHex: iv.toString('hex') };
    const replaced = await recordPackage(db, title, recorded);
    moved = false;
    // Recorded: from here the new package is the title's, whatever becomes of the old one's files.
    if (replaced !== undefined && replaced !== recorded.directory) await rm(join(mediaRoot, replaced), { recursive: true, force: true }).catch(() => {});
    return { title, ...recorded };
  } catch (error) {
    // A commit whose answer was lost may still have recorded the package: its files stay where the row may name them.
    const recorded = moved && (await recordedDirectory(db, title).catch(() => undefined)) === `${titleDirectory}/${packageId}`;
    if (moved && !recorded) await rm(final, { recursive: true, force: true });
    throw error;
  } finally {
    await rm(temp, { recursive: true, force: true });
    await rm(keyDirectory, { recursive: true, force: true });
  }
}

interface PackagePlan {
  readonly source: SourceVideo;
  readonly video: readonly PlannedVideo[];
  readonly audio: readonly (PlannedAudio & { file: string })[];
  readonly subtitles: readonly PlannedSubtitles[];
}

/** What will be packaged, every input checked before the encode starts: an hour of encoding must not end on a misspelt language. */
async function planPackage(file: string, originalLanguage: string, options: VideoPackagingOptions): Promise<PackagePlan> {
  const source = await probeSource(file);
  const original = languageOf(originalLanguage);
  // `--audio en=FILE` naming the source itself says what language the source's audio is.
  const isSource = (other: string) => resolve(other) === resolve(file);
  const named = (options.audio ?? []).map((track) => ({ ...languageOf(track.language), file: track.file }));
  const sourceLanguage = languageOf(options.sourceLanguage ?? named.find((track) => isSource(track.file))?.tag ?? originalLanguage);
  const added = named.filter((track) => !isSource(track.file));
  const audio: (PlannedAudio & { file: string })[] = [];
  if (source.audioStream !== undefined && !added.some((track) => sameLanguage(track.tag, sourceLanguage.tag))) {
    audio.push({ language: sourceLanguage.tag, folder: `a-${sourceLanguage.folder}`, name: languageName(sourceLanguage.tag), isDefault: false, input: 0, stream: source.audioStream, file });
  }
  for (const [index, track] of added.entries()) {
    if (audio.some((other) => sameLanguage(other.language, track.tag))) throw new MediaError(`two audio files for language ${track.tag}`);
    const { streams } = await probeStreams(track.file);
    const stream = streams.filter((candidate) => candidate.codec_type === 'audio').findIndex((candidate) => candidate.disposition?.default === 1);
    if (!streams.some((candidate) => candidate.codec_type === 'audio')) throw new MediaError(`ffprobe found no audio stream in ${track.file}`);
    audio.push({ language: track.tag, folder: `a-${track.folder}`, name: languageName(track.tag), isDefault: false, input: index + 1, stream: Math.max(0, stream), file: track.file });
  }
  // DEFAULT=YES only on the original language's audio (section 15); a title with none of it plays its first.
  const defaultAt = Math.max(0, audio.findIndex((track) => sameLanguage(track.language, original.tag)));
  const withDefault = audio.map((track, i) => ({ ...track, isDefault: i === defaultAt }));
  const subtitles: PlannedSubtitles[] = [];
  for (const track of options.subtitles ?? []) {
    const { tag, folder } = languageOf(track.language);
    const forced = track.forced === true;
    if (subtitles.some((other) => sameLanguage(other.language, tag) && other.forced === forced)) throw new MediaError(`two ${forced ? 'forced ' : ''}subtitle files for language ${tag}`);
    const bytes = await readFile(track.file).catch(() => {
      throw new MediaError(`cannot read the subtitles file ${track.file}`);
    });
    let cues: SubtitleCue[];
    try {
      cues = readSubtitleCues(bytes).cues;
    } catch (error) {
      throw error instanceof SubtitleError ? new MediaError(`${track.file}: ${error.message}`) : error;
    }
    subtitles.push({ language: tag, folder: `s-${folder}${forced ? '-forced' : ''}`, name: forced ? forcedName(tag) : languageName(tag), forced, cues });
  }
  const folders = [...withDefault, ...subtitles].map((track) => track.folder);
  const twice = folders.find((folder, i) => folders.indexOf(folder) !== i);
  if (twice !== undefined) throw new MediaError(`two tracks would be written to ${twice}: give each language once`);
  return { source, video: planLadder(source), audio: withDefault, subtitles };
}

/**
 * Checks what ffmpeg wrote and writes Maqam's part beside it: every
 * playlist complete and every segment not empty and decrypting with the
 * title's key; in every video rendition an IDR at every segment's start,
 * at the same times in all of them; then the media and I-frame playlists,
 * the subtitles on the video's grid, the measured bandwidths and CODECS.
 */
async function finishPackage(directory: string, plan: PackagePlan, key: Buffer, iv: Buffer): Promise<Pick<VideoPackage, 'renditions' | 'audio' | 'subtitles' | 'durationMs'>> {
  const keyHex = key.toString('hex');
  const ivHex = iv.toString('hex');
  const audio: AudioRendition[] = [];
  const audioRates: { peak: number; average: number }[] = [];
  for (const track of plan.audio) {
    const folder = join(directory, track.folder);
    const segments = await readMediaPlaylist(folder, ivHex, true);
    if (segments === undefined) throw await incomplete(directory, `${track.folder}/index.m3u8`);
    for (const segment of segments) {
      if (decryptSegment(await readFile(join(folder, segment.file)), key, iv) === undefined) throw await incomplete(directory, `${track.folder}/${segment.file} does not decrypt`);
    }
    const probed = await probeSegment(join(folder, segments[0]!.file), keyHex, ivHex);
    const codecs = aacCodecs(probed);
    if (codecs === undefined) throw new MediaError(`ffprobe could not read the packaged audio of ${track.folder}`);
    await writeFile(join(folder, 'index.m3u8'), mediaPlaylist(segments, ivHex, false));
    audio.push({ language: track.language, name: track.name, isDefault: track.isDefault, codecs, channels: probed.channels ?? 2, playlist: `${track.folder}/index.m3u8` });
    audioRates.push(peakAndAverage(segments));
  }
  const loudest = { peak: Math.max(0, ...audioRates.map((rate) => rate.peak)), average: Math.max(0, ...audioRates.map((rate) => rate.average)) };

  const renditions: VideoRendition[] = [];
  let grid: { durations: number[]; starts: number[] } | undefined;
  for (const planned of plan.video) {
    const folder = join(directory, planned.folder);
    const segments = await readMediaPlaylist(folder, ivHex, true);
    if (segments === undefined) throw await incomplete(directory, `${planned.folder}/index.m3u8`);
    const started: (MediaSegment & { start: SegmentStart })[] = [];
    let sps: readonly [number, number, number] | undefined;
    for (const segment of segments) {
      const clear = decryptSegment(await readFile(join(folder, segment.file)), key, iv);
      if (clear === undefined) throw await incomplete(directory, `${planned.folder}/${segment.file} does not decrypt`);
      const start = segmentStart(clear);
      if (start === undefined || !start.idr) throw new MediaError(`the packaged video does not start ${planned.folder}/${segment.file} with an IDR frame`);
      sps ??= start.sps;
      started.push({ ...segment, start });
    }
    const starts = started.map((segment) => segment.start.pts);
    if (grid === undefined) grid = { durations: segments.map((segment) => segment.duration), starts };
    else if (grid.starts.length !== starts.length || grid.starts.some((pts, i) => pts !== starts[i])) {
      throw new MediaError(`the packaged renditions' segments do not start at the same frames (${plan.video[0]!.folder} and ${planned.folder})`);
    }
    const probed = await probeSegment(join(folder, segments[0]!.file), keyHex, ivHex);
    const codecs = sps && avcCodecs(probed, sps);
    if (codecs === undefined || probed.width !== planned.width || probed.height !== planned.height) {
      throw new MediaError(`ffprobe reads the packaged ${planned.folder} as ${probed.codec_name ?? 'nothing'} ${probed.width ?? '?'}x${probed.height ?? '?'}, not the H.264 ${planned.width}x${planned.height} it was made to be`);
    }
    const rates = peakAndAverage(segments);
    await writeFile(join(folder, 'index.m3u8'), mediaPlaylist(segments, ivHex, true));
    await writeFile(join(folder, 'iframes.m3u8'), iframePlaylist(started, ivHex));
    renditions.push({
      quality: planned.step.quality,
      width: planned.width,
      height: planned.height,
      bandwidth: Math.ceil(rates.peak + loudest.peak),
      averageBandwidth: Math.ceil(rates.average + loudest.average),
      codecs,
      frameRate: Math.round(plan.source.frameRate * 1000) / 1000,
      playlist: `${planned.folder}/index.m3u8`,
      iframePlaylist: `${planned.folder}/iframes.m3u8`,
      iframeBandwidth: Math.ceil(Math.max(...started.map((segment) => (segment.start.end * 8) / segment.duration))),
    });
  }
  const { durations, starts } = grid!;

  const subtitles: SubtitleRendition[] = [];
  const target = targetDurationOf(durations.map((duration) => ({ duration })));
  for (const track of plan.subtitles) {
    const folder = join(directory, track.folder);
    await mkdir(folder);
    const files = segmentWebVtt(track.cues, durations, starts[0]!);
    for (const [index, text] of files.entries()) await writeFile(join(folder, `seg${String(index).padStart(5, '0')}.vtt`), text);
    await writeFile(join(folder, 'index.m3u8'), subtitlePlaylist(durations, target));
    if ((await readMediaPlaylist(folder, ivHex, false))?.length !== durations.length) throw await incomplete(directory, `${track.folder}/index.m3u8`);
    subtitles.push({ language: track.language, name: track.name, forced: track.forced, playlist: `${track.folder}/index.m3u8` });
  }
  return { renditions, audio, subtitles, durationMs: Math.round(durations.reduce((sum, duration) => sum + duration, 0) * 1000) };
}

async function recordedDirectory(db: Db, title: VideoTitle): Promise<string | undefined> {
  const row = await db.selectFrom('video_packages').select('directory').where('title_kind', '=', title.kind).where('title_id', '=', title.id).executeTakeFirst();
  return row?.directory;
}

/**
 * Records a title's package in one transaction and answers the directory
 * of the package it replaces, if any. The title's row is locked first (an
 * update that changes nothing), so of two packagings of one title each
 * removes the directory it replaced itself, never the other's.
 */
async function recordPackage(db: Db, title: VideoTitle, pkg: VideoPackage): Promise<string | undefined> {
  const row = {
    title_kind: title.kind, title_id: title.id, directory: pkg.directory,
    renditions: JSON.stringify(pkg.renditions), audio: JSON.stringify(pkg.audio), subtitles: JSON.stringify(pkg.subtitles),
    key_hex: pkg.keyHex, iv_hex: pkg.ivHex, duration_ms: pkg.durationMs, created_at: Date.now(),
  };
  return db.transaction().execute(async (trx) => {
    await trx.updateTable('video_packages').set((eb) => ({ directory: eb.ref('directory') }))
      .where('title_kind', '=', title.kind).where('title_id', '=', title.id).execute();
    const previous = await trx.selectFrom('video_packages').select('directory')
      .where('title_kind', '=', title.kind).where('title_id', '=', title.id).executeTakeFirst();
    const { title_kind: _kind, title_id: _id, ...changes } = row;
    await trx.insertInto('video_packages').values(row).onConflict((oc) => oc.columns(['title_kind', 'title_id']).doUpdateSet(changes)).execute();
    return previous?.directory;
  });
}
