/**
 * Subtitle files as operators have them (contract section 15): SRT or
 * WebVTT, in UTF-8 or, for Arabic SRT files from Windows tools, in
 * Windows-1256, read into cues. The peers show those files as garbage; the
 * encoding is detected, never assumed.
 */

/** A cue, in milliseconds from the title's start; `text` is WebVTT cue text (escaped, tags kept). */
export interface SubtitleCue {
  readonly startMs: number;
  readonly endMs: number;
  /** WebVTT cue settings (`align:start line:10%`), empty for none. */
  readonly settings: string;
  readonly text: string;
}

export class SubtitleError extends Error {
  override name = 'SubtitleError';
}

/**
 * The text of a subtitle file's bytes: a byte order mark says UTF-8 or
 * UTF-16 (and is dropped); otherwise bytes that are valid UTF-8 are UTF-8,
 * and any others are Windows-1256, the Arabic code page Windows' tools
 * write SRT files in (a file in Latin-1 is misread, but those are the
 * minority Maqam's catalog does not serve first).
 */
export function decodeSubtitleBytes(bytes: Uint8Array): { text: string; encoding: 'utf-8' | 'utf-16le' | 'utf-16be' | 'windows-1256' } {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return { text: new TextDecoder('utf-8').decode(bytes.subarray(3)), encoding: 'utf-8' };
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return { text: new TextDecoder('utf-16le').decode(bytes.subarray(2)), encoding: 'utf-16le' };
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return { text: new TextDecoder('utf-16be').decode(bytes.subarray(2)), encoding: 'utf-16be' };
  try {
    return { text: new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes), encoding: 'utf-8' };
  } catch {
    return { text: new TextDecoder('windows-1256').decode(bytes), encoding: 'windows-1256' };
  }
}

// 01:02:03,456 (SRT), 01:02:03.456 or 02:03.456 (WebVTT); SRT files in the wild also drop the hours or write fewer digits.
const TIMESTAMP = /^(?:(\d+):)?(\d{1,2}):(\d{1,2})[,.](\d{1,3})$/;
const TIMING = /^\s*(\S+)\s+-->\s+(\S+)\s*(.*)$/;

function timestampMs(text: string): number | undefined {
  const match = TIMESTAMP.exec(text);
  if (!match) return undefined;
  const [, hours = '0', minutes, seconds, fraction] = match;
  if (Number(minutes) > 59 || Number(seconds) > 59) return undefined;
  return ((Number(hours) * 60 + Number(minutes)) * 60 + Number(seconds)) * 1000 + Number(fraction!.padEnd(3, '0'));
}

// Tags WebVTT cue text may carry, as SRT files write them (<b>, <i>, <u>) or WebVTT does (classes, voices, ruby, timestamps).
const WEBVTT_TAG = /^<\/?(?:[biu]|c|v|lang|ruby|rt)(?:[.\s][^>]*)?>|^<\d{2}:[\d:.]+>/;

/**
 * An SRT cue's text as WebVTT cue text: `<b>`, `<i>` and `<u>` kept, `<font>`
 * and ASS overrides (`{\an8}`) dropped, and `&` and `<` escaped where they
 * are text (an SRT line "Tom & Jerry" is not an entity).
 */
function webVttText(lines: readonly string[], fromSrt: boolean): string {
  return lines
    .map((line) => {
      let source = fromSrt ? line.replace(/\{\\[^}]*\}/g, '').replace(/<\/?font[^>]*>/gi, '') : line;
      let text = '';
      while (source.length > 0) {
        const tag = source.startsWith('<') ? WEBVTT_TAG.exec(source) : null;
        if (tag) {
          text += tag[0];
          source = source.slice(tag[0].length);
        } else if (source.startsWith('&') && !fromSrt && /^&(?:amp|lt|gt|lrm|rlm|nbsp|#\d+|#x[\da-f]+);/i.test(source)) {
          const entity = /^&[^;]+;/.exec(source)![0];
          text += entity;
          source = source.slice(entity.length);
        } else {
          const character = source[0]!;
          text += character === '&' ? '&amp;' : character === '<' ? '&lt;' : character === '>' ? '&gt;' : character;
          source = source.slice(1);
        }
      }
      return text.replace(/-->/g, '--&gt;');
    })
    .filter((line) => line.trim().length > 0)
    .join('\n');
}

/**
 * Cues of an SRT or WebVTT text, in start order. A cue is a timing line and
 * the text lines after it, up to a blank line (or, in SRT files that forgot
 * the blank line, the next cue's counter and timing); SRT counters, WebVTT
 * identifiers and NOTE, STYLE and REGION blocks are not text. A cue that
 * ends before it starts is dropped. A file with no cue at all is refused:
 * it is the wrong file, or not subtitles.
 */
export function parseSubtitles(text: string): SubtitleCue[] {
  const lines = text.replace(/^\uFEFF/, '').split(/\r\n|\r|\n/);
  const fromSrt = !/^WEBVTT(?:[ \t]|$)/.test(lines[0]!);
  const cues: SubtitleCue[] = [];
  let open: { startMs: number; endMs: number; settings: string; lines: string[] } | undefined;
  const close = () => {
    if (open === undefined) return;
    const cueText = webVttText(open.lines, fromSrt);
    if (open.endMs > open.startMs && cueText.length > 0) cues.push({ startMs: open.startMs, endMs: open.endMs, settings: open.settings, text: cueText });
    open = undefined;
  };
  for (const line of lines) {
    const timing = line.includes('-->') ? TIMING.exec(line) : null;
    const startMs = timing ? timestampMs(timing[1]!) : undefined;
    const endMs = timing ? timestampMs(timing[2]!) : undefined;
    if (startMs !== undefined && endMs !== undefined) {
      // A counter right above a timing line, with no blank line before it, is the next SRT cue's, not this one's text.
      if (open !== undefined && fromSrt && /^\d+$/.test(open.lines.at(-1)?.trim() ?? '')) open.lines.pop();
      close();
      // SRT has no settings (what may follow its timing, X1: Y1: coordinates, is not WebVTT's); WebVTT regions are not carried over.
      const settings = fromSrt ? '' : timing![3]!.split(/\s+/).filter((setting) => /^(?:vertical|line|position|size|align):\S+$/.test(setting)).join(' ');
      open = { startMs, endMs, settings, lines: [] };
    } else if (line.trim() === '') {
      close();
    } else if (open !== undefined) {
      open.lines.push(line);
    }
  }
  close();
  if (cues.length === 0) throw new SubtitleError('no cues found: not an SRT or WebVTT file, or an empty one');
  return cues.sort((a, b) => a.startMs - b.startMs || a.endMs - b.endMs);
}

/** A subtitle file's bytes as cues, whatever its encoding. */
export function readSubtitleCues(bytes: Uint8Array): { cues: SubtitleCue[]; encoding: string } {
  const { text, encoding } = decodeSubtitleBytes(bytes);
  return { cues: parseSubtitles(text), encoding };
}
