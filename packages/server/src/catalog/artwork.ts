import { createHash } from 'node:crypto';
import { withoutForbiddenCharacters } from '../text/forbidden-characters.ts';

/**
 * Artwork the server draws itself: a square SVG with the initials of a name
 * over a gradient whose colours follow from the id, so the same item always
 * looks the same. The demo catalog points its covers and portraits here.
 *
 * Catalog image URLs may be relative to the server (`/artwork/...`): they are
 * resolved against MAQAM_PUBLIC_URL when an item is rendered, so stored
 * catalogs keep working when the port or public URL changes.
 */

const XML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };
/** Text as XML holds it: markup escaped, and what XML cannot hold at all (control characters, lone surrogates) dropped. */
const escapeXml = (text: string) => withoutForbiddenCharacters(text).replace(/[&<>"']/g, (c) => XML_ESCAPES[c]!);

/** Up to two initials: the first letter of the first two words (Arabic "ال" skipped as Arabic covers do). */
export function initialsOf(name: string): string {
  const words = name.trim().split(/\s+/).filter(Boolean);
  const letters = words.slice(0, 2).map((word) => {
    const bare = word.startsWith('ال') && word.length > 2 ? word.slice(2) : word;
    return [...bare.replace(/^[^\p{L}\p{N}]+/u, '')][0] ?? '';
  });
  return letters.join(letters.every((l) => /\p{Script=Arabic}/u.test(l)) ? ' ' : '').toUpperCase();
}

/** The drawing of a cover or portrait on a 300 by 300 canvas; `gradient` names its gradient, unique within the document that holds it. */
function artworkShapes(kind: 'artists' | 'albums', id: string, name: string, gradient: string): string {
  const hash = createHash('sha256').update(`${kind}/${id}`).digest();
  const hue = (hash[0]! * 360) / 256;
  const hue2 = (hue + 40 + (hash[1]! % 80)) % 360;
  const from = `hsl(${hue.toFixed(0)} 55% 38%)`;
  const to = `hsl(${hue2.toFixed(0)} 60% 22%)`;
  const initials = escapeXml(initialsOf(name));
  // Portraits are round, covers square with a record's groove, so the two read apart at a glance.
  const shape = kind === 'artists'
    ? `<circle cx="150" cy="150" r="150" fill="url(#${gradient})"/>`
    : `<rect width="300" height="300" fill="url(#${gradient})"/><circle cx="150" cy="150" r="118" fill="none" stroke="#fff" stroke-opacity=".12" stroke-width="2"/>`;
  return (
    `<defs><linearGradient id="${gradient}" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="${from}"/><stop offset="1" stop-color="${to}"/></linearGradient></defs>` +
    shape +
    `<text x="150" y="150" dy=".35em" text-anchor="middle" font-family="system-ui, 'Noto Sans Arabic', sans-serif" font-size="92" font-weight="600" fill="#fff" fill-opacity=".92">${initials}</text>`
  );
}

export function artworkSvg(kind: 'artists' | 'albums', id: string, name: string): string {
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 300 300" width="300" height="300" role="img" aria-label="${escapeXml(name)}">` +
    artworkShapes(kind, id, name, 'g') +
    `</svg>`
  );
}

/** An album's cover in a mosaic: its name, and the image `maqam media scan` kept for it if there is one (else it is drawn). */
export interface MosaicTile {
  readonly id: string;
  readonly name: string;
  readonly jpeg?: Buffer | undefined;
}

/**
 * A playlist's cover: one album's cover, or four in a 2 by 2 grid, each the
 * album's kept image or its drawn cover. Self-contained (images inline), as
 * an SVG shown through <img> loads nothing else.
 */
export function mosaicSvg(tiles: readonly MosaicTile[]): string {
  const size = tiles.length === 1 ? 300 : 150;
  const drawn = tiles.map((tile, i) => {
    const x = (i % 2) * size;
    const y = Math.floor(i / 2) * size;
    if (tile.jpeg !== undefined) {
      return `<image x="${x}" y="${y}" width="${size}" height="${size}" preserveAspectRatio="xMidYMid slice" href="data:image/jpeg;base64,${tile.jpeg.toString('base64')}"/>`;
    }
    return `<svg x="${x}" y="${y}" width="${size}" height="${size}" viewBox="0 0 300 300">${artworkShapes('albums', tile.id, tile.name, `g${i}`)}</svg>`;
  });
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 300 300" width="300" height="300" role="img" aria-label="${escapeXml(tiles.map((tile) => tile.name).join(' · '))}">` +
    drawn.join('') +
    `</svg>`
  );
}

/** Resolves server-relative image URLs (`"url":"/...`) in stored image JSON against the public URL. */
export function resolveImageUrls(imagesJson: string, publicUrl: string): string {
  return imagesJson.includes('"url":"/') ? imagesJson.replaceAll('"url":"/', `"url":${JSON.stringify(publicUrl).slice(0, -1)}/`) : imagesJson;
}
