import { Type, type Static } from 'typebox';
import { BatchItemError, Image, LocalizedString, MAX_BATCH_SIZE, MAX_ID_LENGTH, Song, SongID, WITHOUT_NUL } from './catalog.ts';

/** Contract section 14: playlists (PlaylistService). */

const time = (description: string) => Type.String({ format: 'date-time', description: `${description} RFC 3339, UTC, with milliseconds.` });
const nextPageToken = Type.String({ description: 'Opaque token of the next page; empty on the last page.' });
const version = Type.String({ pattern: '^[0-9]+$', description: 'Increases with every change of the playlist, its items or its details; also its ETag ("<version>").' });

export const MAX_PLAYLIST_NAME = 100;
export const MAX_PLAYLIST_DESCRIPTION = 300;
/** How many playlists one user may have. */
export const MAX_PLAYLISTS_PER_USER = 1000;
/** How many entries a playlist holds unless MAQAM_PLAYLIST_MAX_ITEMS says otherwise. */
export const DEFAULT_PLAYLIST_MAX_ITEMS = 10_000;

export const PLAYLIST_VISIBILITIES = ['PLAYLIST_VISIBILITY_PRIVATE', 'PLAYLIST_VISIBILITY_PUBLIC'] as const;
export type PlaylistVisibility = (typeof PLAYLIST_VISIBILITIES)[number];
export const PlaylistVisibility = Type.Unsafe<PlaylistVisibility>({
  type: 'string',
  enum: [...PLAYLIST_VISIBILITIES],
  title: 'PlaylistVisibility',
  description: 'PRIVATE: only its owner knows it exists. PUBLIC: anyone may read it (any user, or an API key); only its owner writes it.',
});

export const Playlist = Type.Object(
  {
    id: Type.Object({ value: Type.String() }, { title: 'PlaylistID' }),
    name: LocalizedString,
    description: LocalizedString,
    visibility: PlaylistVisibility,
    ownerId: Type.String({ description: 'The id of the user who owns it.' }),
    ownerName: Type.String({ description: 'The name its owner shows.' }),
    coverArtwork: Type.Array(Image, { description: 'Drawn by the server: a mosaic of the first four distinct album covers, one cover when there are fewer, none when empty.' }),
    itemCount: Type.Integer({ description: 'How many entries it holds.' }),
    totalDurationMs: Type.String({ pattern: '^[0-9]+$', description: 'The entries\' durations added up (int64 as a decimal string).' }),
    createdAt: time('When it was made.'),
    updatedAt: time('When it last changed.'),
    version,
  },
  { title: 'Playlist', description: 'A user\'s texts are their own language: value and originalValue are the same.' },
);
export type Playlist = Static<typeof Playlist>;

export const PlaylistItem = Type.Object(
  {
    itemId: Type.String({ description: 'The entry\'s id: stable for its life, different for two entries of the same song.' }),
    position: Type.Integer({ minimum: 0, description: 'Where it stands, counting from 0.' }),
    addedAt: time('When the entry was added.'),
    song: Type.Optional(Song),
    error: Type.Optional(BatchItemError),
  },
  { title: 'PlaylistItem', description: 'Holds song, or error (NOT_FOUND) for an entry whose song was withdrawn: it keeps its place.' },
);
export type PlaylistItem = Static<typeof PlaylistItem>;

const songIdList = (minItems: number) =>
  Type.Array(SongID, {
    minItems,
    maxItems: MAX_BATCH_SIZE,
    description: `${minItems} to ${MAX_BATCH_SIZE} song ids; a song named twice becomes two entries. Also accepted as song_id_list (proto3 JSON).`,
  });
const itemId = (description: string) => Type.String({ minLength: 1, maxLength: MAX_ID_LENGTH, pattern: WITHOUT_NUL, description });
const name = Type.String({ maxLength: 1000, pattern: WITHOUT_NUL, description: `1 to ${MAX_PLAYLIST_NAME} characters once trimmed.` });
const description = Type.String({ maxLength: 3000, pattern: WITHOUT_NUL, description: `0 to ${MAX_PLAYLIST_DESCRIPTION} characters once trimmed.` });

