import { Type, type Static } from 'typebox';
import { ErrorCode } from './errors.ts';

/** The contract's bound on identifier length (section 4). */
export const MAX_ID_LENGTH = 128;
export const MAX_BATCH_SIZE = 100;
export const MAX_PAGE_SIZE = 100;
export const DEFAULT_PAGE_SIZE = 20;

/**
 * No text the API takes may hold NUL: PostgreSQL cannot store or even compare
 * it, and the embedded database must answer exactly as PostgreSQL does.
 */
export const WITHOUT_NUL = '^[^\\u0000]*$';

const idValue = (what: string) =>
  Type.String({ minLength: 1, maxLength: MAX_ID_LENGTH, pattern: WITHOUT_NUL, description: `The ${what} identifier.` });

export const SongID = Type.Object({ value: idValue('song') }, { title: 'SongID' });
export const AlbumID = Type.Object({ value: idValue('album') }, { title: 'AlbumID' });
export const ArtistID = Type.Object({ value: idValue('artist') }, { title: 'ArtistID' });
export type SongID = Static<typeof SongID>;

export const LocalizedString = Type.Object(
  {
    value: Type.String({ description: 'Text resolved for the request locale (Accept-Language).' }),
    originalValue: Type.String({ description: "Text in the item's original language." }),
  },
  { title: 'LocalizedString' },
);
export type LocalizedString = Static<typeof LocalizedString>;

const int32 = (description: string) => Type.Integer({ format: 'int32', description });

export const Image = Type.Object(
  { url: Type.String({ pattern: WITHOUT_NUL }), width: int32('Pixels'), height: int32('Pixels') },
  { title: 'Image' },
);
export type Image = Static<typeof Image>;

export const SongArtistRef = Type.Object(
  { id: Type.Optional(ArtistID), name: Type.Optional(LocalizedString) },
  { title: 'SongArtistRef' },
);

/** Seed section 2: no field of Song is marked required. */
export const Song = Type.Object(
  {
    id: Type.Optional(SongID),
    title: Type.Optional(LocalizedString),
    artists: Type.Optional(Type.Array(SongArtistRef)),
    albumId: Type.Optional(AlbumID),
    durationMs: Type.Optional(int32('Milliseconds')),
    trackNumber: Type.Optional(int32('Track number within the album')),
    discNumber: Type.Optional(int32('Disc number for multi-disc albums')),
    releaseDate: Type.Optional(Type.String({ description: 'YYYY-MM-DD' })),
    genres: Type.Optional(Type.Array(Type.String())),
    isExplicit: Type.Optional(Type.Boolean()),
    isrc: Type.Optional(Type.String({ description: 'May be empty for some regional content.' })),
    hasLyrics: Type.Optional(Type.Boolean()),
    popularity: Type.Optional(int32('0 to 100; higher is more popular')),
    artwork: Type.Optional(Type.Array(Image)),
    previewUrl: Type.Optional(Type.String({ description: 'May be empty.' })),
  },
  { title: 'Song' },
);
export type Song = Static<typeof Song>;

export const SocialLink = Type.Object({ platform: Type.String({ pattern: WITHOUT_NUL }), url: Type.String({ pattern: WITHOUT_NUL }) }, { title: 'SocialLink' });

export const Artist = Type.Object(
  {
    id: ArtistID,
    name: LocalizedString,
    bio: Type.Optional(LocalizedString),
    genres: Type.Array(Type.String()),
    followerCount: Type.String({ description: 'Numeric count carried as a string' }),
    monthlyListeners: Type.String({ description: 'Numeric count carried as a string' }),
    isVerified: Type.Boolean(),
    socialLinks: Type.Array(SocialLink),
    artwork: Type.Array(Image),
    nationality: Type.String(),
  },
  { title: 'Artist' },
);
export type Artist = Static<typeof Artist>;

export const BatchItemError = Type.Object(
  { code: ErrorCode, message: Type.String() },
  { title: 'BatchItemError' },
);

export const SongResult = Type.Object(
  { song: Type.Optional(Song), error: Type.Optional(BatchItemError) },
  { title: 'SongResult', description: 'Holds either the song or the error.' },
);
export type SongResult = Static<typeof SongResult>;

export const BatchGetSongsRequest = Type.Object(
  {
    songIdList: Type.Array(SongID, {
      minItems: 1,
      maxItems: MAX_BATCH_SIZE,
      description: '1 to 100 song ids. Also accepted as song_id_list (proto3 JSON).',
    }),
  },
  { title: 'BatchGetSongsRequest' },
);
export type BatchGetSongsRequest = Static<typeof BatchGetSongsRequest>;

export const BatchGetSongsResponse = Type.Object(
  {
    results: Type.Record(Type.String(), SongResult, {
      description: 'Keyed by every requested song id value.',
    }),
  },
  { title: 'BatchGetSongsResponse' },
);
export type BatchGetSongsResponse = Static<typeof BatchGetSongsResponse>;

export const GetRelatedArtistsParams = Type.Object({ artist_id: idValue('artist') });

const pageSize = Type.Integer({ minimum: 1, maximum: MAX_PAGE_SIZE });
const pageToken = Type.String({ maxLength: 1024, pattern: WITHOUT_NUL });

/**
 * `page_size` / `page_token` are canonical; the aliases are accepted because
 * clients of the upstream API send them. Two spellings with different values
 * are rejected by the route, not here.
 */
export const GetRelatedArtistsQuery = Type.Object({
  page_size: Type.Optional({ ...pageSize, description: 'Page size, 1 to 100; default 20.' }),
  pageSize: Type.Optional({ ...pageSize, description: 'Alias of page_size.' }),
  limit: Type.Optional({ ...pageSize, description: 'Alias of page_size.' }),
  page_token: Type.Optional({ ...pageToken, description: 'Opaque token from nextPageToken.' }),
  pageToken: Type.Optional({ ...pageToken, description: 'Alias of page_token.' }),
});
export type GetRelatedArtistsQuery = Static<typeof GetRelatedArtistsQuery>;

export const GetRelatedArtistsResponse = Type.Object(
  {
    artists: Type.Array(Artist),
    nextPageToken: Type.String({ description: 'Opaque token of the next page; empty on the last page.' }),
  },
  { title: 'GetRelatedArtistsResponse' },
);
export type GetRelatedArtistsResponse = Static<typeof GetRelatedArtistsResponse>;
