import type { Artist } from '@maqam/contract';
import { resolveLocalizedString } from '../http/locale.ts';
import type { ArtistName } from './artist-names.ts';
import type { RelatedArtistRow, SongRow } from './catalog.repo.ts';

type Texts = Record<string, string>;

const quote = JSON.stringify as (value: string) => string;

function localizedJson(texts: Readonly<Texts>, originalLanguage: string, chain: readonly string[]): string {
  const { value, originalValue } = resolveLocalizedString(texts, originalLanguage, chain);
  return `{"value":${quote(value)},"originalValue":${quote(originalValue)}}`;
}

/**
 * Serializes one SongResult `{"song":{...}}` by concatenation. The JSON
 * columns (genres, artwork) were written by the importer from validated
 * values, so they are spliced as stored instead of being parsed and
 * re-serialized; strings go through JSON.stringify for escaping. The field
 * order and names are those of the contract's Song schema.
 */
export function renderSongResult(
  row: SongRow,
  artistIds: readonly string[],
  names: ReadonlyMap<string, ArtistName>,
  chain: readonly string[],
): string {
  let refs = '';
  for (const artistId of artistIds) {
    const name = names.get(artistId);
    // Foreign keys keep every credited artist in the catalog; a name can only be missing mid-import.
    if (name === undefined) continue;
    if (refs !== '') refs += ',';
    refs += `{"id":{"value":${quote(artistId)}},"name":${localizedJson(name.texts, name.originalLanguage, chain)}}`;
  }
  return (
    `{"song":{"id":{"value":${quote(row.id)}}` +
    `,"title":${localizedJson(JSON.parse(row.title_i18n) as Texts, row.original_language, chain)}` +
    `,"artists":[${refs}]` +
    `,"albumId":{"value":${quote(row.album_id)}}` +
    `,"durationMs":${row.duration_ms},"trackNumber":${row.track_number},"discNumber":${row.disc_number}` +
    `,"releaseDate":${quote(row.release_date)},"genres":${row.genres}` +
    `,"isExplicit":${row.is_explicit === 1},"isrc":${quote(row.isrc)},"hasLyrics":${row.has_lyrics === 1}` +
    `,"popularity":${row.popularity},"artwork":${row.artwork},"previewUrl":${quote(row.preview_url)}}}`
  );
}

/** An Artist of the GetRelatedArtists response, localized. Serialized by the route's schema. */
export function toArtist(row: RelatedArtistRow, chain: readonly string[]): Artist {
  const artist: Artist = {
    id: { value: row.id },
    name: resolveLocalizedString(JSON.parse(row.name_i18n) as Texts, row.original_language, chain),
    genres: JSON.parse(row.genres) as string[],
    followerCount: row.follower_count,
    monthlyListeners: row.monthly_listeners,
    isVerified: row.is_verified === 1,
    socialLinks: JSON.parse(row.social_links) as Artist['socialLinks'],
    artwork: JSON.parse(row.artwork) as Artist['artwork'],
    nationality: row.nationality,
  };
  if (row.bio_i18n !== null) {
    artist.bio = resolveLocalizedString(JSON.parse(row.bio_i18n) as Texts, row.original_language, chain);
  }
  return artist;
}
