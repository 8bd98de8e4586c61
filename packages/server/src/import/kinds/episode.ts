import type { EpisodeRecord } from '@maqam/contract';
import { storedCast } from '../../video/cast.ts';
import { episodeOwnRank } from '../../video/age-rating.ts';
import { addReference, images, lower, texts, type BatchRows } from '../batch-rows.ts';
import type { ImportProjection } from '../projection.ts';
import { episodeTemplate, TITLE_TEMPLATE_FORMAT } from '../../video/render.ts';
import { languageList } from './soundtrack.ts';

/** An episode record: its row, and the season it references (and the show, when it names one, which must be its season's). */
export function addEpisode(rows: BatchRows, line: number, r: EpisodeRecord): void {
  rows.noteId('episode', r.id, line);
  rows.noteLanguages(r.title, r.originalLanguage);
  if (r.description) rows.noteLanguages(r.description, r.originalLanguage);
  addReference(rows.seasonRefs, r.seasonId, line);
  if (r.showId !== undefined) rows.episodeShows.push({ line, seasonId: r.seasonId, showId: r.showId });
  rows.episodeIds.add(r.id);
  const row = {
    id: r.id,
    season_id: r.seasonId,
    episode_number: r.episodeNumber,
    title_i18n: texts(r.title),
    description_i18n: r.description ? texts(r.description) : null,
    original_language: lower(r.originalLanguage),
    duration_ms: r.durationMs,
    air_date: r.airDate ?? null,
    guest_cast: storedCast(r.guestCast, r.originalLanguage),
    artwork: images(r.artwork ?? []),
    audio_languages: languageList(r.audioLanguages ?? [r.originalLanguage]),
    subtitle_languages: languageList(r.subtitleLanguages ?? []),
    age_rating: r.ageRating ?? null,
    rating_rank: episodeOwnRank(r.ageRating),
    credits_start_ms: r.creditsStartMs ?? null,
    withdrawn: r.withdrawn ? 1 : 0,
    updated_at: rows.now,
  };
  // The answer, rendered once (video/title-template.ts): written with the row, read when the cache lacks it.
  rows.episodes.push({ ...row, template: episodeTemplate(row).build(TITLE_TEMPLATE_FORMAT) });
}

/** Writes the batch's episodes. */
export const writeEpisodes: ImportProjection = async ({ trx, upsert, rows }) => {
  await upsert(trx, 'episodes', ['id'], rows.episodes);
};
