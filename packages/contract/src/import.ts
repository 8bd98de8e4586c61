import { Type, type Static } from 'typebox';
import { AlbumType, Image, MAX_ID_LENGTH, SocialLink, WITHOUT_NUL } from './catalog.ts';

/**
 * The NDJSON import format of contract section 9: one record a line, `kind` first.
 * Texts are maps from a BCP 47 language tag to the text in that language.
 */
const id = Type.String({ minLength: 1, maxLength: MAX_ID_LENGTH, pattern: '^[^\\s\\u0000]+$' });
const languageTag = Type.String({ pattern: '^[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*$' });
const texts = Type.Record(languageTag, Type.String({ minLength: 1, maxLength: 2000, pattern: WITHOUT_NUL }), { minProperties: 1 });
/** A real calendar date: 2024-02-29 is one, 2023-02-29 and 2024-13-45 are not. */
const date = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', format: 'date' });
const count = Type.Union([Type.Integer({ minimum: 0 }), Type.String({ pattern: '^\\d{1,19}$' })]);
const int32 = Type.Integer({ minimum: 0, maximum: 2147483647 });

export const ArtistRecord = Type.Object({
  kind: Type.Literal('artist'),
  id,
  name: texts,
  originalLanguage: languageTag,
  bio: Type.Optional(texts),
  genres: Type.Array(Type.String({ maxLength: 100, pattern: WITHOUT_NUL }), { maxItems: 50 }),
  followerCount: count,
  monthlyListeners: count,
  isVerified: Type.Boolean(),
  socialLinks: Type.Array(SocialLink, { maxItems: 50 }),
  artwork: Type.Array(Image, { maxItems: 20 }),
  nationality: Type.String({ maxLength: 100, pattern: WITHOUT_NUL }),
  withdrawn: Type.Optional(Type.Boolean({ description: 'A withdrawn artist is answered as NOT_FOUND and left out of lists.' })),
});
export type ArtistRecord = Static<typeof ArtistRecord>;

export const AlbumRecord = Type.Object({
  kind: Type.Literal('album'),
  id,
  title: texts,
  originalLanguage: languageTag,
  artistIds: Type.Array(id, { maxItems: 50 }),
  releaseDate: date,
  artwork: Type.Array(Image, { maxItems: 20 }),
  albumType: Type.Optional({ ...AlbumType, description: 'Default ALBUM_TYPE_ALBUM.' }),
  genres: Type.Optional(Type.Array(Type.String({ maxLength: 100, pattern: WITHOUT_NUL }), { maxItems: 50 })),
  label: Type.Optional(Type.String({ maxLength: 200, pattern: WITHOUT_NUL })),
  withdrawn: Type.Optional(Type.Boolean({ description: 'A withdrawn album is answered as NOT_FOUND; its songs are still served.' })),
});
export type AlbumRecord = Static<typeof AlbumRecord>;

export const SongRecord = Type.Object({
  kind: Type.Literal('song'),
  id,
  title: texts,
  originalLanguage: languageTag,
  artistIds: Type.Array(id, { minItems: 1, maxItems: 50 }),
  albumId: id,
  durationMs: int32,
  trackNumber: int32,
  discNumber: int32,
  releaseDate: date,
  genres: Type.Array(Type.String({ maxLength: 100, pattern: WITHOUT_NUL }), { maxItems: 50 }),
  isExplicit: Type.Boolean(),
  isrc: Type.String({ maxLength: 32, pattern: WITHOUT_NUL }),
  hasLyrics: Type.Optional(Type.Boolean({ description: 'Accepted and ignored: derived from the lyrics records.' })),
  popularity: Type.Integer({ minimum: 0, maximum: 100 }),
  artwork: Type.Array(Image, { maxItems: 20 }),
  previewUrl: Type.String({ maxLength: 2048, pattern: WITHOUT_NUL }),
  withdrawn: Type.Optional(Type.Boolean({ description: 'A withdrawn song is answered as NOT_FOUND.' })),
});
export type SongRecord = Static<typeof SongRecord>;

export const RelatedRecord = Type.Object({
  kind: Type.Literal('related'),
  artistId: id,
  relatedId: id,
  score: Type.Number({ minimum: 0, maximum: 1 }),
});
export type RelatedRecord = Static<typeof RelatedRecord>;

/**
 * A song's lyrics: plain `lines`, or `lrc` text whose time tags make them
 * time-synced (exactly one of the two). A later record for the song replaces it.
 */
export const LyricsRecord = Type.Object({
  kind: Type.Literal('lyrics'),
  songId: id,
  language: languageTag,
  lines: Type.Optional(Type.Array(Type.String({ maxLength: 2000, pattern: WITHOUT_NUL }), { minItems: 1, maxItems: 2000 })),
  lrc: Type.Optional(Type.String({ minLength: 1, maxLength: 200_000, pattern: WITHOUT_NUL })),
});
export type LyricsRecord = Static<typeof LyricsRecord>;

export const ImportRecord = Type.Union([ArtistRecord, AlbumRecord, SongRecord, RelatedRecord, LyricsRecord]);
export type ImportRecord = Static<typeof ImportRecord>;

/** What `maqam import --json` prints: how many records of each kind were written. */
export const ImportSummary = Type.Object({
  artists: Type.Integer(),
  albums: Type.Integer(),
  songs: Type.Integer(),
  related: Type.Integer(),
  lyrics: Type.Integer(),
});
export type ImportSummary = Static<typeof ImportSummary>;
