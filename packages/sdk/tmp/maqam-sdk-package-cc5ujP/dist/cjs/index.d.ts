export { MaqamClient, type MaqamClientOptions, type SongResult, type CallContext } from './client.js';
export type { AcquireMusicStreamResponse, Artist, AudioQuality, GetRelatedArtistsResponse, Song, TokenInfoResponse } from './client.js';
export { MaqamError, InvalidRequestError, AuthenticationError, PermissionDeniedError, NotFoundError, RateLimitError, ServiceUnavailableError, SignInRequiredError, NetworkError, type FieldViolation, } from './errors.js';
export { memoryTokens, localStorageTokens, type TokenStorage, type WebStorageLike } from './auth/storage.js';
export type { Tokens, OAuthOptions } from './auth/session.js';
export type { FetchLike } from './http.js';
