import { createHash } from 'node:crypto';
import { Song } from '@maqam/contract';
import type { SongRow } from './catalog.repo.ts';
import { localizedJson } from './render.ts';

/**
 * A song's answer, rendered once when the song is imported, with the three
 * parts that depend on the request left open:
 *
 * - the title in the request's locale chain: every language the song has a
 *   title in is kept rendered (`{"value":...,"originalValue":...}`), plus
 *   the original for a chain that matches none of them;
 * - the credited artists' refs: kept as ids, because artists are renamed
 *   without their songs being re-imported, and their names are in memory
 *   anyway (ArtistNames);
 * - server-relative image URLs: a 0x00 byte marks where MAQAM_PUBLIC_URL
 *   goes, so the stored bytes survive a change of public URL. JSON text never
 *   holds a raw 0x00 (control characters are escaped), so the marker is
 *   unambiguous.
 *
 * So a song the fragment cache lacks costs one short row and a few copies,
 * not sixteen columns, two JSON parses and a string build. The bytes are
 * those of the contract's SongResult as Fastify's serializer would write
 * them, behind the batch result key: `"<id>":{"song":{...}}`.
 *
 * Layout (every count and length a u32, little-endian, so no record the
 * importer accepts is too large for it):
 *   format                      a u32, SONG_TEMPLATE_FORMAT (a reader refuses any other)
 *   length, head bytes          `"<id>":{"song":{"id":{"value":"<id>"},"title":`
 *   count, then per title       length, language tag (ASCII); length, LocalizedString bytes
 *                               (the first has an empty tag: the original, the fallback)
 *   count, then per artist      length, artist id (UTF-8)
 *   length, tail bytes          `],"albumId":...,"previewUrl":"..."}}`
 */

/**
 * The arrangement of a template's bytes (the layout above): one more at each
 * change of it. 1 began with no format mark, 2 with a byte, 3 with a u32.
 */
const LAYOUT = 3;

/**
 * The templates' version, the first u32 of every template: the layout and
 * the contract's Song schema the templates render, hashed, so that a change
 * of either (a field added to Song, say) makes every stored template stale
 * without anyone remembering to bump a number. Templates of another version
 * are rebuilt before a server starts (song-templates.format.ts); one met
 * while serving (a node of another version wrote it) is refused, never misread.
 */
export const SONG_TEMPLATE_FORMAT = createHash('sha256').update(`${LAYOUT}\n${JSON.stringify(Song)}`).digest().readUInt32LE(0);

/** A template of another layout version than SONG_TEMPLATE_FORMAT. */
export class SongTemplateFormatError extends Error {
  readonly found: number;
  constructor(found: number) {
    super(`a song template of format ${found}; this server reads format ${SONG_TEMPLATE_FORMAT} (run "maqam migrate" to rebuild them)`);
    this.found = found;
  }
}

const quote = JSON.stringify as (value: string) => string;
const ARTISTS_OPEN = Buffer.from(',"artists":[');
const PUBLIC_URL_MARK = 0x00;

type Texts = Record<string, string>;

/** The template of a song from its stored row, written into one buffer. */
export function buildSongTemplate(row: SongRow): Buffer {
  const head = `${quote(row.id)}:{"song":{"id":{"value":${quote(row.id)}},"title":`;
  const texts = JSON.parse(row.title_i18n) as Texts;
  const titles: [tag: string, json: string][] = [['', localizedJson(texts, row.original_language, [])]];
  for (const tag of Object.keys(texts)) titles.push([tag, localizedJson(texts, row.original_language, [tag])]);
  const artistIds = JSON.parse(row.artist_ids) as string[];
  const artwork = row.artwork.replaceAll('"url":"/', `"url":"${String.fromCharCode(PUBLIC_URL_MARK)}/`);
  const tail =
    `],"albumId":{"value":${quote(row.album_id)}}` +
    `,"durationMs":${row.duration_ms},"trackNumber":${row.track_number},"discNumber":${row.disc_number}` +
    `,"releaseDate":${quote(row.release_date)},"genres":${row.genres}` +
    `,"isExplicit":${row.is_explicit === 1},"isrc":${quote(row.isrc)},"hasLyrics":${row.has_lyrics === 1}` +
    `,"popularity":${row.popularity},"artwork":${artwork},"previewUrl":${quote(row.preview_url)}}}`;
  // The format; every part is a u32 length and its bytes (a tag is ASCII, written as latin1), plus the two counts.
  let size = 4 + 4 + Buffer.byteLength(head) + 4 + 4 + 4 + Buffer.byteLength(tail);
  for (const [tag, json] of titles) size += 8 + tag.length + Buffer.byteLength(json);
  for (const id of artistIds) size += 4 + Buffer.byteLength(id);
  const out = new TemplateWriter(Buffer.allocUnsafe(size));
  out.count(SONG_TEMPLATE_FORMAT);
  out.text(head);
  out.count(titles.length);
  for (const [tag, json] of titles) {
    out.text(tag, 'latin1');
    out.text(json);
  }
  out.count(artistIds.length);
  for (const id of artistIds) out.text(id);
  out.text(tail);
  if (out.at !== size) throw new Error(`song template of ${row.id}: wrote ${out.at} of ${size} bytes`);
  return out.bytes;
}

