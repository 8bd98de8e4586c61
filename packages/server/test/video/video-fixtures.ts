import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ImportRecord } from '@maqam/contract';
import { importNdjsonFile, type Storage } from '@maqam/server';
import { writeNdjson } from '../fixtures.ts';

const poster = (id: string) => [{ url: `/v1/artwork/${id}.svg`, width: 600, height: 900 }];

/**
 * A video catalog whose every value the tests know, on top of the music
 * fixtures (fixtures.ts): a drama rated 13 with two seasons (one episode of
 * its own rating 16, one withdrawn), a documentary for all ages, a show
 * rated 18, an unrated show, and films rated ALL and 18, unrated and
 * withdrawn. Soundtracks list the fixture songs.
 */
export function videoFixtureRecords(): ImportRecord[] {
  const episode = (id: string, seasonId: string, episodeNumber: number, extra: Partial<Extract<ImportRecord, { kind: 'episode' }>> = {}): ImportRecord => ({
    kind: 'episode', id, seasonId, episodeNumber, title: { ar: `الحلقة ${episodeNumber}`, en: `Episode ${episodeNumber}` }, originalLanguage: 'ar',
    durationMs: 2_700_000, airDate: `2024-03-${String(10 + episodeNumber).padStart(2, '0')}`, creditsStartMs: 2_580_000, ...extra,
  });
  return [
    {
      kind: 'show', id: 'show-drama', title: { ar: 'ليالي الحلمية', en: 'Helmeya Nights' }, originalLanguage: 'ar',
      description: { ar: 'دراما رمضانية عن حارة قديمة.', en: 'A Ramadan drama of an old quarter.' }, genres: ['drama'], ageRating: 'AGE_RATING_13',
      releaseYear: 2024, artwork: poster('show-drama'), soundtrack: ['song-ar', 'song-en', 'song-withdrawn', 'song-fr'],
      cast: [
        { id: 'person-1', name: { ar: 'منى زكي', en: 'Mona Zaki' }, role: 'نور', isLead: true },
        { id: 'person-2', name: { en: 'Karim Adel' }, originalLanguage: 'en', role: 'Director' },
      ],
    },
    { kind: 'season', id: 'season-drama-2', showId: 'show-drama', seasonNumber: 2, title: { ar: 'الموسم الثاني', en: 'Season 2' }, originalLanguage: 'ar', airDate: '2025-03-01' },
    { kind: 'season', id: 'season-drama-1', showId: 'show-drama', seasonNumber: 1, title: { ar: 'الموسم الأول', en: 'Season 1' }, originalLanguage: 'ar', airDate: '2024-03-11' },
    episode('ep-d1-1', 'season-drama-1', 1, { showId: 'show-drama', subtitleLanguages: ['en', 'fr'] }),
    episode('ep-d1-2', 'season-drama-1', 2),
    episode('ep-d1-3', 'season-drama-1', 3, { ageRating: 'AGE_RATING_16' }),
    episode('ep-d1-4', 'season-drama-1', 4, { ageRating: 'AGE_RATING_7' }),
    episode('ep-d1-5', 'season-drama-1', 5),
    episode('ep-d1-6', 'season-drama-1', 6, { withdrawn: true }),
    episode('ep-d2-1', 'season-drama-2', 1),
    episode('ep-d2-2', 'season-drama-2', 2),
    { kind: 'show', id: 'show-doc', title: { ar: 'بحار العرب', en: 'Arabian Seas' }, originalLanguage: 'ar', genres: ['documentary'], ageRating: 'AGE_RATING_ALL', releaseYear: 2023 },
    { kind: 'season', id: 'season-doc-1', showId: 'show-doc', seasonNumber: 1, title: { ar: 'الموسم الأول', en: 'Season 1' }, originalLanguage: 'ar' },
    episode('ep-doc-1', 'season-doc-1', 1),
    { kind: 'show', id: 'show-adult', title: { ar: 'ظلال المدينة', en: 'City Shadows' }, originalLanguage: 'ar', ageRating: 'AGE_RATING_18', releaseYear: 2022, soundtrack: ['song-ar'] },
    { kind: 'season', id: 'season-adult-1', showId: 'show-adult', seasonNumber: 1, title: { ar: 'الموسم الأول', en: 'Season 1' }, originalLanguage: 'ar' },
    episode('ep-adult-1', 'season-adult-1', 1),
    { kind: 'show', id: 'show-unrated', title: { en: 'Desert Nights' }, originalLanguage: 'en', releaseYear: 2021 },
    {
      kind: 'movie', id: 'movie-all', title: { ar: 'رحلة الصحراء', en: 'Desert Journey' }, originalLanguage: 'ar', ageRating: 'AGE_RATING_ALL',
      releaseDate: '2023-06-01', durationMs: 5_400_000, creditsStartMs: 5_100_000, audioLanguages: ['ar', 'en'], subtitleLanguages: ['en'],
      soundtrack: ['song-fr', 'song-ar'], cast: [{ id: 'person-1', name: { ar: 'منى زكي', en: 'Mona Zaki' }, role: 'سلمى', isLead: true }],
    },
    { kind: 'movie', id: 'movie-adult', title: { ar: 'الليل الطويل', en: 'The Long Night' }, originalLanguage: 'ar', ageRating: 'AGE_RATING_18', releaseDate: '2020-01-01', durationMs: 6_000_000, soundtrack: ['song-ar'] },
    { kind: 'movie', id: 'movie-unrated', title: { ar: 'مدينة الصحراء', en: 'Desert City' }, originalLanguage: 'ar', releaseDate: '2019-05-05', durationMs: 5_000_000 },
    { kind: 'movie', id: 'movie-withdrawn', title: { en: 'Gone Desert' }, originalLanguage: 'en', ageRating: 'AGE_RATING_ALL', releaseDate: '2018-01-01', durationMs: 100, withdrawn: true },
  ];
}

/** Imports records as a file, answering the outcome (summary and errors by line). */
export async function importRecords(storage: Storage, records: readonly unknown[]) {
  const dir = mkdtempSync(join(tmpdir(), 'maqam-video-'));
  try {
    return await importNdjsonFile(storage, writeNdjson(dir, 'video.ndjson', records));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
