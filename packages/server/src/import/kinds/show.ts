import type { ShowRecord } from '@maqam/contract';
import { storedCast } from '../../video/cast.ts';
import { titleRank } from '../../video/age-rating.ts';
import { images, lower, texts, type BatchRows } from '../batch-rows.ts';
import type { ImportProjection } from '../projection.ts';
import { addSoundtrack, writeSoundtracks } from './soundtrack.ts';

/** A show record: its row and its soundtrack. Its seasons are derived from the season records. */
export function addShow(rows: BatchRows, line: number, r: ShowRecord): void {
  rows.noteId('show', r.id, line);
  rows.noteLanguages(r.title, r.originalLanguage);
  if (r.description) rows.noteLanguages(r.description, r.originalLanguage);
  rows.showIds.add(r.id);
  rows.shows.push({
    id: r.id,
    title_i18n: texts(r.title),
    description_i18n: r.description ? texts(r.description) : null,
    original_language: lower(r.originalLanguage),
    genres: JSON.stringify(r.genres ?? []),
    age_rating: r.ageRating ?? null,
    rating_rank: titleRank(r.ageRating),
    release_year: r.releaseYear,
    cast_members: storedCast(r.cast, r.originalLanguage),
    artwork: images(r.artwork ?? []),
    withdrawn: r.withdrawn ? 1 : 0,
    updated_at: rows.now,
  });
  addSoundtrack(rows, line, 'show', r.id, r.soundtrack);
}

/** Writes the batch's shows and their soundtracks. */
export const writeShows: ImportProjection = async ({ trx, upsert, rows }) => {
  await upsert(trx, 'shows', ['id'], rows.shows);
  await writeSoundtracks(trx, upsert, 'show', rows.showIds, rows.titleSongs);
};
