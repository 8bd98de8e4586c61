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

// ---- Video: posters, backdrops, stills and portraits ----

/**
 * A show's or film's picture is a scene chosen by its genres, as a poster
 * (2:3) or a wide picture (16:9: a backdrop, or an episode's still): lanterns
 * over domes for a Ramadan drama, palms in a sunburst for a Gulf comedy,
 * dunes and a caravan for a documentary, a lit skyline in the rain for a
 * thriller, and so on. Like the covers it holds no text. Its colours follow
 * from its `family` (a show's seasons and episodes share the show's), its
 * layout from its own id, so each episode's still differs and all of them
 * look like their show.
 */
export interface TitleArt {
  readonly id: string;
  /** The picture's accessible name. */
  readonly name: string;
  readonly genres: readonly string[];
  /** The title whose colours it shares: the show, for a season or episode; else the id itself. */
  readonly family: string;
  /** A season's number: its poster carries that many stars. */
  readonly ordinal?: number;
}

interface Palette {
  readonly top: string;
  readonly bottom: string;
  readonly ink: string;
  readonly accent: string;
  readonly glow: string;
  readonly light: string;
}

interface Canvas {
  readonly w: number;
  readonly h: number;
  /** The smaller side: sizes that must look alike on a poster and a wide picture. */
  readonly m: number;
  readonly p: Palette;
  /** The layout's random stream, from the picture's own id. */
  readonly r: () => number;
}

const hsl = (h: number, s: number, l: number) => `hsl(${(((h % 360) + 360) % 360).toFixed(0)} ${s}% ${l}%)`;

