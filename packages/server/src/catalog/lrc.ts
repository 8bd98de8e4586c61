/**
 * LRC, the time-synced lyrics format of contract section 10: each line starts
 * with one or more `[mm:ss.xx]` (or `.xxx`) time tags, then its text. Lines
 * that hold only a metadata tag (`[ar:...]`, `[ti:...]`) are ignored, except
 * `[offset:±N]`, which shifts every line as LRC players do: a positive offset
 * shows lines N ms sooner. Anything else is refused with its line number.
 */

export interface SyncedLine {
  readonly text: string;
  readonly startTimeMs: number;
}

export class LrcError extends Error {
  override name = 'LrcError';
  readonly lrcLine: number;
  constructor(lrcLine: number, detail: string) {
    super(`lrc line ${lrcLine}: ${detail}`);
    this.lrcLine = lrcLine;
  }
}

const TIME_TAG = /^\[(\d{1,3}):([0-5]\d)\.(\d{2,3})\]/;
const METADATA_LINE = /^\[([A-Za-z#][A-Za-z0-9#_-]*):([^\]]*)\]\s*$/;
const OFFSET = /^[+-]?\d{1,7}$/;

/** The synced lines of an LRC text, in time order (ties keep their order in the text). */
export function parseLrc(text: string): SyncedLine[] {
  const timed: { text: string; at: number; order: number }[] = [];
  let offsetMs = 0;
  const lines = text.split(/\r\n|\n|\r/);
  for (let i = 0; i < lines.length; i++) {
    const lineNumber = i + 1;
    let rest = lines[i]!.trim();
    if (rest === '') continue;
    const metadata = METADATA_LINE.exec(rest);
    if (metadata) {
      if (metadata[1]!.toLowerCase() === 'offset') {
        const value = metadata[2]!.trim();
        if (!OFFSET.test(value)) throw new LrcError(lineNumber, `the offset "${value}" is not a whole number of milliseconds`);
        offsetMs = Number(value);
      }
      continue;
    }
    const times: number[] = [];
    for (let tag = TIME_TAG.exec(rest); tag; tag = TIME_TAG.exec(rest)) {
      const fraction = tag[3]!;
      const ms = fraction.length === 2 ? Number(fraction) * 10 : Number(fraction);
      times.push((Number(tag[1]) * 60 + Number(tag[2])) * 1000 + ms);
      rest = rest.slice(tag[0].length);
    }
    if (times.length === 0) {
      const tag = /^\[[^\]]*\]?/.exec(rest);
      throw new LrcError(lineNumber, tag ? `malformed tag "${tag[0].slice(0, 40)}"` : 'has no time tag');
    }
    for (const at of times) timed.push({ text: rest.trim(), at, order: timed.length });
  }
  if (timed.length === 0) throw new LrcError(lines.length, 'has no timed lines');
  // Offset as LRC players apply it: positive shows lines sooner; nothing starts before 0.
  return timed
    .map((line) => ({ ...line, at: Math.max(0, line.at - offsetMs) }))
    .sort((a, b) => a.at - b.at || a.order - b.order)
    .map(({ text: lineText, at }) => ({ text: lineText, startTimeMs: at }));
}
