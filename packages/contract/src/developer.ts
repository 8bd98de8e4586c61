import { Type, type Static } from 'typebox';
import { WITHOUT_NUL } from './catalog.ts';

/** Contract section 16: developers' own keys (DeveloperService). */

const time = (description: string) => Type.String({ format: 'date-time', description: `${description} RFC 3339, UTC.` });
const orNull = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

/** What a key may be used for: the music catalog and search, the video catalog, public playlists. */
export const API_KEY_SCOPES = ['catalog', 'video', 'playlists'] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];
export const ApiKeyScopeName = Type.Unsafe<ApiKeyScope>({
  type: 'string', enum: [...API_KEY_SCOPES], title: 'ApiKeyScope',
  description: 'catalog: the music catalog and search. video: the video catalog. playlists: public playlists.',
});

export const API_KEY_STATUSES = ['API_KEY_STATUS_ACTIVE', 'API_KEY_STATUS_ROTATING', 'API_KEY_STATUS_REVOKED', 'API_KEY_STATUS_EXPIRED'] as const;
export type ApiKeyStatus = (typeof API_KEY_STATUSES)[number];

/** The longest a rotated key's old secret may keep working. */
export const MAX_ROTATION_GRACE_SECONDS = 30 * 24 * 3600;
export const MAX_API_KEY_NAME = 100;
/** How many keys one developer may hold (revoked ones included). */
export const MAX_API_KEYS_PER_DEVELOPER = 100;
/** The longest span one usage request covers. */
export const MAX_USAGE_DAYS = 366;

const name = Type.String({ minLength: 1, maxLength: MAX_API_KEY_NAME, pattern: '\\S', description: 'What the key is for, as its developer calls it.' });
const rateLimitPerMinute = Type.Integer({ minimum: 1, description: 'Calls a minute this key may make; at most the server\'s own limit (MAQAM_RATE_LIMIT).' });

export const ApiKey = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    keyPrefix: Type.String({ description: 'The start of the key (`mk_<id>_`), to recognise it; never the secret.' }),
    status: Type.Unsafe<ApiKeyStatus>({ type: 'string', enum: [...API_KEY_STATUSES], title: 'ApiKeyStatus', description: 'ROTATING: replaced by a newer key, and working until expiresAt.' }),
    scopes: Type.Array(ApiKeyScopeName),
    rateLimitPerMinute: Type.Integer({ description: 'Calls a minute the key may make.' }),
    createdAt: time('When it was made.'),
    lastUsedAt: orNull(time('When it last authenticated a request, to the minute (counted in memory and written at most once a minute);')),
    expiresAt: orNull(time('When it stops working; null: never.')),
  },
  { title: 'ApiKey' },
);
export type ApiKey = Static<typeof ApiKey>;

export const CreateApiKeyRequest = Type.Object(
  {
    name,
    scopes: Type.Optional(Type.Array(ApiKeyScopeName, { minItems: 1, maxItems: 3, uniqueItems: true, description: 'Default: all three.' })),
    expiresAt: Type.Optional(Type.String({ format: 'date-time', description: 'When it stops working; default: never.' })),
    rateLimitPerMinute: Type.Optional(rateLimitPerMinute),
  },
  { title: 'CreateApiKeyRequest', additionalProperties: false },
);
export type CreateApiKeyRequest = Static<typeof CreateApiKeyRequest>;

export const CreatedApiKeyResponse = Type.Object(
  { apiKey: ApiKey, secret: Type.String({ description: 'The whole key, `mk_<id>_<secret><checksum>`: shown this once, never again.' }) },
  { title: 'CreateApiKeyResponse' },
);
export type CreatedApiKeyResponse = Static<typeof CreatedApiKeyResponse>;

export const UpdateApiKeyRequest = Type.Object(
  { name: Type.Optional(name), rateLimitPerMinute: Type.Optional(rateLimitPerMinute) },
  { title: 'UpdateApiKeyRequest', additionalProperties: false, minProperties: 1 },
);
export type UpdateApiKeyRequest = Static<typeof UpdateApiKeyRequest>;

export const RotateApiKeyRequest = Type.Object(
  { graceSeconds: Type.Integer({ minimum: 0, maximum: MAX_ROTATION_GRACE_SECONDS, description: 'How long the old secret keeps working.' }) },
  { title: 'RotateApiKeyRequest', additionalProperties: false },
);

export const ApiKeyParams = Type.Object({ key_id: Type.String({ minLength: 1, maxLength: 64, pattern: WITHOUT_NUL, description: 'The key\'s id (the part of the key after `mk_`).' }) });

export const ApiKeyResponse = Type.Object({ apiKey: ApiKey }, { title: 'ApiKeyResponse' });
export const ListApiKeysResponse = Type.Object(
  { apiKeys: Type.Array(ApiKey), nextPageToken: Type.String({ description: 'Opaque token of the next page; empty on the last page.' }) },
  { title: 'ListApiKeysResponse' },
);

const day = Type.String({ pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$', description: 'A day, YYYY-MM-DD (UTC).' });
export const ApiKeyUsageQuery = Type.Object({
  from: Type.Optional({ ...day, description: 'First day, YYYY-MM-DD (UTC); default: 29 days before `to`.' }),
  to: Type.Optional({ ...day, description: 'Last day, YYYY-MM-DD (UTC), included; default: today.' }),
});
export const ApiKeyUsageRow = Type.Object(
  {
    date: day,
    operation: Type.String({ description: 'The operationId, e.g. BatchGetSongs.' }),
    calls: Type.Integer({ description: 'Requests answered.' }),
    clientErrors: Type.Integer({ description: 'Of them, answered 4xx (429 included).' }),
    rateLimited: Type.Integer({ description: 'Of them, answered 429.' }),
  },
  { title: 'ApiKeyUsage' },
);
export const ApiKeyUsageResponse = Type.Object(
  { from: day, to: day, usage: Type.Array(ApiKeyUsageRow, { description: 'One row per day and operation with calls, by day then operation.' }) },
  { title: 'GetApiKeyUsageResponse' },
);
export type ApiKeyUsageResponse = Static<typeof ApiKeyUsageResponse>;

export const ReportLeakedKeyRequest = Type.Object(
  { key: Type.String({ maxLength: 256, description: 'The whole key as found.' }) },
  { title: 'ReportLeakedKeyRequest', additionalProperties: false },
);