/** mulberry32 over the first word of a hash: the same id, the same layout. */
function layoutStream(hash: Buffer): () => number {
  let state = hash.readUInt32LE(0);
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const between = (c: Canvas, low: number, high: number) => low + (high - low) * c.r();

const verticalGradient = (id: string, stops: readonly (readonly [offset: number, colour: string, opacity?: number])[]) =>
  `<linearGradient id="${id}" x1="0" y1="0" x2="0" y2="1">${stops.map(([o, colour, opacity]) =>
    `<stop offset="${o}" stop-color="${colour}"${opacity === undefined ? '' : ` stop-opacity="${opacity}"`}/>`).join('')}</linearGradient>`;
const radialGlow = (id: string, colour: string) =>
  `<radialGradient id="${id}"><stop offset="0" stop-color="${colour}" stop-opacity=".75"/><stop offset="1" stop-color="${colour}" stop-opacity="0"/></radialGradient>`;
const sky = (c: Canvas) => `<defs>${verticalGradient('sky', [[0, c.p.top], [1, c.p.bottom]])}</defs><rect width="${c.w}" height="${c.h}" fill="url(#sky)"/>`;

/** A filled wave across the picture from height `y` down: dunes, hills. */
function wave(c: Canvas, y: number, amplitude: number, fill: string, opacity = 1): { path: string; at: (x: number) => number } {
  const phase = between(c, 0, Math.PI * 2);
  const cycles = between(c, 0.8, 1.8);
  const at = (x: number) => y + amplitude * Math.sin(phase + (x / c.w) * Math.PI * 2 * cycles);
  const points = Array.from({ length: 33 }, (_, i) => `${fixed((c.w * i) / 32)},${fixed(at((c.w * i) / 32))}`);
  return { path: `<path d="M${points.join(' L')} V${c.h} H0Z" fill="${fill}"${opacity === 1 ? '' : ` fill-opacity="${opacity}"`}/>`, at };
}

const stars = (c: Canvas, count: number, below: number) => Array.from({ length: count }, () =>
  `<circle cx="${fixed(between(c, 0, c.w))}" cy="${fixed(between(c, 0, c.h * below))}" r="${between(c, 0.5, 1.8).toFixed(2)}" fill="${c.p.light}" fill-opacity="${between(c, 0.3, 0.9).toFixed(2)}"/>`).join('');

/** A crescent moon: a disc with a smaller one taken out of it. */
const crescent = (c: Canvas, x: number, y: number, radius: number) =>
  `<defs>${radialGlow('moonGlow', c.p.glow)}<mask id="crescent"><circle cx="${fixed(x)}" cy="${fixed(y)}" r="${fixed(radius)}" fill="#fff"/>` +
  `<circle cx="${fixed(x + radius * 0.42)}" cy="${fixed(y - radius * 0.18)}" r="${fixed(radius * 0.86)}" fill="#000"/></mask></defs>` +
  `<circle cx="${fixed(x)}" cy="${fixed(y)}" r="${fixed(radius * 3)}" fill="url(#moonGlow)" opacity=".35"/>` +
  `<circle cx="${fixed(x)}" cy="${fixed(y)}" r="${fixed(radius)}" fill="${c.p.light}" mask="url(#crescent)"/>`;

/** A Ramadan lantern (fanous) hanging from the top of the picture on a string. */
function lantern(c: Canvas, x: number, y: number, s: number): string {
  const body = [[-0.35, 0.3], [-0.5, 0.9], [-0.35, 1.5], [0.35, 1.5], [0.5, 0.9], [0.35, 0.3]].map(([dx, dy]) => `${fixed(x + dx! * s)},${fixed(y + dy! * s)}`).join(' ');
  return `<line x1="${fixed(x)}" y1="0" x2="${fixed(x)}" y2="${fixed(y)}" stroke="${c.p.light}" stroke-opacity=".45" stroke-width="1.2"/>` +
    `<circle cx="${fixed(x)}" cy="${fixed(y + s * 0.9)}" r="${fixed(s * 1.7)}" fill="url(#lampGlow)"/>` +
    `<polygon points="${fixed(x - s * 0.38)},${fixed(y + s * 0.3)} ${fixed(x)},${fixed(y)} ${fixed(x + s * 0.38)},${fixed(y + s * 0.3)}" fill="${c.p.accent}"/>` +
    `<polygon points="${body}" fill="${c.p.glow}" fill-opacity=".92" stroke="${c.p.accent}" stroke-width="${fixed(s * 0.07)}" stroke-linejoin="round"/>` +
    `<path d="M${fixed(x)} ${fixed(y + s * 0.3)} V${fixed(y + s * 1.5)} M${fixed(x - s * 0.5)} ${fixed(y + s * 0.9)} H${fixed(x + s * 0.5)}" stroke="${c.p.accent}" stroke-width="${fixed(s * 0.05)}"/>` +
    `<polygon points="${fixed(x - s * 0.22)},${fixed(y + s * 1.5)} ${fixed(x)},${fixed(y + s * 1.85)} ${fixed(x + s * 0.22)},${fixed(y + s * 1.5)}" fill="${c.p.accent}"/>`;
}

/** Domes and minarets along the bottom of the picture, from height `base`. */
function domesAndMinarets(c: Canvas, base: number, fill: string): string {
  const shapes: string[] = [`<rect x="0" y="${fixed(base)}" width="${c.w}" height="${fixed(c.h - base)}" fill="${fill}"/>`];
  for (let x = -c.m * 0.05; x < c.w;) {
    const kind = c.r();
    if (kind < 0.3) {
      const width = c.m * 0.035;
      const top = base - between(c, 0.28, 0.42) * c.m;
      shapes.push(`<path d="M${fixed(x)} ${fixed(base)} V${fixed(top)} L${fixed(x + width / 2)} ${fixed(top - width * 2.2)} L${fixed(x + width)} ${fixed(top)} V${fixed(base)}Z" fill="${fill}"/>` +
        `<rect x="${fixed(x - width * 0.3)}" y="${fixed(top + c.m * 0.06)}" width="${fixed(width * 1.6)}" height="${fixed(c.m * 0.012)}" fill="${fill}"/>`);
      x += width + c.m * 0.04;
    } else {
      const width = between(c, 0.14, 0.24) * c.m;
      const wall = base - between(c, 0.06, 0.16) * c.m;
      shapes.push(`<rect x="${fixed(x)}" y="${fixed(wall)}" width="${fixed(width)}" height="${fixed(base - wall + 1)}" fill="${fill}"/>`);
      if (kind < 0.75) {
        const radius = width * between(c, 0.3, 0.45);
        const cx = x + width / 2;
        shapes.push(`<path d="M${fixed(cx - radius)} ${fixed(wall)} A${fixed(radius)} ${fixed(radius * 1.1)} 0 0 1 ${fixed(cx + radius)} ${fixed(wall)}Z" fill="${fill}"/>` +
          `<line x1="${fixed(cx)}" y1="${fixed(wall - radius * 1.1)}" x2="${fixed(cx)}" y2="${fixed(wall - radius * 1.5)}" stroke="${fill}" stroke-width="2"/>`);
      }
      x += width;
    }
  }
  return shapes.join('');
}

/** A camel walking right, feet on (x, y), `s` wide. */
const camel = (x: number, y: number, s: number, fill: string) => {
  const points = [
    [2, 14], [4, 8], [10, 9], [14, 2], [19, 9], [22, 6], [25, 10], [30, 10], [31, 3], [35, 2], [38, 3], [38, 5], [35, 5], [34, 10], [33, 14], [32, 16],
    [32, 30], [30, 30], [29, 17], [24, 17], [23, 30], [21, 30], [20, 17], [13, 17], [12, 30], [10, 30], [9, 17], [6, 17], [5, 30], [3, 30], [3, 17], [1, 16],
  ];
  return `<polygon points="${points.map(([px, py]) => `${fixed(x + (px! / 40) * s)},${fixed(y - ((30 - py!) / 40) * s)}`).join(' ')}" fill="${fill}" stroke="${fill}" stroke-linejoin="round"/>`;
};

/** A palm: a leaning trunk and drooping fronds. */
function palm(c: Canvas, x: number, ground: number, height: number, lean: number): string {
  const top = [x + lean, ground - height] as const;
  const fronds = Array.from({ length: 8 }, (_, i) => {
    const angle = -Math.PI + (Math.PI * (i + 0.5)) / 8 + between(c, -0.15, 0.15);
    const length = height * between(c, 0.35, 0.5);
    const end = [top[0] + Math.cos(angle) * length, top[1] + Math.sin(angle) * length * 0.6 + length * 0.45];
    const control = [top[0] + Math.cos(angle) * length * 0.6, top[1] + Math.sin(angle) * length * 0.7 - length * 0.1];
    return `<path d="M${fixed(top[0])} ${fixed(top[1])} Q${fixed(control[0]!)} ${fixed(control[1]!)} ${fixed(end[0]!)} ${fixed(end[1]!)}" stroke="${c.p.ink}" stroke-width="${fixed(height * 0.05)}" fill="none" stroke-linecap="round"/>`;
  });
  return `<path d="M${fixed(x)} ${fixed(ground)} Q${fixed(x + lean * 0.2)} ${fixed(ground - height * 0.55)} ${fixed(top[0])} ${fixed(top[1])}" stroke="${c.p.ink}" stroke-width="${fixed(height * 0.06)}" fill="none" stroke-linecap="round"/>` +
    fronds.join('') + [-1, 0, 1].map((d) => `<circle cx="${fixed(top[0] + d * height * 0.04)}" cy="${fixed(top[1] + height * 0.06)}" r="${fixed(height * 0.03)}" fill="${c.p.accent}"/>`).join('');
}

type Scene = (c: Canvas) => string;
type SceneName = 'lanterns' | 'skyline' | 'dunes' | 'palms' | 'rooftops' | 'playground' | 'stage' | 'mashrabiya';

const SCENES: Record<SceneName, { readonly hues: readonly [number, number]; readonly palette: (hue: number) => Palette; readonly draw: Scene }> = {
  // A Ramadan night: a crescent, stars, lanterns on strings, domes and minarets.
  lanterns: {
    hues: [150, 290],
    palette: (h) => ({ top: hsl(h, 60, 10), bottom: hsl(h + 25, 45, 30), ink: hsl(h, 50, 6), accent: hsl(40, 85, 55), glow: hsl(45, 100, 70), light: hsl(45, 70, 92) }),
    draw: (c) => {
      const count = c.w > c.h ? 5 : 3 + Math.floor(c.r() * 2);
      const lamps = Array.from({ length: count }, (_, i) => lantern(c, (c.w * (i + 0.5 + between(c, -0.2, 0.2))) / count, between(c, 0.08, 0.3) * c.h, between(c, 0.07, 0.1) * c.m));
      return sky(c) + `<defs>${radialGlow('lampGlow', c.p.glow)}</defs>` + stars(c, 45, 0.7) + crescent(c, c.w * between(c, 0.62, 0.82), c.h * 0.16, c.m * 0.08) +
        lamps.join('') + domesAndMinarets(c, c.h * 0.86, c.p.ink);
    },
  },
  // A city at night in the rain: two rows of buildings, a few windows lit, a glow on the horizon.
  skyline: {
    hues: [170, 262],
    palette: (h) => ({ top: hsl(h, 45, 7), bottom: hsl(h, 40, 20), ink: hsl(h, 40, 4), accent: hsl(h, 30, 80), glow: hsl(Math.round(h) % 2 ? 355 : 30, 90, 50), light: hsl(42, 90, 72) }),
    draw: (c) => {
      const layer = (base: number, low: number, high: number, fill: string, windows: boolean) => {
        const shapes: string[] = [];
        for (let x = -5; x < c.w;) {
          const width = between(c, 0.08, 0.17) * c.m;
          const top = base - between(c, low, high) * c.h;
          shapes.push(`<rect x="${fixed(x)}" y="${fixed(top)}" width="${fixed(width + 1)}" height="${fixed(c.h - top)}" fill="${fill}"/>`);
          if (c.r() < 0.25) shapes.push(`<line x1="${fixed(x + width / 2)}" y1="${fixed(top)}" x2="${fixed(x + width / 2)}" y2="${fixed(top - c.m * 0.06)}" stroke="${fill}" stroke-width="2"/>`);
          if (windows) {
            for (let wy = top + c.m * 0.025; wy < c.h - c.m * 0.03; wy += c.m * 0.035) {
              for (let wx = x + width * 0.15; wx < x + width * 0.8; wx += width * 0.22) {
                if (c.r() < 0.16) shapes.push(`<rect x="${fixed(wx)}" y="${fixed(wy)}" width="${fixed(width * 0.12)}" height="${fixed(c.m * 0.018)}" fill="${c.p.light}" fill-opacity="${between(c, 0.45, 0.9).toFixed(2)}"/>`);
              }
            }
          }
          x += width + between(c, 0, 0.02) * c.m;
        }
        return shapes.join('');
      };
      const rain = Array.from({ length: 70 }, () => {
        const x = between(c, 0, c.w + c.h * 0.2);
        const y = between(c, 0, c.h);
        return `<line x1="${fixed(x)}" y1="${fixed(y)}" x2="${fixed(x - c.m * 0.03)}" y2="${fixed(y + c.m * 0.1)}" stroke="${c.p.accent}" stroke-opacity=".18" stroke-width="1"/>`;
      }).join('');
      const moon = [c.w * between(c, 0.25, 0.75), c.h * between(c, 0.14, 0.24)] as const;
      return sky(c) + `<defs>${radialGlow('horizon', c.p.glow)}${radialGlow('haze', c.p.accent)}</defs>` + stars(c, 14, 0.4) +
        `<circle cx="${fixed(moon[0])}" cy="${fixed(moon[1])}" r="${fixed(c.m * 0.3)}" fill="url(#haze)" opacity=".35"/>` +
        `<circle cx="${fixed(moon[0])}" cy="${fixed(moon[1])}" r="${fixed(c.m * 0.1)}" fill="${c.p.accent}" fill-opacity=".85"/>` +
        `<ellipse cx="${fixed(c.w * between(c, 0.3, 0.7))}" cy="${fixed(c.h * 0.6)}" rx="${fixed(c.w * 0.6)}" ry="${fixed(c.h * 0.3)}" fill="url(#horizon)" opacity=".5"/>` +
        `<g opacity=".55">${layer(c.h, 0.3, 0.55, hsl(210, 30, 14), false)}</g>` + layer(c.h, 0.15, 0.4, c.p.ink, true) + rain;
    },
  },
  // The desert at sunset: a striped sun, dunes, a caravan on the middle crest.
  dunes: {
    hues: [8, 36],
    palette: (h) => ({ top: hsl(h + 330, 55, 38), bottom: hsl(h + 10, 85, 62), ink: hsl(h + 340, 45, 16), accent: hsl(h + 20, 95, 68), glow: hsl(45, 100, 75), light: hsl(40, 80, 92) }),
    draw: (c) => {
      const sunX = c.w * between(c, 0.3, 0.7);
      const sunY = c.h * 0.5;
      const radius = c.m * 0.2;
      const stripes = [0.25, 0.45, 0.62].map((t, i) =>
        `<rect x="${fixed(sunX - radius)}" y="${fixed(sunY + radius * t)}" width="${fixed(radius * 2)}" height="${fixed(radius * (0.05 + i * 0.03))}" fill="${c.p.bottom}"/>`).join('');
      const far = wave(c, c.h * 0.66, c.m * 0.04, c.p.ink, 0.45);
      const middle = wave(c, c.h * 0.74, c.m * 0.05, c.p.ink, 0.7);
      const near = wave(c, c.h * 0.86, c.m * 0.04, c.p.ink);
      const caravan = Array.from({ length: 3 + Math.floor(c.r() * 3) }, (_, i) => {
        const x = c.w * 0.2 + i * c.m * 0.11;
        return camel(x, middle.at(x + c.m * 0.04) + 2, c.m * 0.09, c.p.ink);
      }).join('');
      return sky(c) + `<defs>${radialGlow('sunGlow', c.p.glow)}</defs>` + stars(c, 12, 0.3) +
        `<circle cx="${fixed(sunX)}" cy="${fixed(sunY)}" r="${fixed(radius * 2.2)}" fill="url(#sunGlow)" opacity=".5"/>` +
        `<circle cx="${fixed(sunX)}" cy="${fixed(sunY)}" r="${fixed(radius)}" fill="${c.p.accent}"/>` + stripes + far.path + middle.path + caravan + near.path;
    },
  },
  // A Gulf afternoon: a sunburst, the sun, palms leaning in from the sides.
  palms: {
    hues: [24, 44],
    palette: (h) => ({ top: hsl(h + 10, 90, 64), bottom: hsl(h - 12, 85, 52), ink: hsl(h - 10, 55, 18), accent: hsl(h - 20, 80, 35), glow: hsl(50, 100, 80), light: hsl(48, 100, 88) }),
    draw: (c) => {
      const cx = c.w / 2;
      const cy = c.h * 0.66;
      const reach = Math.hypot(c.w, c.h);
      const rays = Array.from({ length: 18 }, (_, i) => {
        const a1 = (Math.PI * 2 * i) / 18;
        const a2 = a1 + Math.PI / 18;
        return `<polygon points="${fixed(cx)},${fixed(cy)} ${fixed(cx + Math.cos(a1) * reach)},${fixed(cy + Math.sin(a1) * reach)} ${fixed(cx + Math.cos(a2) * reach)},${fixed(cy + Math.sin(a2) * reach)}" fill="${c.p.light}" fill-opacity=".16"/>`;
      }).join('');
      const ground = wave(c, c.h * 0.84, c.m * 0.015, c.p.ink);
      const trees = [
        palm(c, c.w * between(c, 0.04, 0.14), c.h * 0.86, c.m * between(c, 0.5, 0.62), c.m * 0.12),
        palm(c, c.w * between(c, 0.86, 0.96), c.h * 0.86, c.m * between(c, 0.42, 0.55), -c.m * 0.1),
        ...(c.w > c.h ? [palm(c, c.w * 0.22, c.h * 0.86, c.m * 0.34, c.m * 0.05)] : []),
      ];
      return sky(c) + rays + `<circle cx="${fixed(cx)}" cy="${fixed(cy)}" r="${fixed(c.m * 0.2)}" fill="${c.p.glow}"/>` + ground.path + trees.join('');
    },
  },
  // Rooftops at dusk: water tanks and dishes, a moon, strings of coloured lights between the roofs.
  rooftops: {
    hues: [250, 350],
    palette: (h) => ({ top: hsl(h, 45, 22), bottom: hsl(h + 40, 75, 66), ink: hsl(h, 40, 12), accent: hsl(h + 60, 85, 65), glow: hsl(45, 100, 75), light: hsl(45, 90, 90) }),
    draw: (c) => {
      const roofs: { x: number; top: number; width: number }[] = [];
      const shapes: string[] = [];
      for (let x = -4; x < c.w;) {
        const width = between(c, 0.16, 0.3) * c.m;
        const top = c.h * between(c, 0.58, 0.78);
        roofs.push({ x, top, width });
        shapes.push(`<rect x="${fixed(x)}" y="${fixed(top)}" width="${fixed(width + 1)}" height="${fixed(c.h - top)}" fill="${c.p.ink}"/>`);
        if (c.r() < 0.55) {
          const tx = x + width * between(c, 0.15, 0.6);
          const size = c.m * 0.05;
          shapes.push(`<rect x="${fixed(tx)}" y="${fixed(top - size)}" width="${fixed(size)}" height="${fixed(size)}" fill="${c.p.ink}"/>` +
            `<line x1="${fixed(tx + size * 0.2)}" y1="${fixed(top - size)}" x2="${fixed(tx + size * 0.2)}" y2="${fixed(top - size * 1.6)}" stroke="${c.p.ink}" stroke-width="2"/>`);
        }
        if (c.r() < 0.4) {
          const dx = x + width * 0.8;
          shapes.push(`<path d="M${fixed(dx - c.m * 0.025)} ${fixed(top - c.m * 0.035)} A${fixed(c.m * 0.03)} ${fixed(c.m * 0.03)} 0 0 0 ${fixed(dx + c.m * 0.02)} ${fixed(top - c.m * 0.005)}Z" fill="${c.p.ink}"/>`);
        }
        for (let n = 0; n < 3; n++) {
          if (c.r() < 0.5) shapes.push(`<rect x="${fixed(x + width * between(c, 0.1, 0.8))}" y="${fixed(top + between(c, 0.04, 0.25) * c.h)}" width="${fixed(c.m * 0.025)}" height="${fixed(c.m * 0.035)}" fill="${c.p.glow}" fill-opacity=".8"/>`);
        }
        x += width;
      }
      const bulbs = [c.p.glow, c.p.accent, hsl(175, 70, 60), hsl(350, 85, 70)];
      const strings = [0, 1].map((k) => {
        const a = roofs[Math.min(roofs.length - 1, k)]!;
        const b = roofs[Math.max(0, roofs.length - 1 - k)]!;
        // On poles over two roofs, sagging between them.
        const x1 = Math.max(a.x + a.width * 0.5, c.w * 0.06);
        const x2 = Math.min(b.x + b.width * 0.5, c.w * 0.94);
        const y1 = a.top - c.h * (0.14 - k * 0.05);
        const y2 = b.top - c.h * (0.12 - k * 0.04);
        const cy = Math.max(y1, y2) + c.h * (0.1 + k * 0.04);
        const at = (t: number) => [(1 - t) ** 2 * x1 + 2 * (1 - t) * t * ((x1 + x2) / 2) + t * t * x2, (1 - t) ** 2 * y1 + 2 * (1 - t) * t * cy + t * t * y2] as const;
        const lights = Array.from({ length: 15 }, (_, i) => {
          const [x, y] = at((i + 0.5) / 15);
          return `<circle cx="${fixed(x)}" cy="${fixed(y + 3)}" r="${fixed(c.m * 0.009)}" fill="${bulbs[(i + k) % bulbs.length]}"/>`;
        });
        return `<path d="M${fixed(x1)} ${fixed(a.top)} V${fixed(y1)} Q${fixed((x1 + x2) / 2)} ${fixed(cy)} ${fixed(x2)} ${fixed(y2)} V${fixed(b.top)}" stroke="${c.p.ink}" stroke-width="1.5" fill="none"/>${lights.join('')}`;
      });
      return sky(c) + `<defs>${radialGlow('moonGlow', c.p.glow)}</defs>` + stars(c, 20, 0.4) +
        `<circle cx="${fixed(c.w * between(c, 0.2, 0.8))}" cy="${fixed(c.h * 0.22)}" r="${fixed(c.m * 0.22)}" fill="url(#moonGlow)" opacity=".5"/>` +
        `<circle cx="${fixed(c.w * 0.5)}" cy="${fixed(c.h * 0.22)}" r="${fixed(c.m * 0.08)}" fill="${c.p.light}"/>` + shapes.join('') + strings.join('');
    },
  },
  // A bright day for children: a sun, clouds, hills, a kite and stars of every colour.
  playground: {
    hues: [186, 214],
    palette: (h) => ({ top: hsl(h, 75, 62), bottom: hsl(h + 10, 80, 88), ink: hsl(130, 45, 32), accent: hsl(h + 160, 90, 60), glow: hsl(48, 100, 62), light: hsl(0, 0, 100) }),
    draw: (c) => {
      const cloud = (x: number, y: number, s: number) => [[0, 0, 1], [0.9, -0.35, 0.8], [1.7, 0, 0.9], [0.8, 0.2, 0.9]].map(([dx, dy, k]) =>
        `<circle cx="${fixed(x + dx! * s)}" cy="${fixed(y + dy! * s)}" r="${fixed(s * k!)}" fill="${c.p.light}" fill-opacity=".92"/>`).join('');
      const sun = [c.w * 0.16, c.h * 0.12] as const;
      const sunRays = Array.from({ length: 12 }, (_, i) => {
        const a = (Math.PI * 2 * i) / 12;
        return `<line x1="${fixed(sun[0] + Math.cos(a) * c.m * 0.11)}" y1="${fixed(sun[1] + Math.sin(a) * c.m * 0.11)}" x2="${fixed(sun[0] + Math.cos(a) * c.m * 0.15)}" y2="${fixed(sun[1] + Math.sin(a) * c.m * 0.15)}" stroke="${c.p.glow}" stroke-width="${fixed(c.m * 0.015)}" stroke-linecap="round"/>`;
      }).join('');
      const colours = [hsl(350, 85, 62), hsl(45, 100, 58), hsl(280, 60, 62), hsl(150, 60, 50), c.p.accent];
      const toys = Array.from({ length: 4 }, (_, i) => star(between(c, 0.1, 0.9) * c.w, between(c, 0.3, 0.6) * c.h, c.m * between(c, 0.04, 0.07),
        `fill="${colours[i % colours.length]}" stroke="${c.p.light}" stroke-width="2" stroke-linejoin="round"`)).join('');
      const kx = c.w * between(c, 0.6, 0.8);
      const ky = c.h * 0.24;
      const k = c.m * 0.07;
      const kite = `<polygon points="${fixed(kx)},${fixed(ky - k)} ${fixed(kx + k * 0.7)},${fixed(ky)} ${fixed(kx)},${fixed(ky + k * 1.3)} ${fixed(kx - k * 0.7)},${fixed(ky)}" fill="${colours[0]}" stroke="${c.p.light}" stroke-width="2"/>` +
        `<path d="M${fixed(kx)} ${fixed(ky + k * 1.3)} q${fixed(k * 0.5)} ${fixed(k)} 0 ${fixed(k * 2)} t0 ${fixed(k * 2)}" stroke="${c.p.light}" stroke-width="1.5" fill="none"/>`;
      return sky(c) + sunRays + `<circle cx="${fixed(sun[0])}" cy="${fixed(sun[1])}" r="${fixed(c.m * 0.085)}" fill="${c.p.glow}"/>` +
        cloud(c.w * between(c, 0.35, 0.55), c.h * 0.1, c.m * 0.05) + cloud(c.w * between(c, 0.65, 0.85), c.h * 0.4, c.m * 0.04) + kite + toys +
        wave(c, c.h * 0.72, c.m * 0.05, hsl(120, 45, 50)).path + wave(c, c.h * 0.84, c.m * 0.04, c.p.ink).path;
    },
  },
  // A stage: curtains, a spotlight, a rosette of eight-pointed stars in gold.
  stage: {
    hues: [200, 380],
    palette: (h) => ({ top: hsl(h, 55, 16), bottom: hsl(h, 60, 6), ink: hsl(h, 65, 24), accent: hsl(42, 80, 58), glow: hsl(45, 90, 85), light: hsl(40, 60, 92) }),
    draw: (c) => {
      const cx = c.w / 2;
      const curtain = (side: -1 | 1) => {
        const edge = side === -1 ? c.w * 0.2 : c.w * 0.8;
        const outer = side === -1 ? 0 : c.w;
        const folds = Array.from({ length: 4 }, (_, i) => {
          const x = outer + ((edge - outer) * (i + 0.5)) / 4;
          return `<line x1="${fixed(x)}" y1="0" x2="${fixed(x + side * c.w * 0.01)}" y2="${fixed(c.h)}" stroke="${c.p.bottom}" stroke-opacity=".45" stroke-width="${fixed(c.w * 0.012)}"/>`;
        }).join('');
        return `<path d="M${fixed(outer)} 0 H${fixed(edge)} Q${fixed(edge - side * c.w * 0.08)} ${fixed(c.h * 0.5)} ${fixed(edge + side * c.w * 0.04)} ${fixed(c.h)} H${fixed(outer)}Z" fill="${c.p.ink}"/>${folds}`;
      };
      const valance = Array.from({ length: 8 }, (_, i) => `<circle cx="${fixed((c.w * (i + 0.5)) / 8)}" cy="0" r="${fixed(c.w / 14)}" fill="${c.p.ink}"/>`).join('');
      const rosette = [1, 0.72, 0.46, 0.22].map((k, i) => `<g transform="rotate(${(i * 11.25).toFixed(2)} ${fixed(cx)} ${fixed(c.h * 0.4)})">` +
        star(cx, c.h * 0.4, c.m * 0.24 * k, `fill="${i % 2 ? c.p.accent : 'none'}" fill-opacity=".3" stroke="${c.p.accent}" stroke-width="2.5"`) + '</g>').join('');
      return sky(c) + `<defs>${verticalGradient('beam', [[0, c.p.glow, 0.5], [1, c.p.glow, 0.04]])}${radialGlow('floor', c.p.glow)}</defs>` +
        `<polygon points="${fixed(cx - c.w * 0.06)},0 ${fixed(cx + c.w * 0.06)},0 ${fixed(cx + c.w * 0.34)},${fixed(c.h * 0.88)} ${fixed(cx - c.w * 0.34)},${fixed(c.h * 0.88)}" fill="url(#beam)"/>` +
        `<ellipse cx="${fixed(cx)}" cy="${fixed(c.h * 0.88)}" rx="${fixed(c.w * 0.36)}" ry="${fixed(c.h * 0.05)}" fill="url(#floor)"/>` +
        rosette + stars(c, 18, 0.8) + curtain(-1) + curtain(1) + valance;
    },
  },
  // A pointed arch of latticework (mashrabiya) with light behind it.
  mashrabiya: {
    hues: [0, 360],
    palette: (h) => ({ top: hsl(h, 40, 22), bottom: hsl(h, 45, 10), ink: hsl(h + 180, 35, 12), accent: hsl(36, 80, 58), glow: hsl(40, 95, 70), light: hsl(40, 70, 90) }),
    draw: (c) => {
      const width = Math.min(c.w * 0.62, c.h * 0.55);
      const left = (c.w - width) / 2;
      const bottom = c.h * 0.86;
      const spring = c.h * 0.4;
      const apex = c.h * 0.1;
      const arch = `M${fixed(left)} ${fixed(bottom)} V${fixed(spring)} Q${fixed(left)} ${fixed(apex + (spring - apex) * 0.3)} ${fixed(c.w / 2)} ${fixed(apex)} Q${fixed(left + width)} ${fixed(apex + (spring - apex) * 0.3)} ${fixed(left + width)} ${fixed(spring)} V${fixed(bottom)}Z`;
      const cell = c.m * between(c, 0.07, 0.1);
      const lattice = `<pattern id="lattice" width="${fixed(cell)}" height="${fixed(cell)}" patternUnits="userSpaceOnUse">` +
        star(cell / 2, cell / 2, cell * 0.42, `fill="none" stroke="${c.p.ink}" stroke-width="${fixed(cell * 0.08)}"`) +
        `<rect width="${fixed(cell)}" height="${fixed(cell)}" fill="none" stroke="${c.p.ink}" stroke-width="${fixed(cell * 0.1)}"/></pattern>`;
      return sky(c) + `<defs>${lattice}${verticalGradient('light', [[0, c.p.light], [1, c.p.glow]])}${radialGlow('halo', c.p.glow)}<clipPath id="arch"><path d="${arch}"/></clipPath></defs>` +
        `<ellipse cx="${fixed(c.w / 2)}" cy="${fixed(c.h * 0.48)}" rx="${fixed(width)}" ry="${fixed(c.h * 0.5)}" fill="url(#halo)" opacity=".45"/>` +
        `<path d="${arch}" fill="url(#light)"/><rect width="${c.w}" height="${c.h}" fill="url(#lattice)" clip-path="url(#arch)"/>` +
        `<path d="${arch}" fill="none" stroke="${c.p.accent}" stroke-width="${fixed(c.m * 0.018)}"/>` +
        `<rect x="${fixed(left - c.m * 0.05)}" y="${fixed(bottom)}" width="${fixed(width + c.m * 0.1)}" height="${fixed(c.m * 0.03)}" fill="${c.p.accent}"/>` +
        `<rect x="0" y="${fixed(bottom + c.m * 0.03)}" width="${c.w}" height="${fixed(c.h - bottom)}" fill="${c.p.bottom}"/>`;
    },
  },
};

/** The first genre a title has that names a scene decides it: a Ramadan drama is lanterns before it is a drama. */
const GENRE_SCENES: readonly (readonly [genre: string, scene: SceneName])[] = [
  ['ramadan', 'lanterns'], ['kids', 'playground'], ['animation', 'playground'], ['thriller', 'skyline'], ['crime', 'skyline'], ['action', 'skyline'],
  ['music', 'stage'], ['classic', 'stage'], ['documentary', 'dunes'], ['travel', 'dunes'], ['adventure', 'dunes'], ['history', 'dunes'],
  ['khaleeji', 'palms'], ['comedy', 'rooftops'], ['romance', 'rooftops'], ['family', 'mashrabiya'], ['drama', 'mashrabiya'],
];
const SCENE_NAMES = Object.keys(SCENES) as SceneName[];

/**
 * A show's, season's or film's poster (400 by 600) or a wide picture
 * (640 by 360 drawn, shown at `size`): its scene, a frame on a poster, a
 * season's stars, and a shade at the bottom where an app writes the title.
 */
export function titleArtSvg(shape: 'poster' | 'wide', art: TitleArt, size: readonly [width: number, height: number] = shape === 'poster' ? [400, 600] : [640, 360]): string {
  const [w, h] = shape === 'poster' ? [400, 600] : [640, 360];
  const family = createHash('sha256').update(`video/${art.family}`).digest();
  const scene = GENRE_SCENES.find(([genre]) => art.genres.includes(genre))?.[1] ?? SCENE_NAMES[family[3]! % SCENE_NAMES.length]!;
  const { hues, palette, draw } = SCENES[scene];
  // A season's colours move a little from its show's, season by season.
  const hue = hues[0] + ((hues[1] - hues[0]) * family[0]!) / 255 + (art.ordinal ?? 0) * 9;
  const layout = art.id === art.family ? family : createHash('sha256').update(`video/${art.id}`).digest();
  const c: Canvas = { w, h, m: Math.min(w, h), p: palette(hue), r: layoutStream(layout) };
  const frame = shape === 'poster'
    ? `<rect x="12" y="12" width="${w - 24}" height="${h - 24}" fill="none" stroke="${c.p.light}" stroke-opacity=".45" stroke-width="1.5"/>` +
      `<rect x="18" y="18" width="${w - 36}" height="${h - 36}" fill="none" stroke="${c.p.light}" stroke-opacity=".2" stroke-width="1"/>`
    : '';
  const count = Math.min(art.ordinal ?? 0, 10);
  const marks = Array.from({ length: count }, (_, i) => star(w / 2 + (i - (count - 1) / 2) * 26, 44, 9, `fill="${c.p.light}" fill-opacity=".9"`)).join('');
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${w} ${h}" width="${size[0]}" height="${size[1]}" role="img" aria-label="${escapeXml(art.name)}">` +
    // Half the titles see their scene the other way round: more pictures from the same few scenes.
    ((family[5]! & 1) === 1 ? `<g transform="matrix(-1 0 0 1 ${w} 0)">${draw(c)}</g>` : draw(c)) +
    `<defs>${verticalGradient('shade', [[0, '#000', 0], [0.55, '#000', 0], [1, '#000', shape === 'poster' ? 0.6 : 0.45]])}</defs>` +
    `<rect width="${w}" height="${h}" fill="url(#shade)"/>` + frame + marks +
    `</svg>`
  );
}