export const PlaylistParams = Type.Object({ playlist_id: Type.String({ minLength: 1, maxLength: MAX_ID_LENGTH, pattern: WITHOUT_NUL, description: 'The playlist id.' }) });
export type PlaylistParams = Static<typeof PlaylistParams>;

export const CreatePlaylistRequest = Type.Object(
  { name, description: Type.Optional(description), visibility: Type.Optional(PlaylistVisibility), songIdList: Type.Optional(songIdList(0)) },
  { title: 'CreatePlaylistRequest' },
);
export type CreatePlaylistRequest = Static<typeof CreatePlaylistRequest>;

export const PlaylistResponse = Type.Object({ playlist: Playlist }, { title: 'PlaylistResponse' });
export type PlaylistResponse = Static<typeof PlaylistResponse>;

export const GetUserPlaylistsResponse = Type.Object({ playlists: Type.Array(Playlist), nextPageToken }, { title: 'GetUserPlaylistsResponse' });
export type GetUserPlaylistsResponse = Static<typeof GetUserPlaylistsResponse>;

export const GetPlaylistResponse = Type.Object(
  { playlist: Playlist, items: Type.Array(PlaylistItem, { description: 'The first page of its entries.' }), nextPageToken },
  { title: 'GetPlaylistResponse' },
);
export type GetPlaylistResponse = Static<typeof GetPlaylistResponse>;

export const GetPlaylistItemsResponse = Type.Object({ items: Type.Array(PlaylistItem), version, nextPageToken }, { title: 'GetPlaylistItemsResponse' });
export type GetPlaylistItemsResponse = Static<typeof GetPlaylistItemsResponse>;

export const UpdatePlaylistRequest = Type.Object(
  { name: Type.Optional(name), description: Type.Optional(description), visibility: Type.Optional(PlaylistVisibility) },
  { title: 'UpdatePlaylistRequest', description: 'The details to change; those left out stay.' },
);
export type UpdatePlaylistRequest = Static<typeof UpdatePlaylistRequest>;

export const AddPlaylistItemsRequest = Type.Object(
  { songIdList: songIdList(1), beforeItemId: Type.Optional(itemId('The entry to add them just before; at the end without it. Also before_item_id.')) },
  { title: 'AddPlaylistItemsRequest' },
);
export type AddPlaylistItemsRequest = Static<typeof AddPlaylistItemsRequest>;

export const PlaylistItemsWriteResponse = Type.Object({ items: Type.Array(PlaylistItem, { description: 'The new entries, in order.' }), version }, { title: 'PlaylistItemsWriteResponse' });
export type PlaylistItemsWriteResponse = Static<typeof PlaylistItemsWriteResponse>;

const itemIds = Type.Array(itemId('An entry id.'), { minItems: 1, maxItems: MAX_BATCH_SIZE, description: `1 to ${MAX_BATCH_SIZE} entry ids. Also accepted as item_ids (proto3 JSON).` });

export const RemovePlaylistItemsRequest = Type.Object({ itemIds }, { title: 'RemovePlaylistItemsRequest' });
export type RemovePlaylistItemsRequest = Static<typeof RemovePlaylistItemsRequest>;
export const RemovePlaylistItemsResponse = Type.Object(
  { removed: Type.Integer({ description: 'How many of the entries were removed (an entry already gone is skipped).' }), version },
  { title: 'RemovePlaylistItemsResponse' },
);
export type RemovePlaylistItemsResponse = Static<typeof RemovePlaylistItemsResponse>;

export const MovePlaylistItemsRequest = Type.Object(
  { itemIds, beforeItemId: Type.Optional(itemId('The entry to put them just before; at the end without it. Also before_item_id.')) },
  { title: 'MovePlaylistItemsRequest' },
);
export type MovePlaylistItemsRequest = Static<typeof MovePlaylistItemsRequest>;
export const VersionResponse = Type.Object({ version }, { title: 'VersionResponse' });
export type VersionResponse = Static<typeof VersionResponse>;

export const ReplacePlaylistItemsRequest = Type.Object({ songIdList: songIdList(0) }, { title: 'ReplacePlaylistItemsRequest' });
export type ReplacePlaylistItemsRequest = Static<typeof ReplacePlaylistItemsRequest>;
