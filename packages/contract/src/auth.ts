import { WITHOUT_NUL } from './catalog.ts';
import { Type, type Static } from 'typebox';

/**
 * POST /v1/auth/token: the seed's ExchangeToken body, and grant_type=refresh_token
 * (RFC 6749 §6). Accepted as JSON or application/x-www-form-urlencoded, in
 * snake_case or lowerCamelCase.
 */
export const TokenRequest = Type.Object(
  {
    grant_type: Type.String({ description: 'authorization_code or refresh_token' }),
    code: Type.Optional(Type.String({ maxLength: 512 })),
    redirect_uri: Type.Optional(Type.String({ maxLength: 2048 })),
    client_id: Type.Optional(Type.String({ maxLength: 128, pattern: WITHOUT_NUL })),
    code_verifier: Type.Optional(Type.String({ maxLength: 512 })),
    refresh_token: Type.Optional(Type.String({ maxLength: 512 })),
  },
  { title: 'TokenRequest' },
);
export type TokenRequest = Static<typeof TokenRequest>;

export const RefreshTokenRequest = Type.Object(
  { refresh_token: Type.String({ maxLength: 512 }), client_id: Type.String({ maxLength: 128, pattern: WITHOUT_NUL }) },
  { title: 'RefreshTokenRequest' },
);
export type RefreshTokenRequest = Static<typeof RefreshTokenRequest>;

export const RevokeTokenRequest = Type.Object(
  {
    token: Type.String({ maxLength: 512 }),
    token_type_hint: Type.Optional(Type.String({ description: 'access_token or refresh_token; advisory' })),
  },
  { title: 'RevokeTokenRequest' },
);
export type RevokeTokenRequest = Static<typeof RevokeTokenRequest>;

/** Seed section 2 token response; expires_in is in seconds. */
export const TokenResponse = Type.Object(
  {
    access_token: Type.String(),
    refresh_token: Type.String(),
    token_type: Type.Literal('Bearer'),
    expires_in: Type.Integer({ description: 'Seconds until the access token expires' }),
    scope: Type.String({ description: 'Space-separated granted scopes' }),
  },
  { title: 'TokenResponse' },
);
export type TokenResponse = Static<typeof TokenResponse>;

export const TokenInfoResponse = Type.Object(
  {
    active: Type.Literal(true),
    scope: Type.String(),
    client_id: Type.String(),
    sub: Type.String({ description: 'The user id' }),
    iat: Type.Integer({ description: 'Issued at, Unix seconds' }),
    exp: Type.Integer({ description: 'Expires at, Unix seconds' }),
    expires_in: Type.Integer({ description: 'Seconds left' }),
    token_type: Type.Literal('Bearer'),
  },
  { title: 'TokenInfo' },
);
export type TokenInfoResponse = Static<typeof TokenInfoResponse>;

/** RFC 6749 / RFC 7009 error members, beside the contract's code and message. */
export const OAuthErrorBody = Type.Object(
  {
    code: Type.String(),
    message: Type.String(),
    requestId: Type.Optional(Type.String()),
    error: Type.Optional(Type.String()),
    error_description: Type.Optional(Type.String()),
    violations: Type.Optional(Type.Array(Type.Object({ field: Type.String(), description: Type.String() }))),
  },
  { title: 'OAuthError' },
);
