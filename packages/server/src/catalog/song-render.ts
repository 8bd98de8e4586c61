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

/** The locale-independent fields of a song, as the importer stores them. */
export interface SongTailFields {
  albumId: string;
  durationMs: number;
  trackNumber: number;
  discNumber: number;
  releaseDate: string;
  genres: readonly string[];
  isExplicit: boolean;
  isrc: string;
  hasLyrics: boolean;
  popularity: number;
  artwork: readonly { url: string; width: number; height: number }[];
  previewUrl: string;
}

/**
 * The Song JSON from `,"albumId"` to the closing braces of the SongResult.
 * Computed once at import and stored, so a cache miss splices these bytes.
 */
export function renderSongTail(song: SongTailFields): string {
  const artwork = JSON.stringify(song.artwork.map(({ url, width, height }) => ({ url, width, height })));
  return (
    `,"albumId":{"value":${quote(song.albumId)}}` +
    `,"durationMs":${song.durationMs},"trackNumber":${song.trackNumber},"discNumber":${song.discNumber}` +
    `,"releaseDate":${quote(song.releaseDate)},"genres":${JSON.stringify(song.genres)}` +
    `,"isExplicit":${song.isExplicit},"isrc":${quote(song.isrc)},"hasLyrics":${song.hasLyrics}` +
    `,"popularity":${song.popularity},"artwork":${artwork},"previewUrl":${quote(song.previewUrl)}}}`
  );
}

/**
 * Serializes one SongResult `{"song":{...}}` by concatenation: the localized
 * head (id, title, artists) is made here, the rest is the stored tail. Strings
 * go through JSON.stringify for escaping; the field order and names are those
 * of the contract's Song schema.
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
    `,"artists":[${refs}]${row.wire_tail}`
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
