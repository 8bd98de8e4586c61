import { sameLatin1, TemplateWriter } from '../catalog/song-template.ts';
import { resolveLocalizedString } from '../locale/negotiation.ts';

/**
 * A video title's answer as a template: its JSON written once, with what
 * depends on the request left open, and filled in per request by copies
 * (`expandTitleTemplate`). Films and episodes store theirs with their rows
 * (the import writes it, title-templates.format.ts rebuilds them), so a film
 * the fragment cache lacks costs one column and a few copies, not thirteen
 * columns, a JSON parse per text and a string build; shows and seasons are
 * expanded from a template as soon as it is made, so every kind renders one way.
 *
 * What is left open:
 * - texts (a title, a description, each cast member's name): the original
 *   and each language's value kept as JSON strings, the LocalizedString
 *   made of the chain's choice and the original (contract section 3);
 * - server-relative image URLs: a 0x00 byte marks where MAQAM_PUBLIC_URL
 *   goes (JSON text never holds a raw 0x00: control characters are escaped);
 * - holes, filled with values the title's own row does not hold (an
 *   episode's show id and season number, which are its season's).
 *
 * Layout (every count and length a u32, little-endian):
 *   format                 a u32, the caller's (a reader refuses any other)
 *   then parts, each led by a byte:
 *   LITERAL                length, UTF-8 bytes
 *   TEXTS                  length, the original value (a JSON string); count, then per language: length,
 *                          tag (ASCII); length, its value (a JSON string; none: the original's own language)
 *   HOLE                   a byte: which of the caller's values goes here
 */

const LITERAL = 1;
const TEXTS = 2;
const HOLE = 3;
const PUBLIC_URL_MARK = 0x00;
const MARK = String.fromCharCode(PUBLIC_URL_MARK);

/** A template of another format than the reader's. */
export class TitleTemplateFormatError extends Error {
  constructor(found: number, expected: number) {
    super(`a video title template of format ${found}; this server reads format ${expected} (run "maqam migrate" to rebuild them)`);
  }
}

type Part =
  | { readonly literal: string }
  | { readonly original: string; readonly texts: readonly (readonly [tag: string, json: string])[] }
  | { readonly hole: number };

const VALUE_OPEN = Buffer.from('{"value":');
const ORIGINAL_OPEN = Buffer.from(',"originalValue":');
const CLOSE = Buffer.from('}');

/** A template being written, part by part, in answer order. */
export class TitleTemplateWriter {
  readonly #parts: Part[] = [];
  #literal = '';

  /** JSON text copied as it is. */
  literal(json: string): this {
    this.#literal += json;
    return this;
  }

  /** A LocalizedString from a stored texts column (a JSON object by lower-cased tag), chosen per request. */
  texts(textsJson: string, originalLanguage: string): this {
    return this.localized(JSON.parse(textsJson) as Record<string, string>, originalLanguage);
  }

  /** A LocalizedString from texts by lower-cased tag, chosen per request. */
  localized(texts: Readonly<Record<string, string>>, originalLanguage: string): this {
    const { originalValue } = resolveLocalizedString(texts, originalLanguage, []);
    // The original's own language is stored once, as the original (an empty value).
    const choices = Object.entries(texts).map(([tag, text]): [string, string] => [tag, tag === originalLanguage && text === originalValue ? '' : JSON.stringify(text)]);
    return this.#push({ original: JSON.stringify(originalValue), texts: choices });
  }

  /** Stored Image JSON, its server-relative URLs (`"url":"/...`) resolved per request against the public URL. */
  images(imagesJson: string): this {
    return this.literal(imagesJson.replaceAll('"url":"/', `"url":"${MARK}/`));
  }

  /** One URL as a JSON string; a server-relative one resolved per request against the public URL. */
  url(url: string): this {
    return this.literal(url.startsWith('/') ? `"${MARK}${JSON.stringify(url).slice(1)}` : JSON.stringify(url));
  }

  /** Where the caller's value number `index` goes (JSON text, given to `expandTitleTemplate`). */
  hole(index: number): this {
    return this.#push({ hole: index });
  }

  #push(part: Part): this {
    if (this.#literal !== '') this.#parts.push({ literal: this.#literal });
    this.#literal = '';
    this.#parts.push(part);
    return this;
  }

