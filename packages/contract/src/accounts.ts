import { Type, type Static } from 'typebox';
import { ScopeName } from './scopes.ts';

/** What `maqam users create --json` prints. */
export const CreatedUser = Type.Object({ id: Type.String(), username: Type.String() });
export type CreatedUser = Static<typeof CreatedUser>;

/** What `maqam clients create --json` prints, and each element of `clients list --json`. */
export const OAuthClientRecord = Type.Object({
  clientId: Type.String(),
  name: Type.String(),
  redirectUris: Type.Array(Type.String()),
  scopes: Type.Array(ScopeName),
});
export type OAuthClientRecord = Static<typeof OAuthClientRecord>;
