import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ImportRecord } from '@maqam/contract';

const image = (id: string) => [{ url: `https://img.test/${id}.jpg`, width: 300, height: 300 }];

function artist(id: string, name: Record<string, string>, originalLanguage: string, extra: Partial<ImportRecord & { kind: 'artist' }> = {}): ImportRecord {
  return {
    kind: 'artist', id, name, originalLanguage, genres: ['tarab'], followerCount: '12345678901234567', monthlyListeners: 42,
    isVerified: true, socialLinks: [{ platform: 'instagram', url: `https://instagram.com/${id}` }], artwork: image(id), nationality: 'EG',
    ...extra,
  } as ImportRecord;
}

function song(id: string, title: Record<string, string>, originalLanguage: string, artistIds: string[], extra: object = {}): ImportRecord {
  return {
    kind: 'song', id, title, originalLanguage, artistIds, albumId: 'album-1', durationMs: 215000, trackNumber: 1, discNumber: 1,
    releaseDate: '1999-07-01', genres: ['arabic-pop'], isExplicit: false, isrc: 'EGA019900001', hasLyrics: true, popularity: 87,
    artwork: image(id), previewUrl: `https://preview.test/${id}.mp3`, ...extra,
  } as ImportRecord;
}

/** Time-synced lyrics of song-ar: metadata tags, a +500 ms offset, a line with two time tags, two and three fraction digits. */
export const SONG_AR_LRC = [
  '[ar:عمرو دياب]',
  '[ti:تملي معاك]',
  '[offset:+500]',
  '[00:12.50]تملي معاك',
  '[00:05.000][00:20.10]ولو حتى بعيد عني',
  '',
  '[00:15.75] في قلبي هواك ',
].join('\n');

/** How many artists are related to artist-ar (for paging tests). */
export const RELATED_COUNT = 25;

/**
 * A small catalog whose every value the tests know: Arabic-, English- and
 * French-origin texts, a withdrawn song, an artist with no related artists,
 * and 25 related artists with tied scores to exercise keyset paging.
 */
export function fixtureRecords(): ImportRecord[] {
  const records: ImportRecord[] = [
    artist('artist-ar', { ar: 'عمرو دياب', en: 'Amr Diab' }, 'ar', { bio: { ar: 'مطرب مصري', en: 'Egyptian singer' } }),
    artist('artist-en', { en: 'Maya Stone' }, 'en'),
    artist('artist-fr', { fr: 'Camille Dubois', ar: 'كاميل دوبوا' }, 'fr'),
    artist('artist-lonely', { ar: 'وحيد' }, 'ar'),
    { kind: 'album', id: 'album-1', title: { ar: 'تملي معاك', en: 'Tamally Maak' }, originalLanguage: 'ar', artistIds: ['artist-ar'], releaseDate: '2000-01-01', artwork: image('album-1') },
    song('song-ar', { ar: 'تملي معاك', en: 'Tamally Maak' }, 'ar', ['artist-ar', 'artist-en']),
    song('song-en', { en: 'Midnight City' }, 'en', ['artist-en'], { isExplicit: true, isrc: '', previewUrl: '' }),
    song('song-fr', { fr: 'La Nuit', ar: 'الليل' }, 'fr', ['artist-fr']),
    song('song-withdrawn', { ar: 'مسحوبة' }, 'ar', ['artist-ar'], { withdrawn: true }),
    // hasLyrics is derived from lyrics records: song-ar has some, the others (whatever their records say) none.
    { kind: 'lyrics', songId: 'song-ar', language: 'ar', lrc: SONG_AR_LRC },
  ];
  for (let i = 1; i <= RELATED_COUNT; i++) {
    const id = `rel-${String(i).padStart(2, '0')}`;
    records.push(artist(id, { ar: `فنان ${i}`, en: `Artist ${i}` }, 'ar'));
    // Scores tie in threes so the id tiebreak decides order inside a tie.
    records.push({ kind: 'related', artistId: 'artist-ar', relatedId: id, score: 1 - Math.floor((i - 1) / 3) * 0.1 });
  }
  return records;
}

export function writeNdjson(dir: string, name: string, records: readonly unknown[]): string {
  const path = join(dir, name);
  writeFileSync(path, records.map((r) => (typeof r === 'string' ? r : JSON.stringify(r))).join('\n') + '\n');
  return path;
}
