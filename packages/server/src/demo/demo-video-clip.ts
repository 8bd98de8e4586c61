import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { setPriority } from 'node:os';
import { join } from 'node:path';
import { titleArtSvg, type TitleArt } from '../catalog/artwork.ts';
import { renderPieceOnThread } from './demo-music.ts';
import { CLIP_LANGUAGES, encodeWindows1256, scheduleClip, subRip, type ClipLanguage, type ClipParts, type ClipScript, type ClipTiming } from './demo-video-script.ts';
import { speak, speechMs, voiceTrack, type Speech } from './demo-video-speech.ts';

/**
 * One demo title's clip, made from nothing but the title's record: a slow
 * pan over its own drawn backdrop (catalog/artwork.ts, rendered by ffmpeg's
 * librsvg) with its name drawn in Arabic and English (ffmpeg's drawtext,
 * whose FriBiDi joins and orders Arabic letters), a voice in each language
 * saying its name and its description over a piece of the demo's maqam
 * music (the first song of its soundtrack, when it has one), ducked under
 * the voice, and subtitles in both languages timed to the voices. Made at
 * 1280x720, so packaging gives it SD and HD.
 */

/** What a clip shows and says of its title. */
export interface ClipTitle {
  /** Drawn large, Arabic over English. */
  readonly heading: Readonly<Record<ClipLanguage, string>>;
  /** Drawn under it: the season and episode, or that it is a film, and when. */
  readonly subheading: Readonly<Record<ClipLanguage, string>>;
  readonly parts: ClipParts;
  /** Its backdrop's drawing. */
  readonly art: TitleArt;
  /** The piece of maqam music under it (maqam-music.ts). */
  readonly piece: number;
  /** How its Arabic subtitles file is written: Windows-1256 as many Arabic SRT files are, or UTF-8. */
  readonly arabicSubtitles: 'utf-8' | 'windows-1256';
}

export interface ClipOptions {
  /** Exactly this long (tests), saying what fits; else 30 s to a minute, as long as its words take. */
  readonly seconds?: number;
  readonly signal?: AbortSignal;
  /** Encode at a lower CPU priority (nice 10): a server making clips in the background answers requests first. */
  readonly background?: boolean;
}

/** The files of a clip, in the folder it was made in: what `addVideo` packages. */
export interface MadeClip {
  /** H.264 1280x720, no sound. */
  readonly picture: string;
  readonly audio: Readonly<Record<ClipLanguage, string>>;
  readonly subtitles: Readonly<Record<ClipLanguage, string>>;
  readonly script: ClipScript;
}

export const CLIP_WIDTH = 1280;
export const CLIP_HEIGHT = 720;
const FRAME_RATE = 25;
/** The backdrop is drawn larger than the picture, which pans across it. */
const ART_SIZE = [1600, 900] as const;

const TIMING: Omit<ClipTiming, 'minMs' | 'maxMs'> = { introMs: 1500, lineGapMs: 450, partGapMs: 900, outroMs: 2500 };
const SHORTEST_MS = 30_000;
const LONGEST_MS = 60_000;

const FONTS = '/usr/share/fonts/truetype/dejavu';
/** DejaVu Sans has the Arabic letters and their joined forms; fontconfig finds another Sans if it is missing. */
const font = (bold: boolean) => {
  const file = `${FONTS}/DejaVuSans${bold ? '-Bold' : ''}.ttf`;
  return existsSync(file) ? `fontfile=${file}` : `font=Sans${bold ? '\\:bold' : ''}`;
};

/** Runs ffmpeg in `cwd` (so the filter graph names its files without quoting); a failure says ffmpeg's last complaint. */
function runFfmpeg(args: readonly string[], cwd: string, options: ClipOptions): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-nostdin', '-y', ...args], { cwd, stdio: ['ignore', 'ignore', 'pipe'], signal: options.signal });
    if (options.background && child.pid !== undefined) {
      try {
        setPriority(child.pid, 10);
      } catch {
        // Not allowed here: the clip is made at the server's own priority.
      }
    }
    let errors = '';
    child.stderr.on('data', (chunk: Buffer) => (errors = (errors + chunk.toString()).slice(-4096)));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`ffmpeg could not make the demo clip: ${errors.trim().split('\n').pop() || `exit ${code}`}`))));
  });
}