/**
 * A cast member's portrait (300 by 300): a figure against a spotlight, in
 * colours of the person's own. Its head is bare, has long hair, a hijab or
 * a ghutra and agal, as the id falls, so a cast list does not repeat one shape.
 */
export function portraitSvg(id: string, name: string): string {
  const hash = createHash('sha256').update(`people/${id}`).digest();
  const hue = (hash[0]! * 360) / 256;
  const ink = hsl(hue + 200, 25, 14);
  const rim = hsl(hue + 30, 80, 70);
  const body = `<path d="M58 300 Q62 205 150 196 Q238 205 242 300 Z" fill="${ink}"/>`;
  const head = `<ellipse cx="150" cy="128" rx="44" ry="52" fill="${ink}"/>`;
  const styles = [
    // Bare-headed.
    body + head,
    // Long hair falling to the shoulders.
    `<path d="M100 130 Q98 70 150 68 Q202 70 200 130 L206 214 Q150 232 94 214 Z" fill="${ink}"/>` + body + head,
    // A hijab: one rounded shape from the crown to the shoulders, the face inside it.
    body + `<path d="M92 136 Q92 66 150 64 Q208 66 208 136 Q210 196 236 226 Q150 246 64 226 Q90 196 92 136 Z" fill="${ink}"/>` +
      `<ellipse cx="150" cy="136" rx="33" ry="42" fill="${hsl(hue + 200, 20, 22)}"/>`,
    // A ghutra falling behind the shoulders, held by an agal.
    body + `<path d="M96 120 Q98 62 150 60 Q202 62 204 120 L224 236 Q150 214 76 236 Z" fill="${hsl(hue + 200, 12, 30)}"/>` + head +
      `<ellipse cx="150" cy="96" rx="50" ry="12" fill="none" stroke="${ink}" stroke-width="7"/>`,
  ];
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 300 300" width="300" height="300" role="img" aria-label="${escapeXml(name)}">` +
    `<defs>${verticalGradient('ground', [[0, hsl(hue, 45, 40)], [1, hsl(hue + 30, 50, 16)]])}${radialGlow('spot', hsl(hue + 30, 90, 80))}</defs>` +
    `<rect width="300" height="300" fill="url(#ground)"/><circle cx="150" cy="130" r="150" fill="url(#spot)" opacity=".6"/>` +
    `<g stroke="${rim}" stroke-opacity=".55" stroke-width="2">${styles[hash[1]! % styles.length]}</g>` +
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
