import { Type, type Static, type TObject } from 'typebox';
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

export const idValue = (what: string) =>
  Type.String({ minLength: 1, maxLength: MAX_ID_LENGTH, pattern: WITHOUT_NUL, description: `The ${what} identifier.` });

export const SongID = Type.Object({ value: idValue('song') }, { title: 'SongID' });
export const AlbumID = Type.Object({ value: idValue('album') }, { title: 'AlbumID' });
export const ArtistID = Type.Object({ value: idValue('artist') }, { title: 'ArtistID' });
export const PlaylistID = Type.Object({ value: idValue('playlist') }, { title: 'PlaylistID' });
export type SongID = Static<typeof SongID>;

export const LocalizedString = Type.Object(
  {
    value: Type.String({ description: 'Text resolved for the request locale (Accept-Language).' }),
    originalValue: Type.String({ description: "Text in the item's original language." }),
  },
  { title: 'LocalizedString' },
);
export type LocalizedString = Static<typeof LocalizedString>;

export const int32 = (description: string) => Type.Integer({ format: 'int32', description });

export const Image = Type.Object(
  { url: Type.String({ pattern: WITHOUT_NUL }), width: int32('Pixels'), height: int32('Pixels') },
  { title: 'Image' },
);
export type Image = Static<typeof Image>;

/**
 * The schema of an object the wire marks no member of as required, though
 * Maqam sends every one: the seed (section 2) marks no field of Song
 * required, so the OpenAPI document keeps `required` out, while its
 * TypeScript type (the server's, and the SDK's through `x-sent-in-full`)
 * has every member, so that code reading a song need not test each field.
 */
export function sentInFull<T extends TObject>(schema: T): T {
  const { required: _required, ...rest } = schema;
  return { ...rest, 'x-sent-in-full': true } as unknown as T;
}

export const SongArtistRef = sentInFull(Type.Object({ id: ArtistID, name: LocalizedString }, { title: 'SongArtistRef' }));

export const Song = sentInFull(Type.Object(
  {
    id: SongID,
    title: LocalizedString,
    artists: Type.Array(SongArtistRef),
    albumId: AlbumID,
    durationMs: int32('Milliseconds'),
    trackNumber: int32('Track number within the album'),
    discNumber: int32('Disc number for multi-disc albums'),
    releaseDate: Type.String({ description: 'YYYY-MM-DD' }),
    genres: Type.Array(Type.String()),
    isExplicit: Type.Boolean(),
    isrc: Type.String({ description: 'May be empty for some regional content.' }),
    hasLyrics: Type.Boolean(),
    popularity: int32('0 to 100; higher is more popular'),
    artwork: Type.Array(Image),
    previewUrl: Type.String({ description: 'May be empty.' }),
  },
  { title: 'Song' },
));
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

// ---- Contract section 10: the rest of MusicCatalogService ----

export const ALBUM_TYPES = ['ALBUM_TYPE_ALBUM', 'ALBUM_TYPE_SINGLE', 'ALBUM_TYPE_EP', 'ALBUM_TYPE_COMPILATION'] as const;
export type AlbumType = (typeof ALBUM_TYPES)[number];
export const AlbumType = Type.Unsafe<AlbumType>({ type: 'string', enum: [...ALBUM_TYPES], title: 'AlbumType' });

export const Album = Type.Object(
  {
    id: AlbumID,
    title: LocalizedString,
    artists: Type.Array(SongArtistRef),
    albumType: AlbumType,
    releaseDate: Type.String({ description: 'YYYY-MM-DD' }),
    trackCount: int32('Songs of the album that are not withdrawn'),
    totalDurationMs: int32('Total length of the songs counted in trackCount'),
    genres: Type.Array(Type.String()),
    artwork: Type.Array(Image),
    label: Type.String({ description: 'Record label; may be empty.' }),
  },
  { title: 'Album' },
);
export type Album = Static<typeof Album>;

export const batchRequest = (member: string, alias: string, item: typeof SongID, what: string) =>
  Type.Object(
    {
      [member]: Type.Array(item, {
        minItems: 1,
        maxItems: MAX_BATCH_SIZE,
        description: `1 to 100 ${what} ids. Also accepted as ${alias} (proto3 JSON).`,
      }),
    },
    { title: `BatchGet${what[0]!.toUpperCase()}${what.slice(1)}sRequest` },
  );

export const GetSongParams = Type.Object({ song_id: idValue('song') });
export const GetSongResponse = Type.Object({ song: Song }, { title: 'GetSongResponse' });
export type GetSongResponse = Static<typeof GetSongResponse>;

export const GetAlbumParams = Type.Object({ album_id: idValue('album') });
export const GetAlbumResponse = Type.Object({ album: Album }, { title: 'GetAlbumResponse' });
export type GetAlbumResponse = Static<typeof GetAlbumResponse>;

