/**
 * What a demo title's clip says (demo-video-media.ts): its lines in Arabic
 * and in English, when each is spoken, and the subtitles that show them.
 * Pure: the lengths of the spoken lines come from the speech synthesizer
 * (demo-video-speech.ts), the rest is arithmetic and text.
 */

export type ClipLanguage = 'ar' | 'en';
export const CLIP_LANGUAGES: readonly ClipLanguage[] = ['ar', 'en'];

/** A line as it is spoken and subtitled: its text and its time in the clip. */
export interface TimedLine {
  readonly text: string;
  readonly startMs: number;
  readonly endMs: number;
}

/**
 * A clip's words: parts spoken one after the other (the title, then the
 * description), each a list of lines in each language. A part starts at the
 * same time in both languages, so subtitles in one language stay near the
 * speech in the other; its lines follow each other within it.
 */
export type ClipParts = readonly Readonly<Record<ClipLanguage, readonly string[]>>[];

export interface ClipTiming {
  /** Music alone before the first word, while the title appears. */
  readonly introMs: number;
  /** Between two lines of a part. */
  readonly lineGapMs: number;
  /** Between two parts. */
  readonly partGapMs: number;
  /** Music alone after the last word. */
  readonly outroMs: number;
  /** The clip's length when its words take less; with `maxMs` equal to it, its length exactly. */
  readonly minMs: number;
  /** No longer than this: lines that would end later are not spoken. */
  readonly maxMs: number;
}

export interface ClipScript {
  readonly durationMs: number;
  readonly lines: Readonly<Record<ClipLanguage, readonly TimedLine[]>>;
}

/**
 * Places every line on the clip's time line, from how long each takes to
 * say (`spokenMs`). A line that would end after the clip's last `outroMs`
 * is left out, and so is the rest of its language's lines: a short clip
 * says its title and as much of the description as fits.
 */
export function scheduleClip(parts: ClipParts, spokenMs: (language: ClipLanguage, text: string) => number, timing: ClipTiming): ClipScript {
  const lines: Record<ClipLanguage, TimedLine[]> = { ar: [], en: [] };
  const full: Record<ClipLanguage, boolean> = { ar: false, en: false };
  const lastWord = timing.maxMs - timing.outroMs;
  let partStart = timing.introMs;
  for (const part of parts) {
    let partEnd = partStart;
    for (const language of CLIP_LANGUAGES) {
      let at = partStart;
      for (const text of part[language]) {
        const endMs = at + Math.round(spokenMs(language, text));
        if (full[language] || endMs > lastWord) {
          full[language] = true;
          break;
        }
        lines[language].push({ text, startMs: at, endMs });
        at = endMs + timing.lineGapMs;
      }
      partEnd = Math.max(partEnd, at - timing.lineGapMs);
    }
    partStart = partEnd + timing.partGapMs;
  }
  const spoken = Math.max(0, ...CLIP_LANGUAGES.flatMap((language) => lines[language].map((line) => line.endMs)));
  const durationMs = Math.min(timing.maxMs, Math.max(timing.minMs, spoken + timing.outroMs));
  return { durationMs, lines };
}

/** A line of subtitles is read at a glance under this many characters; a cue holds two. */
const LINE_CHARACTERS = 42;

/** The space nearest the middle of `text` (-1 if it has none). */
function middleSpace(text: string): number {
  const middle = text.length / 2;
  let best = -1;
  for (let i = text.indexOf(' '); i !== -1; i = text.indexOf(' ', i + 1)) if (best === -1 || Math.abs(i - middle) < Math.abs(best - middle)) best = i;
  return best;
}

/**
 * A description cut into lines to speak and subtitle one at a time: at the
 * ends of sentences, then (a sentence longer than a cue) after its commas,
 * colons and semicolons, Arabic or Latin, then at a space near the middle.
 */
export function spokenLines(text: string): string[] {
  const cueCharacters = 2 * LINE_CHARACTERS;
  const cut = (piece: string, pattern: RegExp): string[] => piece.split(pattern).map((part) => part.trim()).filter((part) => part.length > 0);
  const halve = (piece: string): string[] => {
    if (piece.length <= cueCharacters) return [piece];
    const at = middleSpace(piece);
    return at === -1 ? [piece] : [...halve(piece.slice(0, at)), ...halve(piece.slice(at + 1))];
  };
  return cut(text, /(?<=[.!?؟])\s+/u)
    .flatMap((sentence) => (sentence.length <= cueCharacters ? [sentence] : cut(sentence, /(?<=[،,:؛;])\s+/u)))
    .flatMap(halve);
}

/** A cue's text on at most two lines, broken at the space nearest the middle. */
function cueText(text: string): string {
  if (text.length <= LINE_CHARACTERS) return text;
  const at = middleSpace(text);
  return at === -1 ? text : `${text.slice(0, at)}\n${text.slice(at + 1)}`;
}

const srtTime = (ms: number) => {
  const pad = (n: number, width = 2) => String(n).padStart(width, '0');
  return `${pad(Math.floor(ms / 3_600_000))}:${pad(Math.floor(ms / 60_000) % 60)}:${pad(Math.floor(ms / 1000) % 60)},${pad(ms % 1000, 3)}`;
};

/** SubRip text of the lines, one cue a line, with Windows line ends as the files subtitlers hand over have them. */
export function subRip(lines: readonly TimedLine[]): string {
  return lines.map((line, i) => `${i + 1}\r\n${srtTime(line.startMs)} --> ${srtTime(line.endMs)}\r\n${cueText(line.text).replace(/\n/g, '\r\n')}\r\n`).join('\r\n');
}

let windows1256: Map<string, number> | undefined;

/**
 * Text in Windows-1256, the code page Arabic subtitle files made on Windows
 * are written in (Node decodes it but has no encoder): each character's
 * byte, found by decoding every byte once. A character the code page lacks
 * (Arabic-Indic digits among them) is an error, not a question mark.
 */
export function encodeWindows1256(text: string): Buffer {
  if (windows1256 === undefined) {
    const decoder = new TextDecoder('windows-1256');
    windows1256 = new Map(Array.from({ length: 256 }, (_, byte) => [decoder.decode(Uint8Array.of(byte)), byte] as const));
  }
  const table = windows1256;
  return Buffer.from([...text].map((character) => {
    const byte = table.get(character);
    if (byte === undefined) throw new Error(`Windows-1256 has no "${character}" (U+${character.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')})`);
    return byte;
  }));
}

const ARABIC_DIGITS = '٠١٢٣٤٥٦٧٨٩';
/** A number written with the Arabic-Indic digits an Arabic line of text uses. */
export const arabicNumber = (n: number) => String(n).replace(/\d/g, (digit) => ARABIC_DIGITS[Number(digit)]!);
