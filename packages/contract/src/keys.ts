import { Type, type Static } from 'typebox';

/** What `maqam keys create --json` prints: the only time the full key is shown. */
export const CreatedApiKey = Type.Object({ id: Type.String(), name: Type.String(), key: Type.String() });
export type CreatedApiKey = Static<typeof CreatedApiKey>;

/** What `maqam keys list --json` prints per key; never the secret. */
export const ApiKeySummary = Type.Object({
  id: Type.String(),
  name: Type.String(),
  createdAt: Type.String({ format: 'date-time' }),
  expiresAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  revokedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  /** When the key last authenticated a request, to the minute; null if never. */
  lastUsedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  status: Type.Union([Type.Literal('active'), Type.Literal('expired'), Type.Literal('revoked')]),
  /** The developer who made it (contract section 16); null: an operator, with the CLI. */
  owner: Type.Optional(Type.Union([Type.String(), Type.Null()])),
});
export type ApiKeySummary = Static<typeof ApiKeySummary>;