export const AlbumResult = Type.Object(
  { album: Type.Optional(Album), error: Type.Optional(BatchItemError) },
  { title: 'AlbumResult', description: 'Holds either the album or the error.' },
);
export const BatchGetAlbumsRequest = batchRequest('albumIdList', 'album_id_list', AlbumID, 'album');
export type BatchGetAlbumsRequest = { albumIdList: { value: string }[] };
export const BatchGetAlbumsResponse = Type.Object(
  { results: Type.Record(Type.String(), AlbumResult, { description: 'Keyed by every requested album id value.' }) },
  { title: 'BatchGetAlbumsResponse' },
);
export type BatchGetAlbumsResponse = Static<typeof BatchGetAlbumsResponse>;

export const GetArtistParams = Type.Object({ artist_id: idValue('artist') });
export const GetArtistResponse = Type.Object({ artist: Artist }, { title: 'GetArtistResponse' });
export type GetArtistResponse = Static<typeof GetArtistResponse>;

export const ArtistResult = Type.Object(
  { artist: Type.Optional(Artist), error: Type.Optional(BatchItemError) },
  { title: 'ArtistResult', description: 'Holds either the artist or the error.' },
);
export const BatchGetArtistsRequest = batchRequest('artistIdList', 'artist_id_list', ArtistID, 'artist');
export type BatchGetArtistsRequest = { artistIdList: { value: string }[] };
export const BatchGetArtistsResponse = Type.Object(
  { results: Type.Record(Type.String(), ArtistResult, { description: 'Keyed by every requested artist id value.' }) },
  { title: 'BatchGetArtistsResponse' },
);
export type BatchGetArtistsResponse = Static<typeof BatchGetArtistsResponse>;

/** page_size / page_token and their aliases, as GetRelatedArtists takes them. */
export const PageQuery = GetRelatedArtistsQuery;
export type PageQuery = GetRelatedArtistsQuery;

export const GetAlbumTracksResponse = Type.Object(
  {
    tracks: Type.Array(Song),
    nextPageToken: Type.String({ description: 'Opaque token of the next page; empty on the last page.' }),
  },
  { title: 'GetAlbumTracksResponse' },
);
export type GetAlbumTracksResponse = Static<typeof GetAlbumTracksResponse>;

export const GetArtistDiscographyQuery = Type.Object({
  ...GetRelatedArtistsQuery.properties,
  album_type: Type.Optional({ ...AlbumType, description: 'Only albums of this type.' }),
  albumType: Type.Optional({ ...AlbumType, description: 'Alias of album_type.' }),
});
export type GetArtistDiscographyQuery = Static<typeof GetArtistDiscographyQuery>;

export const GetArtistDiscographyResponse = Type.Object(
  {
    albums: Type.Array(Album),
    nextPageToken: Type.String({ description: 'Opaque token of the next page; empty on the last page.' }),
  },
  { title: 'GetArtistDiscographyResponse' },
);
export type GetArtistDiscographyResponse = Static<typeof GetArtistDiscographyResponse>;

export const MAX_TOP_TRACKS = 50;
export const DEFAULT_TOP_TRACKS = 10;
const topTracksSize = Type.Integer({ minimum: 1, maximum: MAX_TOP_TRACKS });
export const GetArtistTopTracksQuery = Type.Object({
  page_size: Type.Optional({ ...topTracksSize, description: 'How many tracks, 1 to 50; default 10.' }),
  pageSize: Type.Optional({ ...topTracksSize, description: 'Alias of page_size.' }),
  limit: Type.Optional({ ...topTracksSize, description: 'Alias of page_size.' }),
});
export type GetArtistTopTracksQuery = Static<typeof GetArtistTopTracksQuery>;

export const GetArtistTopTracksResponse = Type.Object({ tracks: Type.Array(Song) }, { title: 'GetArtistTopTracksResponse' });
export type GetArtistTopTracksResponse = Static<typeof GetArtistTopTracksResponse>;

export const SyncedLyricsLine = Type.Object(
  {
    text: Type.String(),
    startTimeMs: Type.String({ pattern: '^\\d+$', description: 'Milliseconds from the start of the song (proto3 int64, as a string).' }),
  },
  { title: 'SyncedLyricsLine' },
);
export type SyncedLyricsLine = Static<typeof SyncedLyricsLine>;

export const GetLyricsResponse = Type.Object(
  {
    language: Type.String({ description: 'BCP 47 tag of the lyrics.' }),
    lyrics: Type.Object({ lines: Type.Array(Type.String()) }, { title: 'Lyrics' }),
    syncedLyrics: Type.Optional(Type.Object({ lines: Type.Array(SyncedLyricsLine) }, { title: 'SyncedLyrics' })),
  },
  { title: 'GetLyricsResponse' },
);
export type GetLyricsResponse = Static<typeof GetLyricsResponse>;
