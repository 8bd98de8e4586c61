import type { ApiKeyScope, Scope } from '@maqam/contract';
import type { ErrorReason } from '../errors.ts';

/**
 * Who may call an operation, as a route declares it (`config.access`, wired
 * by http/edge.ts): the one table from which both the credential check
 * (credentials.ts) and the OpenAPI document's `security` are made, so the
 * two cannot disagree (contract sections 2, 13 and 14).
 */
export type Access = 'public' | 'catalog' | 'stream' | 'tokeninfo' | 'user-read' | 'user-write' | 'developer';

/** What a credentialed access asks of a token, and what it answers an API key. */
export interface AccessRule {
  /** The scope a token needs; none: any live token. */
  readonly scope: Scope | undefined;
  /** An API key is admitted, or refused with this 403. */
  readonly apiKey: 'admitted' | ErrorReason;
}

export const ACCESS: Readonly<Record<Exclude<Access, 'public'>, AccessRule>> = {
  /** Catalog reads: an API key, or a token with `read`. */
  catalog: { scope: 'read', apiKey: 'admitted' },
  /** Acquire*Stream: a token with `stream`; a key has no user to bill. */
  stream: { scope: 'stream', apiKey: 'apiKeyNotAllowed' },
  /** TokenInfo: any live token. */
  tokeninfo: { scope: undefined, apiKey: 'tokenInfoNeedsToken' },
  /** A user's library and playlists, read. */
  'user-read': { scope: 'read', apiKey: 'apiKeyHasNoUser' },
  /** A user's library and playlists, written. */
  'user-write': { scope: 'write', apiKey: 'apiKeyHasNoUser' },
  /** A developer's own keys (DeveloperService): a token with `developer`, whose user has the developer role (checked by the service). */
  developer: { scope: 'developer', apiKey: 'apiKeyHasNoUser' },
};

/**
 * The key scope (contract section 16) an operation that admits API keys
 * needs, unless its route declares another (`config.keyScope`): the music
 * catalog and search. Video routes declare `video`, public playlists'
 * reads `playlists`.
 */
export const DEFAULT_KEY_SCOPE: ApiKeyScope = 'catalog';

/** An OpenAPI security requirement list (OpenAPI 3.1: alternatives, each a map of scheme to scopes). */
export type Security = readonly Readonly<Record<string, readonly string[]>>[];

/** What the OpenAPI document says an access needs: the schemes and scopes of its rule; none for a public one. */
export function securityOf(access: Access): Security {
  if (access === 'public') return [];
  const rule = ACCESS[access];
  const token = { oauth2: rule.scope === undefined ? [] : [rule.scope] };
  return rule.apiKey === 'admitted' ? [token, { apiKeyAuth: [] }] : [token];
}
