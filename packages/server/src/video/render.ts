import { resolveImageUrls } from '../catalog/artwork.ts';
import { localizedJson } from '../catalog/render.ts';
import { renderCast } from './cast.ts';
import type { EpisodeRow, MovieRow, SeasonRow, ShowRow, ShowSeasonRow } from './video.repo.ts';

/**
 * Video titles as the JSON fragments the API answers with, by concatenation,
 * as catalog/render.ts does for music: JSON columns were written by the
 * importer from validated values and are spliced as stored; field order and
 * names are the contract's (packages/contract/src/video.ts).
 */

type Texts = Record<string, string>;
const quote = JSON.stringify as (value: string) => string;
const INT32_MAX = 2147483647;

const texts = (json: string, language: string, chain: readonly string[]) => localizedJson(JSON.parse(json) as Texts, language, chain);
const optionalTexts = (member: string, json: string | null, language: string, chain: readonly string[]) =>
  json === null ? '' : `,"${member}":${texts(json, language, chain)}`;
const optional = (member: string, value: string | number | null) => (value === null ? '' : `,"${member}":${typeof value === 'string' ? quote(value) : value}`);

export function renderShowResult(row: ShowRow, seasons: readonly ShowSeasonRow[], chain: readonly string[], publicUrl: string): string {
  const seasonList = seasons
    .map((s) => `{"id":{"value":${quote(s.id)}},"seasonNumber":${s.season_number},"episodeCount":${Math.min(Number(s.episode_count), INT32_MAX)}${optional('airDate', s.air_date)}}`)
    .join(',');
  return (
    `{"show":{"id":{"value":${quote(row.id)}},"title":${texts(row.title_i18n, row.original_language, chain)}` +
    optionalTexts('description', row.description_i18n, row.original_language, chain) +
    `,"genres":${row.genres}${optional('ageRating', row.age_rating)},"originalLanguage":${quote(row.original_language)}` +
    `,"releaseYear":${row.release_year},"cast":${renderCast(row.cast_members, chain, publicUrl)}` +
    `,"artwork":${resolveImageUrls(row.artwork, publicUrl)},"seasons":[${seasonList}]}}`
  );
}

export function renderSeasonResult(row: SeasonRow, chain: readonly string[], publicUrl: string): string {
  return (
    `{"season":{"id":{"value":${quote(row.id)}},"showId":{"value":${quote(row.show_id)}},"seasonNumber":${row.season_number}` +
    `,"title":${texts(row.title_i18n, row.original_language, chain)}` +
    optionalTexts('description', row.description_i18n, row.original_language, chain) +
    `,"episodeCount":${Math.min(Number(row.episode_count), INT32_MAX)}${optional('airDate', row.air_date)}` +
    `,"artwork":${resolveImageUrls(row.artwork, publicUrl)}}}`
  );
}

export function renderEpisodeResult(row: EpisodeRow, chain: readonly string[], publicUrl: string): string {
  return (
    `{"episode":{"id":{"value":${quote(row.id)}},"showId":{"value":${quote(row.show_id)}},"seasonId":{"value":${quote(row.season_id)}}` +
    `,"seasonNumber":${row.season_number},"episodeNumber":${row.episode_number}` +
    `,"title":${texts(row.title_i18n, row.original_language, chain)}` +
    optionalTexts('description', row.description_i18n, row.original_language, chain) +
    `,"durationMs":${row.duration_ms}${optional('airDate', row.air_date)}` +
    `,"guestCast":${renderCast(row.guest_cast, chain, publicUrl)},"artwork":${resolveImageUrls(row.artwork, publicUrl)}` +
    `,"audioLanguages":${row.audio_languages},"subtitleLanguages":${row.subtitle_languages}` +
    `${optional('ageRating', row.age_rating)}${optional('creditsStartMs', row.credits_start_ms)}}}`
  );
}

export function renderMovieResult(row: MovieRow, chain: readonly string[], publicUrl: string): string {
  return (
    `{"movie":{"id":{"value":${quote(row.id)}},"title":${texts(row.title_i18n, row.original_language, chain)}` +
    optionalTexts('description', row.description_i18n, row.original_language, chain) +
    `,"genres":${row.genres}${optional('ageRating', row.age_rating)},"originalLanguage":${quote(row.original_language)}` +
    `,"releaseDate":${quote(row.release_date)},"durationMs":${row.duration_ms}` +
    `,"cast":${renderCast(row.cast_members, chain, publicUrl)},"artwork":${resolveImageUrls(row.artwork, publicUrl)}` +
    `,"audioLanguages":${row.audio_languages},"subtitleLanguages":${row.subtitle_languages}${optional('creditsStartMs', row.credits_start_ms)}}}`
  );
}
