import type { MovieRecord } from '@maqam/contract';
import { storedCast } from '../../video/cast.ts';
import { titleRank } from '../../video/age-rating.ts';
import { images, lower, texts, type BatchRows } from '../batch-rows.ts';
import type { ImportProjection } from '../projection.ts';
import { movieTemplate, TITLE_TEMPLATE_FORMAT } from '../../video/render.ts';
import { addSoundtrack, languageList, writeSoundtracks } from './soundtrack.ts';

/** A film record: its row and its soundtrack. */
export function addMovie(rows: BatchRows, line: number, r: MovieRecord): void {
  rows.noteId('movie', r.id, line);
  rows.noteLanguages(r.title, r.originalLanguage);
  if (r.description) rows.noteLanguages(r.description, r.originalLanguage);
  rows.movieIds.add(r.id);
  const row = {
    id: r.id,
    title_i18n: texts(r.title),
    description_i18n: r.description ? texts(r.description) : null,
    original_language: lower(r.originalLanguage),
    genres: JSON.stringify(r.genres ?? []),
    age_rating: r.ageRating ?? null,
    rating_rank: titleRank(r.ageRating),
    release_date: r.releaseDate,
    duration_ms: r.durationMs,
    cast_members: storedCast(r.cast, r.originalLanguage),
    artwork: images(r.artwork ?? []),
    audio_languages: languageList(r.audioLanguages ?? [r.originalLanguage]),
    subtitle_languages: languageList(r.subtitleLanguages ?? []),
    credits_start_ms: r.creditsStartMs ?? null,
    withdrawn: r.withdrawn ? 1 : 0,
    updated_at: rows.now,
  };
  // The answer, rendered once (video/title-template.ts): written with the row, read when the cache lacks it.
  rows.movies.push({ ...row, template: movieTemplate(row).build(TITLE_TEMPLATE_FORMAT) });
  addSoundtrack(rows, line, 'movie', r.id, r.soundtrack);
}

/** Writes the batch's films and their soundtracks. */
export const writeMovies: ImportProjection = async ({ trx, upsert, rows }) => {
  await upsert(trx, 'movies', ['id'], rows.movies);
  await writeSoundtracks(trx, upsert, 'movie', rows.movieIds, rows.titleSongs);
};