  /** The template's bytes, marked with `format`. */
  build(format: number): Buffer {
    if (this.#literal !== '') this.#parts.push({ literal: this.#literal });
    this.#literal = '';
    let size = 4;
    for (const part of this.#parts) {
      if ('literal' in part) size += 5 + Buffer.byteLength(part.literal);
      else if ('hole' in part) size += 2;
      else {
        size += 1 + 4 + Buffer.byteLength(part.original) + 4;
        for (const [tag, json] of part.texts) size += 8 + tag.length + Buffer.byteLength(json);
      }
    }
    const out = new TemplateWriter(Buffer.allocUnsafe(size));
    out.count(format);
    for (const part of this.#parts) {
      if ('literal' in part) {
        out.byte(LITERAL);
        out.text(part.literal);
      } else if ('hole' in part) {
        out.byte(HOLE);
        out.byte(part.hole);
      } else {
        out.byte(TEXTS);
        out.text(part.original);
        out.count(part.texts.length);
        for (const [tag, json] of part.texts) {
          out.text(tag, 'latin1');
          out.text(json);
        }
      }
    }
    if (out.at !== size) throw new Error(`video title template: wrote ${out.at} of ${size} bytes`);
    return out.bytes;
  }
}

/**
 * The answer a template holds, for a locale chain: `holes` are JSON text,
 * `publicUrl` the JSON-escaped public URL without quotes. Throws
 * TitleTemplateFormatError for a template not marked with `format`.
 */
export function expandTitleTemplate(template: Uint8Array, format: number, chain: readonly string[], holes: readonly string[], publicUrl: Buffer): Buffer {
  const bytes = Buffer.isBuffer(template) ? template : Buffer.from(template.buffer, template.byteOffset, template.byteLength);
  const found = bytes.length >= 4 ? bytes.readUInt32LE(0) : -1;
  if (found !== format) throw new TitleTemplateFormatError(found, format);
  // Two walks over the parts: the first sizes the answer, the second copies into it.
  let size = 0;
  walk(bytes, chain, (source, start, end, marked) => {
    size += end - start;
    if (!marked) return;
    for (let mark = source.indexOf(PUBLIC_URL_MARK, start); mark !== -1 && mark < end; mark = source.indexOf(PUBLIC_URL_MARK, mark + 1)) size += publicUrl.length - 1;
  }, (index) => {
    size += Buffer.byteLength(holeOf(holes, index));
  });
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  walk(bytes, chain, (source, start, end, marked) => {
    for (let mark = marked ? source.indexOf(PUBLIC_URL_MARK, start) : -1; mark !== -1 && mark < end; mark = source.indexOf(PUBLIC_URL_MARK, start)) {
      at += source.copy(out, at, start, mark);
      at += publicUrl.copy(out, at);
      start = mark + 1;
    }
    at += source.copy(out, at, start, end);
  }, (index) => {
    at += out.write(holeOf(holes, index), at);
  });
  if (at !== size) throw new Error(`video title template: expanded ${at} of ${size} bytes`);
  return out;
}

function holeOf(holes: readonly string[], index: number): string {
  const value = holes[index];
  if (value === undefined) throw new RangeError(`a video title template's hole ${index} has no value`);
  return value;
}

/**
 * Calls `copy` with each range of bytes the answer holds, in order (a literal's, `marked` where public-URL marks
 * may be; each LocalizedString's parts), and `fill` at each hole.
 */
function walk(bytes: Buffer, chain: readonly string[], copy: (source: Buffer, start: number, end: number, marked: boolean) => void, fill: (index: number) => void): void {
  let at = 4;
  while (at < bytes.length) {
    const kind = bytes[at++];
    if (kind === LITERAL) {
      const end = at + 4 + bytes.readUInt32LE(at);
      copy(bytes, at + 4, end, true);
      at = end;
    } else if (kind === HOLE) {
      fill(bytes[at++]!);
    } else if (kind === TEXTS) {
      const original = at;
      const originalEnd = original + 4 + bytes.readUInt32LE(original);
      const count = bytes.readUInt32LE(originalEnd);
      let chosen = -1;
      for (let c = 0; c < chain.length && chosen === -1; c++) {
        const tag = chain[c]!;
        let entry = originalEnd + 4;
        for (let i = 0; i < count; i++) {
          const tagLength = bytes.readUInt32LE(entry);
          const value = entry + 4 + tagLength;
          if (tagLength === tag.length && sameLatin1(bytes, entry + 4, tag)) {
            chosen = bytes.readUInt32LE(value) === 0 ? original : value;
            break;
          }
          entry = value + 4 + bytes.readUInt32LE(value);
        }
      }
      if (chosen === -1) chosen = original;
      copy(VALUE_OPEN, 0, VALUE_OPEN.length, false);
      copy(bytes, chosen + 4, chosen + 4 + bytes.readUInt32LE(chosen), false);
      copy(ORIGINAL_OPEN, 0, ORIGINAL_OPEN.length, false);
      copy(bytes, original + 4, originalEnd, false);
      copy(CLOSE, 0, CLOSE.length, false);
      at = originalEnd + 4;
      for (let i = 0; i < count; i++) at += 4 + bytes.readUInt32LE(at), at += 4 + bytes.readUInt32LE(at);
    } else {
      throw new RangeError(`a video title template part of kind ${kind} at ${at - 1}`);
    }
    if (at > bytes.length) throw new RangeError('a video title template ends past its bytes');
  }
}
