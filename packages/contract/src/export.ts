import { Type, type Static } from 'typebox';
import { AlbumID, ArtistID, PlaylistID, SongID } from './catalog.ts';
import { User, PlayContext } from './library.ts';
import { PlaylistVisibility } from './playlists.ts';
import { EpisodeID, MovieID } from './video.ts';

/**
 * A person's own data, as one JSON document (GET /v1/users/me/export, `maqam users export`): what the GDPR's
 * rights of access and portability ask for. Every item is named by its id and, where the catalog still has it,
 * its title in the request's language; nothing of another user is ever in it.
 */

const time = (description: string) => Type.String({ format: 'date-time', description: `${description} RFC 3339, UTC, with milliseconds.` });
const title = (what: string) => Type.Optional(Type.String({ description: `The ${what} in the request's language (else its original); absent if the catalog no longer has it.` }));

export const ExportedSavedSong = Type.Object({ songId: SongID, title: title('song\'s title'), savedAt: time('When it was first saved.') }, { title: 'ExportedSavedSong' });
export const ExportedSavedAlbum = Type.Object({ albumId: AlbumID, title: title('album\'s title'), savedAt: time('When it was first saved.') }, { title: 'ExportedSavedAlbum' });
export const ExportedFollowedArtist = Type.Object({ artistId: ArtistID, name: title('artist\'s name'), followedAt: time('When it was first followed.') }, { title: 'ExportedFollowedArtist' });

export const ExportedPlay = Type.Object(
  {
    playId: Type.String(),
    songId: SongID,
    title: title('song\'s title'),
    startedAt: time('When the play started.'),
    msPlayed: Type.Integer({ minimum: 0 }),
    counted: Type.Boolean({ description: 'Whether it counted as a play (and is listed by GetHistory); false for a skip.' }),
    context: Type.Optional(PlayContext),
  },
  { title: 'ExportedPlay' },
);

export const ExportedPlaylistItem = Type.Object(
  {
    itemId: Type.String(),
    position: Type.Integer({ minimum: 0, description: 'Where it stands, counting from 0.' }),
    songId: SongID,
    title: title('song\'s title'),
    addedAt: time('When the entry was added.'),
  },
  { title: 'ExportedPlaylistItem' },
);

export const ExportedPlaylist = Type.Object(
  {
    id: PlaylistID,
    name: Type.String(),
    description: Type.String(),
    visibility: PlaylistVisibility,
    createdAt: time('When it was made.'),
    updatedAt: time('When it last changed.'),
    version: Type.String({ pattern: '^[0-9]+$', description: 'Its version (the ETag of its reads) when exported.' }),
    items: Type.Array(ExportedPlaylistItem, { description: 'Every entry, in the playlist\'s order.' }),
  },
  { title: 'ExportedPlaylist' },
);

export const ExportedWatchPosition = Type.Object(
  {
    movieId: Type.Optional(MovieID),
    episodeId: Type.Optional(EpisodeID),
    title: title('title'),
    positionMs: Type.Integer({ minimum: 0, description: 'Where to resume.' }),
    updatedAt: time('When the viewer last moved in this title.'),
    finished: Type.Boolean({ description: 'Watched past 90 % (or to its credits).' }),
    hidden: Type.Boolean({ description: 'Hidden from continue watching (its position kept).' }),
  },
  { title: 'ExportedWatchPosition', description: 'Holds exactly one of movieId or episodeId.' },
);

export const UserExport = Type.Object(
  {
    exportedAt: time('When the export began.'),
    user: User,
    savedSongs: Type.Array(ExportedSavedSong, { description: 'Newest save first.' }),
    savedAlbums: Type.Array(ExportedSavedAlbum, { description: 'Newest save first.' }),
    followedArtists: Type.Array(ExportedFollowedArtist, { description: 'Newest follow first.' }),
    plays: Type.Array(ExportedPlay, { description: 'The whole kept history (MAQAM_HISTORY_DAYS), skips included, newest first then playId (GetHistory\'s order); each play once.' }),
    playlists: Type.Array(ExportedPlaylist, { description: 'The user\'s own playlists, newest first, each with every entry.' }),
    watchPositions: Type.Array(ExportedWatchPosition, { description: 'Every film and episode the user has a position in (continue watching), latest first.' }),
  },
  { title: 'UserExport', description: 'Everything a user has put into Maqam, in one document.' },
);
export type UserExport = Static<typeof UserExport>;
