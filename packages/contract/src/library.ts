import { Type, type Static } from 'typebox';
import { Album, AlbumID, Artist, ArtistID, BatchItemError, GetRelatedArtistsQuery, MAX_BATCH_SIZE, PlaylistID, Song, SongID, WITHOUT_NUL } from './catalog.ts';
import { AgeRating } from './video.ts';

/** Contract section 13: the user's library (LibraryService) and listening history. */

const time = (description: string) => Type.String({ format: 'date-time', description: `${description} RFC 3339, UTC, with milliseconds.` });
const nextPageToken = Type.String({ description: 'Opaque token of the next page; empty on the last page.' });

export const User = Type.Object(
  {
    id: Type.String(),
    username: Type.String(),
    displayName: Type.String({ description: 'The name to show; the username until the user sets another.' }),
    createdAt: time('When the account was made.'),
    maxAgeRating: Type.Optional({ ...AgeRating, description: 'The parental cap the operator set: titles rated above it are hidden from this user. Absent: no cap.' }),
  },
  { title: 'User' },
);
export type User = Static<typeof User>;

export const GetCurrentUserResponse = Type.Object({ user: User }, { title: 'GetCurrentUserResponse' });
export type GetCurrentUserResponse = Static<typeof GetCurrentUserResponse>;

const idList = (item: typeof SongID, what: string, alias: string) =>
  Type.Array(item, { maxItems: MAX_BATCH_SIZE, description: `${what} ids. Also accepted as ${alias} (proto3 JSON).` });

/** SaveItems, RemoveSavedItems and CheckSavedItems: 1 to 100 ids in all. */
export const SavedItemsRequest = Type.Object(
  {
    songIdList: Type.Optional(idList(SongID, 'Song', 'song_id_list')),
    albumIdList: Type.Optional(idList(AlbumID, 'Album', 'album_id_list')),
  },
  { title: 'SavedItemsRequest', description: '1 to 100 ids in all, songs and albums together.' },
);
export type SavedItemsRequest = Static<typeof SavedItemsRequest>;

export const SaveResult = Type.Object(
  { savedAt: Type.Optional(time('When the item was first saved.')), error: Type.Optional(BatchItemError) },
  { title: 'SaveResult', description: 'Holds either savedAt or the error (NOT_FOUND for an unknown or withdrawn id, which is not saved).' },
);
export const SaveItemsResponse = Type.Object(
  {
    songs: Type.Record(Type.String(), SaveResult, { description: 'Keyed by every requested song id.' }),
    albums: Type.Record(Type.String(), SaveResult, { description: 'Keyed by every requested album id.' }),
  },
  { title: 'SaveItemsResponse' },
);
export type SaveItemsResponse = Static<typeof SaveItemsResponse>;

export const EmptyResponse = Type.Object({}, { title: 'EmptyResponse' });

export const SavedState = Type.Object(
  { saved: Type.Boolean(), savedAt: Type.Optional(time('When the item was first saved.')) },
  { title: 'SavedState' },
);
export const CheckSavedItemsResponse = Type.Object(
  {
    songs: Type.Record(Type.String(), SavedState, { description: 'Keyed by every requested song id.' }),
    albums: Type.Record(Type.String(), SavedState, { description: 'Keyed by every requested album id.' }),
  },
  { title: 'CheckSavedItemsResponse' },
);
export type CheckSavedItemsResponse = Static<typeof CheckSavedItemsResponse>;

export const LIBRARY_ITEM_TYPES = ['song', 'album'] as const;
export type LibraryItemType = (typeof LIBRARY_ITEM_TYPES)[number];

export const GetSavedItemsQuery = Type.Object({
  types: Type.Optional(Type.String({ maxLength: 100, description: 'Comma-separated subset of song, album; default both.' })),
  ...GetRelatedArtistsQuery.properties,
});
export type GetSavedItemsQuery = Static<typeof GetSavedItemsQuery>;

export const SavedItem = Type.Object(
  { song: Type.Optional(Song), album: Type.Optional(Album), savedAt: time('When the item was first saved.') },
  { title: 'SavedItem', description: 'Holds exactly one of song or album.' },
);
export type SavedItem = Static<typeof SavedItem>;
export const GetSavedItemsResponse = Type.Object({ items: Type.Array(SavedItem), nextPageToken }, { title: 'GetSavedItemsResponse' });
export type GetSavedItemsResponse = Static<typeof GetSavedItemsResponse>;

export const FollowedArtistsRequest = Type.Object(
  { artistIdList: Type.Array(ArtistID, { minItems: 1, maxItems: MAX_BATCH_SIZE, description: '1 to 100 artist ids. Also accepted as artist_id_list (proto3 JSON).' }) },
  { title: 'FollowedArtistsRequest' },
);
export type FollowedArtistsRequest = Static<typeof FollowedArtistsRequest>;

export const FollowResult = Type.Object(
  { followedAt: Type.Optional(time('When the artist was first followed.')), error: Type.Optional(BatchItemError) },
  { title: 'FollowResult', description: 'Holds either followedAt or the error.' },
);
export const FollowArtistsResponse = Type.Object(
  { artists: Type.Record(Type.String(), FollowResult, { description: 'Keyed by every requested artist id.' }) },
  { title: 'FollowArtistsResponse' },
);
export type FollowArtistsResponse = Static<typeof FollowArtistsResponse>;

