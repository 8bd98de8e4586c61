export { MaqamClient, type MaqamClientOptions, type SongResult, type AudioQuality, type CallContext } from './client.ts';
export {
  MaqamError, InvalidRequestError, AuthenticationError, PermissionDeniedError, NotFoundError, RateLimitError,
  ServiceUnavailableError, SignInRequiredError, NetworkError, type FieldViolation,
} from './errors.ts';
export { memoryTokens, localStorageTokens, type TokenStorage } from './auth/storage.ts';
export type { Tokens, OAuthOptions } from './auth/session.ts';
