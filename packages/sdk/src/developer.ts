import type { ApiKey, ApiKeyScope, ApiKeyUsage, CreatedApiKey, Page } from './types.ts';
import { requestJson, type CallContext, type PageOptions, type Transport } from './request.ts';
import { assert, every } from './pages.ts';
import { pathId } from './reads.ts';

/**
 * A key to make: its `name`; `scopes` (default all three); `expiresAt`
 * (default never); its own `rateLimitPerMinute` (default and at most the
 * server's limit).
 *
 * @example
 * const details: NewApiKey = { name: 'نشرة الأغاني', scopes: ['catalog'], expiresAt: new Date('2027-01-01'), rateLimitPerMinute: 30 };
 */
export interface NewApiKey {
  name: string;
  scopes?: readonly ApiKeyScope[] | undefined;
  /** An RFC 3339 time or a Date. */
  expiresAt?: string | Date | undefined;
  rateLimitPerMinute?: number | undefined;
}

const KEYS = '/v1/developer/keys';

const wholeNumber = (value: unknown, what: string) =>
  assert(value === undefined || (Number.isInteger(value) && (value as number) >= 0), `${what} must be a whole number`);

/** A day (UTC) as the usage query takes it, from 'YYYY-MM-DD' or a Date. */
function dayOf(value: string | Date | undefined, what: string): string | undefined {
  const day = value instanceof Date ? value.toISOString().slice(0, 10) : value;
  assert(day === undefined || /^\d{4}-\d\d-\d\d$/.test(day), `${what} must be a day, YYYY-MM-DD, or a Date`);
  return day;
}

/**
 * DeveloperService (contract section 16): the signed-in developer's own API
 * keys (the `developer` role and a token with the `developer` scope), and
 * the leak report anyone may send.
 */