/** Font size for a heading of this many characters to fit the picture's width with margins (DejaVu's letters average about 0.55 em). */
const fitting = (text: string, largest: number) => Math.min(largest, Math.floor((CLIP_WIDTH - 160) / (0.55 * Math.max(1, [...text].length))));

/**
 * The picture: the backdrop decoded once and held (`loop`), panned across
 * with an ease in and out, a shade under the lower third, the headings
 * fading in, and the running time in a corner (what a viewer reports when
 * a subtitle is late).
 */
function pictureFilter(title: ClipTitle, seconds: number): string {
  const turn = createHash('sha256').update(title.art.id).digest()[0]!;
  const ease = `(1-cos(PI*t/${seconds.toFixed(3)}))/2`;
  const x = turn & 1 ? `(iw-ow)*(1-${ease})` : `(iw-ow)*${ease}`;
  const y = turn & 2 ? `(ih-oh)*(0.7-0.4*${ease})` : `(ih-oh)*(0.3+0.4*${ease})`;
  const fadeIn = (delay: number) => `alpha='min(1,max(0,(t-${delay})/1.2))'`;
  const text = (file: string, size: number, color: string, xAt: string, yAt: number, bold: boolean, delay: number) =>
    // No shadow: drawtext draws it whole while the letters fade in, a dark ghost of them.
    `drawtext=${font(bold)}:textfile=${file}:expansion=none:fontsize=${size}:fontcolor=${color}:x=${xAt}:y=${yAt}:${fadeIn(delay)}`;
  return [
    `[0:v]loop=loop=-1:size=1,fps=${FRAME_RATE},trim=duration=${seconds.toFixed(3)},format=rgb24`,
    `crop=${CLIP_WIDTH}:${CLIP_HEIGHT}:x='${x}':y='${y}'`,
    // The shade's edge softened by two thinner shades above it.
    ...[[300, 0.12], [285, 0.15], [270, 0.3]].map(([height, alpha]) => `drawbox=x=0:y=${CLIP_HEIGHT - height!}:w=iw:h=${height}:color=black@${alpha}:t=fill`),
    text('heading-ar.txt', fitting(title.heading.ar, 64), 'white', '(w-tw)/2', CLIP_HEIGHT - 248, true, 0.3),
    text('heading-en.txt', fitting(title.heading.en, 40), 'white', '(w-tw)/2', CLIP_HEIGHT - 160, false, 0.6),
    // The Arabic line at the right margin, the English at the left, each where its reader starts.
    text('subheading-ar.txt', 26, '0xF3E6C8', 'w-tw-64', CLIP_HEIGHT - 88, false, 0.9),
    text('subheading-en.txt', 26, '0xF3E6C8', '64', CLIP_HEIGHT - 88, false, 0.9),
    `drawtext=${font(false)}:text='%{pts\\:hms}':fontsize=20:fontcolor=white@0.7:x=24:y=20:shadowcolor=black@0.6:shadowx=1:shadowy=1`,
    'format=yuv420p[picture]',
  ].join(',');
}

/**
 * Each language's sound: the music looped to the clip's length, quieter
 * while the voice speaks (a side-chain compressor keyed by it), the voice
 * over it, faded in and out.
 */
