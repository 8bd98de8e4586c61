import { createHash } from 'node:crypto';
import { withoutForbiddenCharacters } from '../text/forbidden-characters.ts';

/**
 * Artwork the server draws itself: a square SVG whose motif and colours
 * follow from the id, so the same item always looks the same, and each
 * album looks like no other. The demo catalog points its covers and portraits here.
 *
 * Catalog image URLs may be relative to the server (`/artwork/...`): they are
 * resolved against MAQAM_PUBLIC_URL when an item is rendered, so stored
 * catalogs keep working when the port or public URL changes.
 */

const XML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };
/** Text as XML holds it: markup escaped, and what XML cannot hold at all (control characters, lone surrogates) dropped. */
const escapeXml = (text: string) => withoutForbiddenCharacters(text).replace(/[&<>"']/g, (c) => XML_ESCAPES[c]!);

/**
 * A drawn picture says nothing in any language: no initials, which showed
 * Arabic letters to a listener reading English. A cover is one of a few
 * motifs of Arab visual art and music (an eight-pointed star rosette, a
 * field of small stars, a melodic line over a staff, arches, a sun over
 * dunes), in colours that follow from the album's id; a portrait is a
 * figure in a round frame on a ground of the artist's colours.
 */
type Motif = (hash: Buffer, ink: string, accent: string) => string;

const fixed = (n: number) => n.toFixed(1);

/** An eight-pointed star (two squares, one turned by 45 degrees) of radius `r` around (x, y). */
const star = (x: number, y: number, r: number, style: string) => {
  const points = Array.from({ length: 16 }, (_, i) => {
    const radius = i % 2 === 0 ? r : r * 0.62;
    const angle = (Math.PI * i) / 8 - Math.PI / 2;
    return `${fixed(x + radius * Math.cos(angle))},${fixed(y + radius * Math.sin(angle))}`;
  });
  return `<polygon points="${points.join(' ')}" ${style}/>`;
};

const MOTIFS: readonly Motif[] = [
  // A rosette: stars inside stars, turned a little each ring.
  (hash, ink, accent) => [130, 98, 66, 34].map((r, i) =>
    `<g transform="rotate(${(i * (hash[5]! % 23)).toFixed(0)} 150 150)">${star(150, 150, r, `fill="${i % 2 ? accent : 'none'}" fill-opacity="${i % 2 ? '.35' : '1'}" stroke="${ink}" stroke-width="3"`)}</g>`).join(''),
  // A field of small stars, some lit.
  (hash, ink, accent) => Array.from({ length: 25 }, (_, i) => {
    const x = 30 + (i % 5) * 60;
    const y = 30 + Math.floor(i / 5) * 60;
    const lit = (hash[6 + (i % 20)]! & 3) === 0;
    return star(x, y, 22, lit ? `fill="${accent}"` : `fill="none" stroke="${ink}" stroke-width="2" stroke-opacity=".7"`);
  }).join(''),
  // A melodic line over a staff, its contour from the id.
  (hash, ink, accent) => {
    const staff = [110, 130, 150, 170, 190].map((y) => `<line x1="20" x2="280" y1="${y}" y2="${y}" stroke="${ink}" stroke-opacity=".35" stroke-width="2"/>`).join('');
    const points = Array.from({ length: 14 }, (_, i) => `${fixed(20 + i * 20)},${fixed(90 + (hash[8 + i]! % 120))}`);
    return `${staff}<polyline points="${points.join(' ')}" fill="none" stroke="${accent}" stroke-width="6" stroke-linejoin="round" stroke-linecap="round"/>` +
      points.filter((_, i) => i % 3 === 0).map((p) => `<circle cx="${p.split(',')[0]}" cy="${p.split(',')[1]}" r="9" fill="${ink}"/>`).join('');
  },
  // Arches, as of a colonnade.
  (hash, ink, accent) => Array.from({ length: 3 }, (_, i) => {
    const x = 30 + i * 85;
    return `<path d="M${x} 270 V140 Q${x + 40} ${60 + (hash[7 + i]! % 30)} ${x + 80} 140 V270" fill="${i === 1 ? accent : 'none'}" fill-opacity=".45" stroke="${ink}" stroke-width="4"/>`;
  }).join(''),
  // A sun over dunes.
  (hash, ink, accent) => `<circle cx="${150 + (hash[9]! % 80) - 40}" cy="115" r="58" fill="${accent}"/>` +
    [190, 220, 250].map((y, i) => `<path d="M0 ${y} Q75 ${y - 40 + i * 6} 150 ${y} T300 ${y} V300 H0Z" fill="${ink}" fill-opacity="${(0.25 + i * 0.2).toFixed(2)}"/>`).join(''),
];

/** The drawing of a cover or portrait on a 300 by 300 canvas; `gradient` names its gradient, unique within the document that holds it. */
function artworkShapes(kind: 'artists' | 'albums', id: string, gradient: string): string {
  const hash = createHash('sha256').update(`${kind}/${id}`).digest();
  const hue = (hash[0]! * 360) / 256;
  const hue2 = (hue + 40 + (hash[1]! % 80)) % 360;
  const from = `hsl(${hue.toFixed(0)} 55% 38%)`;
  const to = `hsl(${hue2.toFixed(0)} 60% 20%)`;
  const accent = `hsl(${((hue + 180 + (hash[2]! % 60)) % 360).toFixed(0)} 75% 62%)`;
  const ink = 'hsl(40 60% 92%)';
  const ground = `<defs><linearGradient id="${gradient}" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="${from}"/><stop offset="1" stop-color="${to}"/></linearGradient></defs>`;
  if (kind === 'artists') {
    // Round, so a portrait and a cover read apart at a glance.
    return ground + `<circle cx="150" cy="150" r="150" fill="url(#${gradient})"/>` +
      `<circle cx="150" cy="150" r="138" fill="none" stroke="${accent}" stroke-opacity=".5" stroke-width="4" stroke-dasharray="${4 + (hash[3]! % 10)} 8"/>` +
      `<circle cx="150" cy="122" r="46" fill="${ink}" fill-opacity=".9"/><path d="M62 262 Q68 182 150 180 Q232 182 238 262 Z" fill="${ink}" fill-opacity=".9"/>`;
  }
  return ground + `<rect width="300" height="300" fill="url(#${gradient})"/>` + MOTIFS[hash[4]! % MOTIFS.length]!(hash, ink, accent);
}

export function artworkSvg(kind: 'artists' | 'albums', id: string, name: string): string {
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 300 300" width="300" height="300" role="img" aria-label="${escapeXml(name)}">` +
    artworkShapes(kind, id, 'g') +
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
    return `<svg x="${x}" y="${y}" width="${size}" height="${size}" viewBox="0 0 300 300">${artworkShapes('albums', tile.id, `g${i}`)}</svg>`;
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
