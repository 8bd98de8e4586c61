import { resolveLocalizedString } from '../locale/negotiation.ts';
import type { AlbumRow, ArtistRow, LyricsRow } from './catalog.repo.ts';
import { resolveImageUrls } from './artwork.ts';

/** An artist's name in each language it has, and the one it was given in: what a credit renders from. */
export interface ArtistName {
  readonly texts: Readonly<Record<string, string>>;
  readonly originalLanguage: string;
}

/**
 * Serializes catalog items into the JSON fragments the API answers with, by
 * concatenation. JSON columns (genres, artwork, social links, lyrics lines)
 * were written by the importer from validated values, so they are spliced as
 * stored instead of being parsed and re-serialized; strings go through
 * JSON.stringify for escaping. Field order and names are those of the
 * contract's schemas, so the bytes are what Fastify's serializer would write.
 */

type Texts = Record<string, string>;

const quote = JSON.stringify as (value: string) => string;
const INT32_MAX = 2147483647;

export function localizedJson(texts: Readonly<Texts>, originalLanguage: string, chain: readonly string[]): string {
  const { value, originalValue } = resolveLocalizedString(texts, originalLanguage, chain);
  return `{"value":${quote(value)},"originalValue":${quote(originalValue)}}`;
}

/** One SongArtistRef `{"id":{"value":...},"name":{...}}`: a song's credited artist, named in the chain's language. */
export function renderSongArtistRef(artistId: string, name: ArtistName, chain: readonly string[]): string {
  return `{"id":{"value":${quote(artistId)}},"name":${localizedJson(name.texts, name.originalLanguage, chain)}}`;
}

/** SongArtistRef list of credited artists, in credit order (songs render theirs from templates: song-template.ts). */
function artistRefs(artistIds: readonly string[], names: ReadonlyMap<string, ArtistName>, chain: readonly string[]): string {
  let refs = '';
  for (const artistId of artistIds) {
    const name = names.get(artistId);
    // Foreign keys keep every credited artist in the catalog; a name can only be missing mid-import.
    if (name === undefined) continue;
    if (refs !== '') refs += ',';
    refs += renderSongArtistRef(artistId, name, chain);
  }
  return `[${refs}]`;
}

/** One AlbumResult `{"album":{...}}`: also GetAlbum's whole answer. */
export function renderAlbumResult(
  row: AlbumRow,
  artistIds: readonly string[],
  totals: { trackCount: number; totalDurationMs: number },
  names: ReadonlyMap<string, ArtistName>,
  chain: readonly string[],
  publicUrl: string,
): string {
  return (
    `{"album":{"id":{"value":${quote(row.id)}}` +
    `,"title":${localizedJson(JSON.parse(row.title_i18n) as Texts, row.original_language, chain)}` +
    `,"artists":${artistRefs(artistIds, names, chain)}` +
    `,"albumType":${quote(row.album_type)},"releaseDate":${quote(row.release_date)}` +
    `,"trackCount":${Math.min(totals.trackCount, INT32_MAX)},"totalDurationMs":${Math.min(totals.totalDurationMs, INT32_MAX)}` +
    `,"genres":${row.genres},"artwork":${resolveImageUrls(row.artwork, publicUrl)},"label":${quote(row.label)}}}`
  );
}

/** One ArtistResult `{"artist":{...}}`: also GetArtist's whole answer. */
export function renderArtistResult(row: ArtistRow, chain: readonly string[], publicUrl: string): string {
  const bio = row.bio_i18n === null ? '' : `,"bio":${localizedJson(JSON.parse(row.bio_i18n) as Texts, row.original_language, chain)}`;
  return (
    `{"artist":{"id":{"value":${quote(row.id)}}` +
    `,"name":${localizedJson(JSON.parse(row.name_i18n) as Texts, row.original_language, chain)}${bio}` +
    `,"genres":${row.genres},"followerCount":${quote(row.follower_count)},"monthlyListeners":${quote(row.monthly_listeners)}` +
    `,"isVerified":${row.is_verified === 1},"socialLinks":${row.social_links},"artwork":${resolveImageUrls(row.artwork, publicUrl)}` +
    `,"nationality":${quote(row.nationality)}}}`
  );
}

/** GetLyricsResponse of a song that has lyrics. */
export function renderLyrics(row: LyricsRow & { language: string; lines: string }): string {
  const synced = row.synced_lines === null ? '' : `,"syncedLyrics":{"lines":${row.synced_lines}}`;
  return `{"language":${quote(row.language)},"lyrics":{"lines":${row.lines}}${synced}}`;
}
