import { timingSafeEqual } from 'node:crypto';
import { MAX_API_KEYS_PER_DEVELOPER, MAX_USAGE_DAYS, type ApiKey, type ApiKeyScope, type ApiKeyUsageResponse, type CreatedApiKeyResponse } from '@maqam/contract';
import { ApiError, invalidRequest } from '../errors.ts';
import { secretDigest } from '../crypto/secret-hash.ts';
import type { ApiKeyRow, ApiKeysRepo, UsageRow } from './api-keys.repo.ts';
import { ApiKeyNotFoundError, ApiKeyNotRotatableError, scopesOf, statusOf, type ApiKeysService } from './api-keys.service.ts';
import { dayOf } from './key-usage.ts';
import { parseKey } from './key-format.ts';

/** A keyset page whose token is checked: `read` gets one row more than the page after `after`. */
export interface KeysetPages {
  read<Row>(read: (after: [number, string] | null, limit: number) => Promise<Row[]>, positionOf: (row: Row) => [number, string]): Promise<{ rows: Row[]; nextPageToken: string }>;
}

export interface DeveloperDeps {
  repo: ApiKeysRepo;
  keys: ApiKeysService;
  /**
   * A key's counts, those written (read by `readWritten`) and those not yet
   * (key-usage.ts `read`): the usage answer shows both, so a call shows at once.
   */
  usageOf(keyId: string, readWritten: () => Promise<readonly UsageRow[]>): Promise<UsageRow[]>;
  /** Whether the user holds the developer role (read on every request: an operator's revocation counts at once). */
  isDeveloper(userId: string): Promise<boolean>;
  /**
   * A page of a keyset list over (created_at, id), as every list pages
   * (catalog/page-cursor.ts keysetPage with the request's page_size and
   * page_token), lent by app.ts.
   */
  pages(query: Record<string, unknown>, scope: string): KeysetPages;
  clock: () => number;
  /** MAQAM_RATE_LIMIT: a key's own limit is at most this (0: the server does not limit). */
  serverLimitPerMinute: number;
}

const DAY_MS = 24 * 3600 * 1000;
const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const iso = (ms: number | string | null) => (ms === null ? null : new Date(Number(ms)).toISOString());
/** lastUsedAt is told to the minute (each node writes it at most once a minute). */
const toMinute = (ms: number | null) => (ms === null ? null : new Date(Math.floor(Number(ms) / 60_000) * 60_000).toISOString());

/** A day parameter's time at 00:00 UTC, or a 400 naming it. */
function dayParameter(value: string, field: string): number {
  const match = DAY.exec(value);
  const ms = match ? Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])) : Number.NaN;
  if (Number.isNaN(ms) || dayOf(ms) !== value) throw invalidRequest({ field, reason: 'invalid' });
  return ms;
}

/**
 * DeveloperService (contract section 16): a developer's own API keys. Every
 * operation first checks the role; a key of another developer is the same
 * 404 as an unknown id. reportLeaked needs no credential.
 */
