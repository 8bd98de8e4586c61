import { createHash } from 'node:crypto';
import { Episode, Movie } from '@maqam/contract';
import { castTemplate } from './cast.ts';
import { TitleTemplateWriter } from './title-template.ts';
import type { EpisodeTemplateSource, MovieTemplateSource, SeasonRow, ShowRow, ShowSeasonRow } from './video.repo.ts';

/**
 * Video titles as templates of their keyed results, `"<id>":{"<kind>":{...}}`
 * (title-template.ts), as catalog/render.ts renders music: JSON columns were
 * written by the importer from validated values and are spliced as stored;
 * field order and names are the contract's (packages/contract/src/video.ts).
 */

/** The arrangement of the parts below and of title-template.ts: one more at each change of either. */
const LAYOUT = 1;

/**
 * The version of the templates films and episodes store: the layout and the
 * contract's schemas they render, hashed, so a field added to Movie or
 * Episode makes every stored template stale (title-templates.format.ts
 * rebuilds them before a server starts; one met while serving is refused).
 */
export const TITLE_TEMPLATE_FORMAT = createHash('sha256').update(`${LAYOUT}\n${JSON.stringify(Movie)}\n${JSON.stringify(Episode)}`).digest().readUInt32LE(0);

const quote = JSON.stringify as (value: string) => string;

/** An episode's holes: values of its season, not of its own row. */
const EPISODE_SHOW_ID = 0;
const EPISODE_SEASON_NUMBER = 1;

/** What fills an episode's holes (episodeTemplate): its season's show id and number. */
export function episodeHoles(season: { readonly show_id: string; readonly season_number: number }): string[] {
  const holes: string[] = [];
  holes[EPISODE_SHOW_ID] = quote(season.show_id);
  holes[EPISODE_SEASON_NUMBER] = String(season.season_number);
  return holes;
}
const INT32_MAX = 2147483647;
const optional = (member: string, value: string | number | null) => (value === null ? '' : `,"${member}":${typeof value === 'string' ? quote(value) : value}`);

function optionalTexts(writer: TitleTemplateWriter, member: string, json: string | null, language: string): TitleTemplateWriter {
  return json === null ? writer : writer.literal(`,"${member}":`).texts(json, language);
}

export function showTemplate(row: ShowRow, seasons: readonly ShowSeasonRow[]): TitleTemplateWriter {
  const seasonList = seasons
    .map((s) => `{"id":{"value":${quote(s.id)}},"seasonNumber":${s.season_number},"episodeCount":${Math.min(Number(s.episode_count), INT32_MAX)}${optional('airDate', s.air_date)}}`)
    .join(',');
  const writer = new TitleTemplateWriter().literal(`${quote(row.id)}:{"show":{"id":{"value":${quote(row.id)}},"title":`).texts(row.title_i18n, row.original_language);
  optionalTexts(writer, 'description', row.description_i18n, row.original_language)
    .literal(`,"genres":${row.genres}${optional('ageRating', row.age_rating)},"originalLanguage":${quote(row.original_language)}`)
    .literal(`,"releaseYear":${row.release_year},"cast":`);
  return castTemplate(writer, row.cast_members).literal(',"artwork":').images(row.artwork).literal(`,"seasons":[${seasonList}]}}`);
}

export function seasonTemplate(row: SeasonRow): TitleTemplateWriter {
  const writer = new TitleTemplateWriter()
    .literal(`${quote(row.id)}:{"season":{"id":{"value":${quote(row.id)}},"showId":{"value":${quote(row.show_id)}},"seasonNumber":${row.season_number}`)
    .literal(',"title":')
    .texts(row.title_i18n, row.original_language);
  return optionalTexts(writer, 'description', row.description_i18n, row.original_language)
    .literal(`,"episodeCount":${Math.min(Number(row.episode_count), INT32_MAX)}${optional('airDate', row.air_date)}`)
    .literal(',"artwork":')
    .images(row.artwork)
    .literal('}}');
}

/** An episode's template: its show id and season number are holes, its season's to say (episodeHoles). */
export function episodeTemplate(row: EpisodeTemplateSource): TitleTemplateWriter {
  const writer = new TitleTemplateWriter()
    .literal(`${quote(row.id)}:{"episode":{"id":{"value":${quote(row.id)}},"showId":{"value":`)
    .hole(EPISODE_SHOW_ID)
    .literal(`},"seasonId":{"value":${quote(row.season_id)}},"seasonNumber":`)
    .hole(EPISODE_SEASON_NUMBER)
    .literal(`,"episodeNumber":${row.episode_number},"title":`)
    .texts(row.title_i18n, row.original_language);
  optionalTexts(writer, 'description', row.description_i18n, row.original_language)
    .literal(`,"durationMs":${row.duration_ms}${optional('airDate', row.air_date)},"guestCast":`);
  return castTemplate(writer, row.guest_cast)
    .literal(',"artwork":')
    .images(row.artwork)
    .literal(`,"audioLanguages":${row.audio_languages},"subtitleLanguages":${row.subtitle_languages}`)
    .literal(`${optional('ageRating', row.age_rating)}${optional('creditsStartMs', row.credits_start_ms)}}}`);
}

export function movieTemplate(row: MovieTemplateSource): TitleTemplateWriter {
  const writer = new TitleTemplateWriter().literal(`${quote(row.id)}:{"movie":{"id":{"value":${quote(row.id)}},"title":`).texts(row.title_i18n, row.original_language);
  optionalTexts(writer, 'description', row.description_i18n, row.original_language)
    .literal(`,"genres":${row.genres}${optional('ageRating', row.age_rating)},"originalLanguage":${quote(row.original_language)}`)
    .literal(`,"releaseDate":${quote(row.release_date)},"durationMs":${row.duration_ms},"cast":`);
  return castTemplate(writer, row.cast_members)
    .literal(',"artwork":')
    .images(row.artwork)
    .literal(`,"audioLanguages":${row.audio_languages},"subtitleLanguages":${row.subtitle_languages}${optional('creditsStartMs', row.credits_start_ms)}}}`);
}