export function createDeveloper(transport: Transport) {
  // None of these writes takes an Idempotency-Key on the server: a repeat
  // after a lost answer would make a second key, or find the key rotated or
  // revoked (409) with the new secret lost. So they are sent once (idempotent:
  // false), and only the writes that may be repeated as they are say true.
  const call = <T>(method: 'GET' | 'POST' | 'PATCH', path: string, context: CallContext, body?: unknown, idempotent?: boolean, query?: Record<string, string | number | undefined>) =>
    requestJson<T>(transport, { method, path: KEYS + path, body, idempotent, query, context });
  const key = (keyId: string, rest = '') => `/${pathId(keyId)}${rest}`;

  const listPage = async (options: PageOptions = {}): Promise<Page<ApiKey>> => {
    const page = await call<{ apiKeys: ApiKey[]; nextPageToken: string }>('GET', '', options, undefined, undefined, { page_size: options.pageSize, page_token: options.pageToken });
    return { items: page.apiKeys, nextPageToken: page.nextPageToken };
  };

  const keys = {
    /**
     * Makes a key. Its `secret` (the whole key) is in this answer only:
     * keep it now. Sent once, never retried after a network failure (a
     * retry could make a second key): on NetworkError, list the keys to see
     * whether it was made.
     *
     * @example
     * const { apiKey, secret } = await maqam.developer.keys.create({ name: 'my app', scopes: ['catalog', 'video'] });
     */
    create: async (details: NewApiKey, context: CallContext = {}): Promise<CreatedApiKey> => {
      const { name, scopes, expiresAt, rateLimitPerMinute } = details ?? {};
      assert(typeof name === 'string', 'give { name }');
      assert(scopes === undefined || Array.isArray(scopes), 'scopes must be an array');
      wholeNumber(rateLimitPerMinute, 'rateLimitPerMinute');
      const body = { name, scopes, expiresAt: expiresAt instanceof Date ? expiresAt.toISOString() : expiresAt, rateLimitPerMinute };
      return call('POST', '', context, body, false);
    },

    /**
     * One page of the developer's keys, oldest first, revoked and expired ones included.
     *
     * @example
     * const { items, nextPageToken } = await maqam.developer.keys.listPage({ pageSize: 50 });
     */
    listPage,

    /**
     * Every key of the developer, oldest first, fetching pages as the loop asks.
     *
     * @example
     * for await (const key of maqam.developer.keys.list()) console.log(key.keyPrefix, key.status, key.lastUsedAt);
     */
    list: (options: PageOptions = {}): AsyncIterable<ApiKey> => every(listPage, options),

    /**
     * One of the developer's keys; NotFoundError for an unknown id or another developer's key.
     *
     * @example
     * const key = await maqam.developer.keys.get('a1b2c3d4e5f6');
     */
    get: async (keyId: string, context: CallContext = {}): Promise<ApiKey> =>
      (await call<{ apiKey: ApiKey }>('GET', key(keyId), context)).apiKey,

    /**
     * Renames a key or changes its own rate limit (at most the server's);
     * what is left out stays.
     *
     * @example
     * await maqam.developer.keys.update(keyId, { name: 'production', rateLimitPerMinute: 120 });
     */
    update: async (keyId: string, changes: { name?: string | undefined; rateLimitPerMinute?: number | undefined }, context: CallContext = {}): Promise<ApiKey> => {
      const { name, rateLimitPerMinute } = changes ?? {};
      assert(name !== undefined || rateLimitPerMinute !== undefined, 'give { name } or { rateLimitPerMinute }');
      wholeNumber(rateLimitPerMinute, 'rateLimitPerMinute');
      // Sets values: the same PATCH again changes nothing, so it is retried like a read.
      return (await call<{ apiKey: ApiKey }>('PATCH', key(keyId), context, { name, rateLimitPerMinute }, true)).apiKey;
    },

    /**
     * Makes a new key in place of this one, with the same name, scopes and
     * limit; the old secret keeps working for `graceSeconds` (0 to 30 days),
     * and the server answers its requests meanwhile with `Deprecation` and
     * `Sunset` headers. ConflictError for a key revoked, expired or rotated
     * before. Sent once, never retried after a network failure.
     *
     * @example
     * const { secret } = await maqam.developer.keys.rotate(keyId, { graceSeconds: 24 * 3600 });
     */
    rotate: async (keyId: string, options: CallContext & { graceSeconds: number }): Promise<CreatedApiKey> => {
      assert(Number.isInteger(options?.graceSeconds), 'give { graceSeconds }, a whole number');
      return call('POST', key(keyId, ':rotate'), options, { graceSeconds: options.graceSeconds }, false);
    },

    /**
     * Ends a key at once, on every node; answers it, REVOKED. ConflictError
     * if it was revoked already.
     *
     * @example
     * await maqam.developer.keys.revoke(keyId);
     */
    revoke: async (keyId: string, context: CallContext = {}): Promise<ApiKey> =>
      (await call<{ apiKey: ApiKey }>('POST', key(keyId, ':revoke'), context, undefined, false)).apiKey,

    /**
     * A key's calls per day (UTC) and operation, answered, 4xx and 429,
     * from `from` (default 29 days before `to`) to `to` (default today),
     * 366 days at most. Days are 'YYYY-MM-DD' or Dates (their UTC day).
     *
     * @example
     * const { usage } = await maqam.developer.keys.usage(keyId, { from: '2026-03-01', to: new Date() });
     * for (const { date, operation, calls, clientErrors, rateLimited } of usage) chart.add(date, operation, calls, clientErrors, rateLimited);
     */
    usage: async (keyId: string, options: CallContext & { from?: string | Date | undefined; to?: string | Date | undefined } = {}): Promise<ApiKeyUsage> =>
      call('GET', key(keyId, '/usage'), options, undefined, undefined, { from: dayOf(options.from, 'from'), to: dayOf(options.to, 'to') }),

    /**
     * Reports a key found where it should not be (a public repository, a
     * log): a real one is revoked at once. Sent without this client's
     * credential, so any client may report any key; the server answers the
     * same whether or not the key was real, so this answers nothing.
     *
     * @example
     * await new MaqamClient({ baseUrl }).developer.keys.reportLeaked(foundInCommit);
     */
    reportLeaked: async (leakedKey: string, context: CallContext = {}): Promise<void> => {
      assert(typeof leakedKey === 'string', 'give the key as found');
      // Repeating a report changes nothing: retried like a read.
      await requestJson(transport, { method: 'POST', path: `${KEYS}:reportLeaked`, body: { key: leakedKey }, idempotent: true, anonymous: true, context });
    },
  };
  return { keys };
}

/** The developer resource, by name (see Catalog in catalog.ts). */
export type Developer = ReturnType<typeof createDeveloper>;