/**
 * Writes a template's parts one after another into `bytes`: u32 numbers
 * (the format, counts), texts each after its u32 byte length (a tag is
 * ASCII, written as latin1), and single bytes (a part's kind). The song
 * templates and the video titles' (video/title-template.ts) are written by it.
 */
export class TemplateWriter {
  readonly bytes: Buffer;
  /** Where the next part goes. */
  at = 0;

  constructor(bytes: Buffer) {
    this.bytes = bytes;
  }

  byte(value: number): void {
    this.bytes[this.at++] = value;
  }

  count(value: number): void {
    this.bytes.writeUInt32LE(value, this.at);
    this.at += 4;
  }

  text(value: string, encoding: 'utf8' | 'latin1' = 'utf8'): void {
    const length = this.bytes.write(value, this.at + 4, encoding);
    this.bytes.writeUInt32LE(length, this.at);
    this.at += 4 + length;
  }
}

/**
 * Templates read back, as offsets into the bytes that hold them: no object,
 * view or string per part, only the song ids and credited artist ids, which
 * are looked up by. (With a view per part and a string per title tag, a
 * profile of the server under uniform misses spent about a fifth of its
 * rendering in making them.) `layout` holds LAYOUT_FIELDS numbers a template.
 */
export interface SongTemplates {
  readonly bytes: Buffer;
  readonly ids: readonly string[];
  /** Every template's credited artist ids, one template after another (`layout` says which are whose). */
  readonly artistIds: readonly string[];
  readonly layout: Int32Array;
}

// A template's numbers in `layout`: where its head starts and ends, where its titles start (each a tag and
// a LocalizedString, both behind their lengths) and how many there are, its first credited artist in
// `artistIds` and how many, and where its tail starts and ends.
const HEAD_START = 0;
const HEAD_END = 1;
const TITLES_START = 2;
const TITLE_COUNT = 3;
const FIRST_ARTIST = 4;
const ARTIST_COUNT = 5;
const TAIL_START = 6;
const TAIL_END = 7;
const LAYOUT_FIELDS = 8;

/**
 * The templates in `bytes`, which holds any number of them one after another
 * (each says where it ends). Throws SongTemplateFormatError at a template of
 * another format.
 */
export function parseSongTemplates(bytes: Buffer): SongTemplates {
  const ids: string[] = [];
  const artistIds: string[] = [];
  let layout = new Int32Array(LAYOUT_FIELDS * 64);
  let at = 0;
  /** Skips a length and its bytes; answers where they end. */
  const skip = () => {
    const end = at + 4 + bytes.readUInt32LE(at);
    if (end > bytes.length) throw new RangeError('a song template ends past its bytes');
    return (at = end);
  };
  for (let n = 0; at < bytes.length; n++) {
    if ((n + 1) * LAYOUT_FIELDS > layout.length) {
      const grown = new Int32Array(layout.length * 2);
      grown.set(layout);
      layout = grown;
    }
    const format = at + 4 <= bytes.length ? bytes.readUInt32LE(at) : -1;
    if (format !== SONG_TEMPLATE_FORMAT) throw new SongTemplateFormatError(format);
    at += 4;
    const fields = n * LAYOUT_FIELDS;
    layout[fields + HEAD_START] = at + 4;
    layout[fields + HEAD_END] = skip();
    ids.push(keyOf(bytes, layout[fields + HEAD_START]!, at));
    const titles = bytes.readUInt32LE(at);
    at += 4;
    layout[fields + TITLES_START] = at;
    layout[fields + TITLE_COUNT] = titles;
    for (let i = 0; i < titles; i++) {
      skip();
      skip();
    }
    const artists = bytes.readUInt32LE(at);
    at += 4;
    layout[fields + FIRST_ARTIST] = artistIds.length;
    layout[fields + ARTIST_COUNT] = artists;
    for (let i = 0; i < artists; i++) {
      const start = at + 4;
      artistIds.push(bytes.toString('utf8', start, skip()));
    }
    layout[fields + TAIL_START] = at + 4;
    layout[fields + TAIL_END] = skip();
  }
  return { bytes, ids, artistIds, layout };
}

