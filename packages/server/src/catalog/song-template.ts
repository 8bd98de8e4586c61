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
 *   length, head bytes          `"<id>":{"song":{"id":{"value":"<id>"},"title":`
 *   count, then per title       length, language tag (ASCII); length, LocalizedString bytes
 *                               (the first has an empty tag: the original, the fallback)
 *   count, then per artist      length, artist id (UTF-8)
 *   length, tail bytes          `],"albumId":...,"previewUrl":"..."}}`
 */

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
  // Every part is a u32 length and its bytes (a tag is ASCII, written as latin1), plus the two counts.
  let size = 4 + Buffer.byteLength(head) + 4 + 4 + 4 + Buffer.byteLength(tail);
  for (const [tag, json] of titles) size += 8 + tag.length + Buffer.byteLength(json);
  for (const id of artistIds) size += 4 + Buffer.byteLength(id);
  const bytes = Buffer.allocUnsafe(size);
  let at = 0;
  const text = (value: string, encoding: 'utf8' | 'latin1' = 'utf8') => {
    const length = bytes.write(value, at + 4, encoding);
    bytes.writeUInt32LE(length, at);
    at += 4 + length;
  };
  const count = (value: number) => {
    bytes.writeUInt32LE(value, at);
    at += 4;
  };
  text(head);
  count(titles.length);
  for (const [tag, json] of titles) {
    text(tag, 'latin1');
    text(json);
  }
  count(artistIds.length);
  for (const id of artistIds) text(id);
  text(tail);
  if (at !== size) throw new Error(`song template of ${row.id}: wrote ${at} of ${size} bytes`);
  return bytes;
}

/** A template read back: its song's id, and views into its bytes. */
export interface SongTemplate {
  readonly id: string;
  readonly head: Buffer;
  readonly titles: readonly { readonly tag: string; readonly bytes: Buffer }[];
  readonly artistIds: readonly string[];
  readonly tail: Buffer;
}

/** The templates in `bytes`, which holds any number of them one after another (each says where it ends). */
export function parseSongTemplates(bytes: Buffer): SongTemplate[] {
  const templates: SongTemplate[] = [];
  let at = 0;
  const u32 = () => ((at += 4), bytes.readUInt32LE(at - 4));
  const block = () => {
    const length = u32();
    if (at + length > bytes.length) throw new RangeError('a song template ends past its bytes');
    return bytes.subarray(at, (at += length));
  };
  while (at < bytes.length) {
    const head = block();
    const titles: { tag: string; bytes: Buffer }[] = [];
    for (let count = u32(); count > 0; count--) titles.push({ tag: block().toString('latin1'), bytes: block() });
    const artistIds: string[] = [];
    for (let count = u32(); count > 0; count--) artistIds.push(block().toString('utf8'));
    const tail = block();
    templates.push({ id: keyOf(head), head, titles, artistIds, tail });
  }
  return templates;
}

/** The id a head starts with, JSON-quoted: `"<id>":`. */
function keyOf(head: Buffer): string {
  let escaped = false;
  for (let end = 1; end < head.length; end++) {
    if (head[end] === 0x5c) {
      escaped = true;
      end++; // the escaped character, which may be a quote
    } else if (head[end] === 0x22) {
      return escaped ? (JSON.parse(head.toString('utf8', 0, end + 1)) as string) : head.toString('utf8', 1, end);
    }
  }
  throw new RangeError('a song template head without its key');
}

/**
 * The keyed SongResult for a locale chain. `artistRef` gives an artist's
 * rendered SongArtistRef, or undefined for one not (or no longer) in the
 * catalog, which is left out as the row renderer did. `publicUrl` is the
 * JSON-escaped public URL, without quotes.
 */
export function expandSongTemplate(
  template: SongTemplate,
  chain: readonly string[],
  artistRef: (id: string) => Buffer | undefined,
  publicUrl: Buffer,
): Buffer {
  const title = chosenTitle(template.titles, chain);
  const refs: Buffer[] = [];
  let size = template.head.length + title.length + ARTISTS_OPEN.length + template.tail.length;
  for (const id of template.artistIds) {
    const ref = artistRef(id);
    if (ref === undefined) continue;
    refs.push(ref);
    size += ref.length + (refs.length > 1 ? 1 : 0);
  }
  const marks: number[] = [];
  for (let mark = template.tail.indexOf(PUBLIC_URL_MARK); mark !== -1; mark = template.tail.indexOf(PUBLIC_URL_MARK, mark + 1)) marks.push(mark);
  size += marks.length * (publicUrl.length - 1);

  const out = Buffer.allocUnsafe(size);
  let at = template.head.copy(out, 0);
  at += title.copy(out, at);
  at += ARTISTS_OPEN.copy(out, at);
  for (let i = 0; i < refs.length; i++) {
    if (i > 0) out[at++] = 0x2c; // ','
    at += refs[i]!.copy(out, at);
  }
  let from = 0;
  for (const mark of marks) {
    at += template.tail.copy(out, at, from, mark);
    at += publicUrl.copy(out, at);
    from = mark + 1;
  }
  template.tail.copy(out, at, from);
  return out;
}

/** The title in the first language of the chain the song has, else the original (contract section 3). */
function chosenTitle(titles: SongTemplate['titles'], chain: readonly string[]): Buffer {
  for (const tag of chain) {
    for (let i = 1; i < titles.length; i++) if (titles[i]!.tag === tag) return titles[i]!.bytes;
  }
  return titles[0]!.bytes;
}
