/**
 * Who a request acts for, once its credential is checked (http/credentials.ts
 * checks it; services take it). A domain type: what the API key or the
 * token grants, not how it arrived.
 */

/** An application calling with an API key: catalog reads only. */
export interface ApiKeyPrincipal {
  readonly kind: 'apiKey';
  readonly keyId: string;
  /** What the key may be used for: catalog, video, playlists (contract section 16). */
  readonly scopes: ReadonlySet<string>;
  /** The key's own calls a minute; null: the server's. */
  readonly rateLimitPerMinute: number | null;
  /** A rotated key's grace: when it was rotated and when it stops working (Deprecation and Sunset headers). */
  readonly rotation: { readonly rotatedAt: number; readonly sunsetAt: number } | null;
}

/** A user signed in through OAuth, acting through a client with granted scopes. */
export interface TokenPrincipal {
  readonly kind: 'token';
  readonly userId: string;
  readonly clientId: string;
  readonly scope: string;
  readonly scopes: ReadonlySet<string>;
  readonly issuedAt: number;
  readonly expiresAt: number;
  /** The user's parental cap (an AgeRating), or null (video/age-rating.ts). */
  readonly maxAgeRating: string | null;
}

export type Principal = ApiKeyPrincipal | TokenPrincipal;