/** The id a head (bytes[start, end)) starts with, JSON-quoted: `"<id>":`. */
function keyOf(bytes: Buffer, start: number, end: number): string {
  let escaped = false;
  for (let at = start + 1; at < end; at++) {
    if (bytes[at] === 0x5c) {
      escaped = true;
      at++; // the escaped character, which may be a quote
    } else if (bytes[at] === 0x22) {
      return escaped ? (JSON.parse(bytes.toString('utf8', start, at + 1)) as string) : bytes.toString('utf8', start + 1, at);
    }
  }
  throw new RangeError('a song template head without its key');
}

/**
 * The keyed SongResult of template `n` for a locale chain. `artistRefs`
 * holds the rendered SongArtistRef of each of `templates.artistIds`, or
 * undefined for an artist not (or no longer) in the catalog, which is left
 * out as the row renderer did.
 * `publicUrl` is the JSON-escaped public URL, without quotes.
 */
export function expandSongTemplate(
  templates: SongTemplates,
  n: number,
  chain: readonly string[],
  artistRefs: readonly (Buffer | undefined)[],
  publicUrl: Buffer,
): Buffer {
  const { bytes, layout } = templates;
  const fields = n * LAYOUT_FIELDS;
  const headStart = layout[fields + HEAD_START]!;
  const headEnd = layout[fields + HEAD_END]!;
  const tailStart = layout[fields + TAIL_START]!;
  const tailEnd = layout[fields + TAIL_END]!;
  const title = chosenTitle(bytes, layout[fields + TITLES_START]!, layout[fields + TITLE_COUNT]!, chain);
  const titleStart = title + 4;
  const titleEnd = titleStart + bytes.readUInt32LE(title);
  let size = headEnd - headStart + (titleEnd - titleStart) + ARTISTS_OPEN.length + (tailEnd - tailStart);
  const refs: Buffer[] = [];
  const firstArtist = layout[fields + FIRST_ARTIST]!;
  for (let i = firstArtist; i < firstArtist + layout[fields + ARTIST_COUNT]!; i++) {
    const ref = artistRefs[i];
    if (ref === undefined) continue;
    refs.push(ref);
    size += ref.length + (refs.length > 1 ? 1 : 0);
  }
  let marks = 0;
  for (let mark = bytes.indexOf(PUBLIC_URL_MARK, tailStart); mark !== -1 && mark < tailEnd; mark = bytes.indexOf(PUBLIC_URL_MARK, mark + 1)) marks++;
  size += marks * (publicUrl.length - 1);

  const out = Buffer.allocUnsafe(size);
  let at = bytes.copy(out, 0, headStart, headEnd);
  at += bytes.copy(out, at, titleStart, titleEnd);
  at += ARTISTS_OPEN.copy(out, at);
  for (let i = 0; i < refs.length; i++) {
    if (i > 0) out[at++] = 0x2c; // ','
    at += refs[i]!.copy(out, at);
  }
  let from = tailStart;
  for (let left = marks; left > 0; left--) {
    const mark = bytes.indexOf(PUBLIC_URL_MARK, from);
    at += bytes.copy(out, at, from, mark);
    at += publicUrl.copy(out, at);
    from = mark + 1;
  }
  bytes.copy(out, at, from, tailEnd);
  return out;
}

/**
 * Where the title in the first language of the chain the song has starts
 * (its length, then its bytes), else the original's (contract section 3).
 * `titles` is where the first title's tag starts: the original's, empty.
 */
function chosenTitle(bytes: Buffer, titles: number, count: number, chain: readonly string[]): number {
  for (const tag of chain) {
    let at = titles;
    for (let i = 0; i < count; i++) {
      const tagLength = bytes.readUInt32LE(at);
      const json = at + 4 + tagLength;
      if (i > 0 && tagLength === tag.length && sameLatin1(bytes, at + 4, tag)) return json;
      at = json + 4 + bytes.readUInt32LE(json);
    }
  }
  return titles + 4 + bytes.readUInt32LE(titles);
}

/** True when bytes[at, at + text.length) are `text`'s code units (a language tag: ASCII). Video title templates match tags with it too. */
export function sameLatin1(bytes: Buffer, at: number, text: string): boolean {
  for (let i = 0; i < text.length; i++) if (bytes[at + i] !== text.charCodeAt(i)) return false;
  return true;
}