export const FollowingState = Type.Object(
  { following: Type.Boolean(), followedAt: Type.Optional(time('When the artist was first followed.')) },
  { title: 'FollowingState' },
);
export const CheckFollowedArtistsResponse = Type.Object(
  { artists: Type.Record(Type.String(), FollowingState, { description: 'Keyed by every requested artist id.' }) },
  { title: 'CheckFollowedArtistsResponse' },
);
export type CheckFollowedArtistsResponse = Static<typeof CheckFollowedArtistsResponse>;

export const FollowedArtist = Type.Object({ artist: Artist, followedAt: time('When the artist was first followed.') }, { title: 'FollowedArtist' });
export type FollowedArtist = Static<typeof FollowedArtist>;
export const GetFollowedArtistsResponse = Type.Object({ items: Type.Array(FollowedArtist), nextPageToken }, { title: 'GetFollowedArtistsResponse' });
export type GetFollowedArtistsResponse = Static<typeof GetFollowedArtistsResponse>;

export const MAX_PLAYS_PER_REPORT = 50;
/** A play lasting at least this long counts (else half of a song shorter than twice it). */
export const COUNTED_PLAY_MS = 30_000;
export const MAX_MS_PLAYED = 86_400_000;
/** How far back a play may have started: plays made offline are reported later. */
export const MAX_PLAY_AGE_MS = 30 * 24 * 3600 * 1000;
/** How far ahead of the server's clock a play may say it started. */
export const MAX_PLAY_CLOCK_SKEW_MS = 5 * 60 * 1000;
export const PLAY_ID_PATTERN = '^[A-Za-z0-9._-]{1,64}$';

export const PlayContext = Type.Object(
  {
    albumId: Type.Optional(AlbumID),
    artistId: Type.Optional(ArtistID),
    playlistId: Type.Optional(PlaylistID),
    searchQuery: Type.Optional(Type.String({ minLength: 1, maxLength: 200, pattern: WITHOUT_NUL, description: 'What was searched for.' })),
  },
  {
    title: 'PlayContext',
    description: 'Where the play started: exactly one of albumId, artistId, playlistId or searchQuery.',
    minProperties: 1,
    maxProperties: 1,
    additionalProperties: false,
  },
);
export type PlayContext = Static<typeof PlayContext>;

export const Play = Type.Object(
  {
    playId: Type.String({ pattern: PLAY_ID_PATTERN, description: "1 to 64 of A-Z a-z 0-9 . _ -, chosen by the client: reporting the same playId again changes nothing." }),
    songId: SongID,
    startedAt: Type.String({ format: 'date-time', description: 'RFC 3339. At most 30 days in the past and 5 minutes in the future.' }),
    msPlayed: Type.Integer({ minimum: 0, maximum: MAX_MS_PLAYED, description: 'How long it played, in milliseconds (0 to 86,400,000).' }),
    context: Type.Optional(PlayContext),
  },
  { title: 'Play' },
);
export type Play = Static<typeof Play>;

export const ReportPlaysRequest = Type.Object(
  { plays: Type.Array(Play, { minItems: 1, maxItems: MAX_PLAYS_PER_REPORT, description: '1 to 50 plays.' }) },
  { title: 'ReportPlaysRequest' },
);
export type ReportPlaysRequest = Static<typeof ReportPlaysRequest>;

export const PlayResult = Type.Object(
  { counted: Type.Optional(Type.Boolean({ description: 'Whether the play counts (and is listed by GetHistory); a shorter one is kept as a skip.' })), error: Type.Optional(BatchItemError) },
  { title: 'PlayResult', description: 'Holds either counted or the error.' },
);
export const ReportPlaysResponse = Type.Object(
  { results: Type.Record(Type.String(), PlayResult, { description: 'Keyed by every reported playId.' }) },
  { title: 'ReportPlaysResponse' },
);
export type ReportPlaysResponse = Static<typeof ReportPlaysResponse>;

export const HistoryEntry = Type.Object(
  {
    song: Song,
    playId: Type.String(),
    playedAt: time('When the play started.'),
    msPlayed: Type.Integer(),
    context: Type.Optional(PlayContext),
  },
  { title: 'HistoryEntry' },
);
export type HistoryEntry = Static<typeof HistoryEntry>;
export const GetHistoryResponse = Type.Object({ entries: Type.Array(HistoryEntry), nextPageToken }, { title: 'GetHistoryResponse' });
export type GetHistoryResponse = Static<typeof GetHistoryResponse>;

export const CHANGE_KINDS = ['song', 'album', 'artist', 'playlist', 'movie', 'episode'] as const;
export const CHANGE_TYPES = ['CHANGE_SAVED', 'CHANGE_REMOVED', 'CHANGE_UPDATED'] as const;
export const MAX_CHANGES_PER_PAGE = 500;

export const Change = Type.Object(
  {
    kind: Type.Unsafe<(typeof CHANGE_KINDS)[number]>({ type: 'string', enum: [...CHANGE_KINDS] }),
    id: Type.String(),
    change: Type.Unsafe<(typeof CHANGE_TYPES)[number]>({ type: 'string', enum: [...CHANGE_TYPES] }),
    at: time('When the change committed.'),
  },
  { title: 'Change' },
);
export type Change = Static<typeof Change>;

export const GetLibraryChangesQuery = Type.Object({
  cursor: Type.Optional(Type.String({ maxLength: 1000, description: 'The nextCursor of an earlier answer; without it, the answer marks now.' })),
});
export const GetLibraryChangesResponse = Type.Object(
  {
    changes: Type.Array(Change, { description: 'In commit order, at most 500.' }),
    nextCursor: Type.String({ description: 'Where the next call starts. Kept for 90 days.' }),
  },
  { title: 'GetLibraryChangesResponse' },
);
export type GetLibraryChangesResponse = Static<typeof GetLibraryChangesResponse>;
