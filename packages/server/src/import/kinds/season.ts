import type { SeasonRecord } from '@maqam/contract';
import { addReference, images, lower, texts, type BatchRows } from '../batch-rows.ts';
import type { ImportProjection } from '../projection.ts';

/** A season record: its row, and the show it references. Its episode count is derived from the episode records. */
export function addSeason(rows: BatchRows, line: number, r: SeasonRecord): void {
  rows.noteId('season', r.id, line);
  rows.noteLanguages(r.title, r.originalLanguage);
  if (r.description) rows.noteLanguages(r.description, r.originalLanguage);
  addReference(rows.showRefs, r.showId, line);
  rows.seasonIds.add(r.id);
  rows.seasons.push({
    id: r.id,
    show_id: r.showId,
    season_number: r.seasonNumber,
    title_i18n: texts(r.title),
    description_i18n: r.description ? texts(r.description) : null,
    original_language: lower(r.originalLanguage),
    air_date: r.airDate ?? null,
    artwork: images(r.artwork ?? []),
    withdrawn: r.withdrawn ? 1 : 0,
    updated_at: rows.now,
  });
}

/** Writes the batch's seasons. */
export const writeSeasons: ImportProjection = async ({ trx, upsert, rows }) => {
  await upsert(trx, 'seasons', ['id'], rows.seasons);
};