function soundFilter(seconds: number): string {
  const length = seconds.toFixed(3);
  const stereo = 'aresample=48000,aformat=sample_fmts=fltp:channel_layouts=stereo';
  const graph = [`[1:a]${stereo},atrim=duration=${length},volume=0.6,asplit=2[music0][music1]`];
  CLIP_LANGUAGES.forEach((language, i) => {
    graph.push(
      `[${i + 2}:a]${stereo},apad,atrim=duration=${length},volume=1.8,asplit=2[key${i}][voice${i}]`,
      `[music${i}][key${i}]sidechaincompress=threshold=0.02:ratio=6:attack=20:release=450[ducked${i}]`,
      `[ducked${i}][voice${i}]amix=inputs=2:duration=first:normalize=0,afade=t=in:d=1,afade=t=out:st=${Math.max(0, seconds - 2.5).toFixed(3)}:d=2.5,alimiter=limit=0.95[${language}]`,
    );
  });
  return graph.join(';');
}

/** Makes `title`'s clip in `dir` (which it fills with its working files). */
export async function makeClip(title: ClipTitle, dir: string, options: ClipOptions = {}): Promise<MadeClip> {
  const { signal } = options;
  // Every line said first: their lengths decide the clip's.
  const speeches = new Map<string, Speech>();
  for (const part of title.parts) {
    for (const language of CLIP_LANGUAGES) {
      for (const text of part[language]) if (!speeches.has(`${language}\n${text}`)) speeches.set(`${language}\n${text}`, await speak(language, text, signal));
    }
  }
  const spoken = (language: ClipLanguage, text: string) => speeches.get(`${language}\n${text}`)!;
  const bounds = options.seconds === undefined ? { minMs: SHORTEST_MS, maxMs: LONGEST_MS } : { minMs: options.seconds * 1000, maxMs: options.seconds * 1000 };
  const script = scheduleClip(title.parts, (language, text) => speechMs(spoken(language, text)), { ...TIMING, ...bounds });
  const seconds = script.durationMs / 1000;

  const sampleRate = spoken(CLIP_LANGUAGES[0]!, title.parts[0]![CLIP_LANGUAGES[0]!][0]!).sampleRate;
  const files = {
    picture: join(dir, 'picture.mp4'),
    audio: { ar: join(dir, 'ar.wav'), en: join(dir, 'en.wav') },
    subtitles: { ar: join(dir, 'ar.srt'), en: join(dir, 'en.srt') },
  };
  for (const language of CLIP_LANGUAGES) {
    const lines = script.lines[language].map((line) => ({ ...line, speech: spoken(language, line.text) }));
    await writeFile(join(dir, `voice-${language}.wav`), voiceTrack(lines, script.durationMs, sampleRate));
    const srt = subRip(script.lines[language]);
    await writeFile(files.subtitles[language], language === 'ar' && title.arabicSubtitles === 'windows-1256' ? encodeWindows1256(srt) : srt);
    await writeFile(join(dir, `heading-${language}.txt`), title.heading[language]);
    await writeFile(join(dir, `subheading-${language}.txt`), title.subheading[language]);
  }
  await writeFile(join(dir, 'backdrop.svg'), titleArtSvg('wide', title.art, ART_SIZE));
  await renderPieceOnThread(title.piece, join(dir, 'music.wav'));
  if (signal?.aborted) throw signal.reason;

  await runFfmpeg([
    '-i', 'backdrop.svg', '-stream_loop', '-1', '-i', 'music.wav', ...CLIP_LANGUAGES.flatMap((language) => ['-i', `voice-${language}.wav`]),
    '-filter_complex', `${pictureFilter(title, seconds)};${soundFilter(seconds)}`,
    // Encoded fast and nearly lossless: packaging encodes it again, into the ladder.
    '-map', '[picture]', '-c:v', 'libx264', '-preset', 'ultrafast', '-crf', '16', '-g', String(2 * FRAME_RATE), '-r', String(FRAME_RATE), '-an', files.picture,
    ...CLIP_LANGUAGES.flatMap((language) => ['-map', `[${language}]`, '-c:a', 'pcm_s16le', '-vn', files.audio[language]]),
  ], dir, options);
  return { ...files, script };
}
