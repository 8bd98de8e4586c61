import { Type, type Static } from 'typebox';
import { AlbumType, Image, MAX_ID_LENGTH, SocialLink, WITHOUT_NUL } from './catalog.ts';
import { AgeRating } from './video.ts';

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

// ---- Contract section 15: video records ----

const genres = Type.Array(Type.String({ maxLength: 100, pattern: WITHOUT_NUL }), { maxItems: 50 });
const languages = Type.Array(languageTag, { maxItems: 50 });
const artwork = Type.Array(Image, { maxItems: 20 });
const rating = { ...AgeRating, description: 'Absent: unrated, which parental caps treat as AGE_RATING_18.' };
const withdrawn = Type.Optional(Type.Boolean({ description: 'A withdrawn title is answered as NOT_FOUND and left out of lists.' }));
const soundtrack = Type.Optional(Type.Array(id, { maxItems: 500, description: 'Songs of the catalog, in the order they are listed.' }));

/** A person in a title's cast; the name's original language defaults to the title's. */
export const CastMemberRecord = Type.Object({
  id,
  name: texts,
  originalLanguage: Type.Optional(languageTag),
  role: Type.Optional(Type.String({ maxLength: 200, pattern: WITHOUT_NUL })),
  profileImageUrl: Type.Optional(Type.String({ maxLength: 2048, pattern: WITHOUT_NUL })),
  isLead: Type.Optional(Type.Boolean()),
});
export type CastMemberRecord = Static<typeof CastMemberRecord>;
const cast = Type.Optional(Type.Array(CastMemberRecord, { maxItems: 200 }));

export const ShowRecord = Type.Object({
  kind: Type.Literal('show'),
  id,
  title: texts,
  originalLanguage: languageTag,
  description: Type.Optional(texts),
  genres: Type.Optional(genres),
  ageRating: Type.Optional(rating),
  releaseYear: Type.Integer({ minimum: 1800, maximum: 9999 }),
  cast,
  artwork: Type.Optional(artwork),
  soundtrack,
  withdrawn,
});
export type ShowRecord = Static<typeof ShowRecord>;

/** A season of a show; its episodeCount is derived from the episode records. */
export const SeasonRecord = Type.Object({
  kind: Type.Literal('season'),
  id,
  showId: id,
  seasonNumber: int32,
  title: texts,
  originalLanguage: languageTag,
  description: Type.Optional(texts),
  airDate: Type.Optional(date),
  artwork: Type.Optional(artwork),
  withdrawn,
});
export type SeasonRecord = Static<typeof SeasonRecord>;

/** An episode of a season; its show is its season's (a `showId`, if given, must be that one). */
export const EpisodeRecord = Type.Object({
  kind: Type.Literal('episode'),
  id,
  seasonId: id,
  showId: Type.Optional(id),
  episodeNumber: int32,
  title: texts,
  originalLanguage: languageTag,
  description: Type.Optional(texts),
  durationMs: int32,
  airDate: Type.Optional(date),
  guestCast: cast,
  artwork: Type.Optional(artwork),
  audioLanguages: Type.Optional(languages),
  subtitleLanguages: Type.Optional(languages),
  ageRating: Type.Optional({ ...AgeRating, description: "The episode's own rating; absent: its show's." }),
  creditsStartMs: Type.Optional(int32),
  withdrawn,
});
export type EpisodeRecord = Static<typeof EpisodeRecord>;

export const MovieRecord = Type.Object({
  kind: Type.Literal('movie'),
  id,
  title: texts,
  originalLanguage: languageTag,
  description: Type.Optional(texts),
  genres: Type.Optional(genres),
  ageRating: Type.Optional(rating),
  releaseDate: date,
  durationMs: int32,
  cast,
  artwork: Type.Optional(artwork),
  audioLanguages: Type.Optional(languages),
  subtitleLanguages: Type.Optional(languages),
  creditsStartMs: Type.Optional(int32),
  soundtrack,
  withdrawn,
});
export type MovieRecord = Static<typeof MovieRecord>;

export const ImportRecord = Type.Union([
  ArtistRecord, AlbumRecord, SongRecord, RelatedRecord, LyricsRecord, ShowRecord, SeasonRecord, EpisodeRecord, MovieRecord,
]);
export type ImportRecord = Static<typeof ImportRecord>;

/** What `maqam import --json` prints: how many records of each kind were written. */
export const ImportSummary = Type.Object({
  artists: Type.Integer(),
  albums: Type.Integer(),
  songs: Type.Integer(),
  related: Type.Integer(),
  lyrics: Type.Integer(),
  shows: Type.Integer(),
  seasons: Type.Integer(),
  episodes: Type.Integer(),
  movies: Type.Integer(),
});
export type ImportSummary = Static<typeof ImportSummary>;
