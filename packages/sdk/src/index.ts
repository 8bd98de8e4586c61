// @maqam/sdk: the Maqam API client for browsers, Node >= 20, Deno and Bun.
// Runtime-neutral: nothing here imports a Node built-in (see ./node.ts).
export { MaqamClient, type MaqamClientOptions } from './client.ts';
export type { CallContext, PageOptions, BatchItemError } from './request.ts';
export type { SongResult, AlbumResult, ArtistResult } from './catalog.ts';
export type { ShowResult, SeasonResult, EpisodeResult, MovieResult, SoundtrackTitle } from './video.ts';
export type {
  AcquireMusicStreamResponse, Album, AlbumType, Artist, AudioQuality, GetAlbumTracksResponse, GetArtistDiscographyResponse, GetLyricsResponse,
  GetRelatedArtistsResponse, Page, SearchResponse, SearchResult, SearchType, Song, TokenInfoResponse,
  User, SavedItem, FollowedArtist, HistoryEntry, Change, Play, PlayContext, Playlist, PlaylistItem, PlaylistVisibility,
  AgeRating, CastMember, Show, ShowSeason, Season, Episode, Movie, VideoTitle, GetSeasonResponse, GetSoundtrackResponse, GetSongAppearancesResponse,
  VideoQuality, AcquireVideoStreamResponse, ProgressReport, ContinueWatchingItem, GetContinueWatchingResponse,
  ApiKey, ApiKeyScope, CreatedApiKey, ApiKeyUsage,
} from './types.ts';
export type { LibraryItems, LibraryTitles, SaveResult, FollowResult, PlayResult, ProgressResult, ChangeFeed, UserExport } from './library.ts';
export type { PlayableTitle } from './streaming.ts';
export type { WriteOptions, PlaylistEdit, PlaylistState, ItemsWritten } from './playlists.ts';
export type { NewApiKey } from './developer.ts';
export { isApiKey } from './api-key-format.ts';
export { PlayReporter, type PlayReporterOptions, type EndedPlay } from './play-reporter.ts';
export { WatchReporter, type WatchReporterOptions } from './watch-reporter.ts';
export {
  MaqamError, InvalidRequestError, AuthenticationError, PermissionDeniedError, NotFoundError, ConflictError, RateLimitError,
  ServiceUnavailableError, SignInRequiredError, NetworkError, type FieldViolation, type ErrorCode,
} from './errors.ts';
export { memoryTokens, localStorageTokens, type TokenStorage, type WebStorageLike } from './auth/storage.ts';
export type { Tokens, OAuthOptions } from './auth/session.ts';
export type { FetchLike } from './http.ts';