export function createDeveloperService(deps: DeveloperDeps) {
  const { repo, keys, pages, clock, serverLimitPerMinute } = deps;

  function apiKeyOf(row: ApiKeyRow): ApiKey {
    const now = clock();
    const status = statusOf(row, now);
    return {
      id: row.id,
      name: row.name,
      keyPrefix: `mk_${row.id}_`,
      status: status === 'revoked' ? 'API_KEY_STATUS_REVOKED'
        : status === 'expired' ? 'API_KEY_STATUS_EXPIRED'
          : row.rotated_at !== null ? 'API_KEY_STATUS_ROTATING' : 'API_KEY_STATUS_ACTIVE',
      scopes: scopesOf(row),
      rateLimitPerMinute: row.rate_limit_per_minute ?? serverLimitPerMinute,
      createdAt: iso(row.created_at)!,
      lastUsedAt: toMinute(row.last_used_at),
      expiresAt: iso(row.expires_at),
    };
  }

  async function requireDeveloper(userId: string): Promise<void> {
    if (!(await deps.isDeveloper(userId))) throw new ApiError('developerRoleMissing');
  }

  /** The developer's key, read from the database; another's is the same 404 as an unknown id. */
  async function owned(userId: string, keyId: string): Promise<ApiKeyRow> {
    await requireDeveloper(userId);
    const row = await repo.load(keyId);
    if (row === undefined || row.owner_id !== userId) throw new ApiError('apiKeyNotFound', { params: { id: keyId } });
    return row;
  }

  function checkLimit(rateLimitPerMinute: number | undefined): void {
    if (rateLimitPerMinute !== undefined && serverLimitPerMinute > 0 && rateLimitPerMinute > serverLimitPerMinute) {
      throw invalidRequest({ field: 'rateLimitPerMinute', reason: 'maximum', params: { limit: serverLimitPerMinute } });
    }
  }

  async function created(made: { id: string; key: string }): Promise<CreatedApiKeyResponse> {
    return { apiKey: apiKeyOf((await repo.load(made.id))!), secret: made.key };
  }

  return {
    apiKeyOf,

    async create(userId: string, request: { name: string; scopes?: ApiKeyScope[]; expiresAt?: string; rateLimitPerMinute?: number }): Promise<CreatedApiKeyResponse> {
      await requireDeveloper(userId);
      checkLimit(request.rateLimitPerMinute);
      let expiresAt: number | null = null;
      if (request.expiresAt !== undefined) {
        expiresAt = Date.parse(request.expiresAt);
        if (Number.isNaN(expiresAt) || expiresAt <= clock()) throw invalidRequest({ field: 'expiresAt', reason: 'invalid' });
      }
      if ((await repo.countOwned(userId)) >= MAX_API_KEYS_PER_DEVELOPER) throw new ApiError('tooManyApiKeys', { params: { limit: MAX_API_KEYS_PER_DEVELOPER } });
      return created(await keys.create({
        name: request.name.trim(), ownerId: userId, expiresAt, scopes: request.scopes, rateLimitPerMinute: request.rateLimitPerMinute ?? null,
      }));
    },

    async list(userId: string, query: Record<string, unknown>): Promise<{ apiKeys: ApiKey[]; nextPageToken: string }> {
      await requireDeveloper(userId);
      const { rows, nextPageToken } = await pages(query, `developer-keys:${userId}`)
        .read((after, limit) => repo.listOwned(userId, after, limit), (row) => [Number(row.created_at), row.id]);
      return { apiKeys: rows.map(apiKeyOf), nextPageToken };
    },

    async get(userId: string, keyId: string): Promise<ApiKey> {
      return apiKeyOf(await owned(userId, keyId));
    },

    async update(userId: string, keyId: string, changes: { name?: string; rateLimitPerMinute?: number }): Promise<ApiKey> {
      await owned(userId, keyId);
      checkLimit(changes.rateLimitPerMinute);
      await repo.update(keyId, {
        ...(changes.name !== undefined && { name: changes.name.trim() }),
        ...(changes.rateLimitPerMinute !== undefined && { rate_limit_per_minute: changes.rateLimitPerMinute }),
      });
      return apiKeyOf((await repo.load(keyId))!);
    },

    async rotate(userId: string, keyId: string, graceSeconds: number): Promise<CreatedApiKeyResponse> {
      await owned(userId, keyId);
      try {
        return await created(await keys.rotate(keyId, graceSeconds));
      } catch (error) {
        if (error instanceof ApiKeyNotRotatableError) throw new ApiError('apiKeyNotRotatable', { params: { id: keyId } });
        if (error instanceof ApiKeyNotFoundError) throw new ApiError('apiKeyNotFound', { params: { id: keyId } });
        throw error;
      }
    },

    async revoke(userId: string, keyId: string): Promise<ApiKey> {
      await owned(userId, keyId);
      if (!(await repo.revokeOnce(keyId, clock()))) throw new ApiError('apiKeyAlreadyRevoked', { params: { id: keyId } });
      return apiKeyOf((await repo.load(keyId))!);
    },

    async usage(userId: string, keyId: string, query: { from?: string; to?: string }): Promise<ApiKeyUsageResponse> {
      await owned(userId, keyId);
      const to = query.to === undefined ? Date.parse(`${dayOf(clock())}T00:00:00Z`) : dayParameter(query.to, 'to');
      const from = query.from === undefined ? to - 29 * DAY_MS : dayParameter(query.from, 'from');
      if (from > to) throw invalidRequest({ field: 'from', reason: 'invalid' });
      if ((to - from) / DAY_MS + 1 > MAX_USAGE_DAYS) throw invalidRequest({ field: 'to', reason: 'invalid' });
      const rows = await deps.usageOf(keyId, () => repo.usage(keyId, dayOf(from), dayOf(to)));
      const days = new Map<string, ApiKeyUsageResponse['usage'][number]>();
      for (const row of rows) {
        if (row.day < dayOf(from) || row.day > dayOf(to)) continue;
        const slot = `${row.day}\n${row.operation}`;
        const day = days.get(slot) ?? { date: row.day, operation: row.operation, calls: 0, clientErrors: 0, rateLimited: 0 };
        day.calls += Number(row.calls);
        day.clientErrors += Number(row.client_errors);
        day.rateLimited += Number(row.rate_limited);
        days.set(slot, day);
      }
      const usage = [...days.values()].sort((a, b) => (a.date === b.date ? (a.operation < b.operation ? -1 : 1) : a.date < b.date ? -1 : 1));
      return { from: dayOf(from), to: dayOf(to), usage };
    },

    /**
     * Revokes the key if it is real (its id and secret match, whatever its
     * state): whoever holds a key may kill it. Answers nothing either way.
     */
    async reportLeaked(presented: string): Promise<void> {
      const parsed = parseKey(presented);
      if (parsed === null) return;
      const row = await repo.load(parsed.keyId);
      const digest = secretDigest(parsed.secret);
      const expected = Buffer.from(row?.secret_hash ?? '00'.repeat(32), 'hex');
      if (row === undefined || expected.length !== digest.length || !timingSafeEqual(expected, digest)) return;
      await repo.revokeOnce(row.id, clock());
    },
  };
}

export type DeveloperService = ReturnType<typeof createDeveloperService>;
