import { randomBytes, timingSafeEqual } from 'node:crypto';
import { hashSecret, secretDigest } from '../crypto/secret-hash.ts';
import { API_KEY_SCOPES, type ApiKeyScope, type ApiKeySummary, type CreatedApiKey } from '@maqam/contract';
import type { ApiKeyRow, ApiKeysRepo, NewApiKeyRow } from './api-keys.repo.ts';
import type { ApiKeyPrincipal } from '../principal.ts';
import { CHECKSUMMED_FORMAT, formatKey, LEGACY_FORMAT, parseKey } from './key-format.ts';

/**
 * API keys are `mk_<keyId>_<secret><checksum>` (key-format.ts): the id finds
 * the row, the secret proves possession. The secret is 256 random bits, so a
 * single SHA-256 is enough to make the stored hash useless to a thief (slow
 * hashes exist for low-entropy passwords); it also keeps the per-request
 * check cheap.
 */
const KEY_ID_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** What an unknown key id's secret is compared with (no secret hashes to it), decoded as a row's hash is. */
const DECOY_SECRET_HASH = '00'.repeat(32);

/**
 * Whether the secret's digest is the row's hash, in constant time. An absent
 * row's decoy is decoded and compared the same way, so the answer costs the
 * same whether there is a row or not.
 */
function matchesDigest(row: ApiKeyRow | undefined, digest: Buffer): row is ApiKeyRow {
  const expected = Buffer.from(row?.secret_hash ?? DECOY_SECRET_HASH, 'hex');
  return expected.length === digest.length && timingSafeEqual(expected, digest) && row !== undefined;
}

function newKeyId(): string {
  // 12 characters of a 36-letter alphabet; rejection sampling keeps them uniform.
  let id = '';
  while (id.length < 12) {
    for (const byte of randomBytes(16)) {
      if (byte < 252 && id.length < 12) id += KEY_ID_ALPHABET[byte % 36];
    }
  }
  return id;
}

export function statusOf(row: ApiKeyRow, now: number): ApiKeySummary['status'] {
  if (row.revoked_at !== null) return 'revoked';
  if (row.expires_at !== null && row.expires_at <= now) return 'expired';
  return 'active';
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** What a new key is given; an operator's (CLI) has no owner. */
export interface NewKeyOptions {
  name: string;
  expiresAt?: number | null;
  ownerId?: string | null;
  scopes?: readonly ApiKeyScope[];
  rateLimitPerMinute?: number | null;
}

// A row read from a database before migration 021 has none of its columns: all scopes, the legacy format.
export const scopesOf = (row: ApiKeyRow): ApiKeyScope[] => (row.scopes ?? API_KEY_SCOPES.join(' ')).split(' ').filter((s): s is ApiKeyScope => (API_KEY_SCOPES as readonly string[]).includes(s));

/** What a verified key grants: its scopes and own limit, and when a rotated key stops working. */
function principalOf(row: ApiKeyRow): ApiKeyPrincipal {
  return {
    kind: 'apiKey',
    keyId: row.id,
    scopes: new Set(scopesOf(row)),
    rateLimitPerMinute: row.rate_limit_per_minute ?? null,
    rotation: row.rotated_at == null || row.expires_at === null ? null : { rotatedAt: Number(row.rotated_at), sunsetAt: Number(row.expires_at) },
  };
}

export class ApiKeyNotRotatableError extends Error {
  override name = 'ApiKeyNotRotatableError';
  readonly state: string;
  constructor(id: string, state: string) {
    super(`API key "${id}" is ${state}; create a new one instead`);
    this.state = state;
  }
}

export class ApiKeyNotFoundError extends Error {
  override name = 'ApiKeyNotFoundError';
  constructor(id: string) {
    super(`no API key with id "${id}"`);
  }
}

/** A key's last use is written at most this often per node: a write per request would cost more than the request. */
const LAST_USE_PRECISION_MS = 60_000;

export function createApiKeysService(repo: ApiKeysRepo, clock: () => number = Date.now, onError: (error: unknown) => void = () => {}) {
  /** When this node last wrote each key's last use. */
  const lastUseWritten = new Map<string, number>();
  /**
   * Keys this node has seen proven, with the secret hash their row had: a
   * key presented again is checked by comparing that hash with its row's,
   * without hashing the secret again (SHA-256, the pattern and the
   * comparison took about 3% of a cached BatchGetSongs request's time). Only
   * keys whose secret matched are kept, so an attacker's guesses cannot fill
   * it, nor answer faster than any other refusal.
   */
  const provenHashes = new Map<string, string>();

  /** Records a use without holding up the request; a failed write is logged and retried on a later use. */
  function noteUse(keyId: string, now: number): void {
    if (now - (lastUseWritten.get(keyId) ?? -Infinity) < LAST_USE_PRECISION_MS) return;
    if (lastUseWritten.size >= 10_000) lastUseWritten.clear();
    lastUseWritten.set(keyId, now);
    repo.noteUse(keyId, now).catch((error: unknown) => {
      lastUseWritten.delete(keyId);
      onError(error);
    });
  }

  /** A new key's row, and what its maker is answered (its secret, shown once). */
  function newKey(options: NewKeyOptions): { row: NewApiKeyRow; created: CreatedApiKey } {
    const id = newKeyId();
    const secret = randomBytes(32).toString('base64url');
    const row = {
      id,
      name: options.name,
      secret_hash: hashSecret(secret),
      created_at: clock(),
      expires_at: options.expiresAt ?? null,
      revoked_at: null,
      last_used_at: null,
      owner_id: options.ownerId ?? null,
      scopes: (options.scopes ?? API_KEY_SCOPES).join(' '),
      rate_limit_per_minute: options.rateLimitPerMinute ?? null,
      format: CHECKSUMMED_FORMAT,
    };
    return { row, created: { id, name: options.name, key: formatKey(id, secret) } };
  }

  async function create(options: NewKeyOptions): Promise<CreatedApiKey> {
    const { row, created } = newKey(options);
    await repo.insert(row);
    return created;
  }

  return {
    create,

    /** Every key, or one developer's (`ownerId`), for operators. */
    async list(options: { ownerId?: string } = {}): Promise<ApiKeySummary[]> {
      const now = clock();
      return (await repo.list(options.ownerId)).map((row) => ({
        id: row.id,
        name: row.name,
        createdAt: new Date(row.created_at).toISOString(),
        expiresAt: iso(row.expires_at),
        revokedAt: iso(row.revoked_at),
        lastUsedAt: iso(row.last_used_at),
        status: statusOf(row, now),
        owner: row.owner_name,
      }));
    },

    /** Idempotent: revoking a revoked key succeeds. */
    async revoke(id: string): Promise<void> {
      if (!(await repo.revoke(id, clock()))) throw new ApiKeyNotFoundError(id);
    },

    /**
     * Issues a new key with the same name and lets the old one live for
     * `graceSeconds` more (never longer than it would have), so deployments can
     * switch over without an outage.
     */
    async rotate(id: string, graceSeconds: number): Promise<CreatedApiKey> {
      const old = await repo.load(id);
      if (!old) throw new ApiKeyNotFoundError(id);
      const now = clock();
      if (statusOf(old, now) !== 'active' || old.rotated_at !== null) throw new ApiKeyNotRotatableError(id, old.rotated_at !== null ? 'rotated' : statusOf(old, now));
      const graceEnd = now + graceSeconds * 1000;
      const { row, created } = newKey({
        name: old.name, expiresAt: old.expires_at, ownerId: old.owner_id, scopes: scopesOf(old), rateLimitPerMinute: old.rate_limit_per_minute,
      });
      // Marked with the successor's insert, in one transaction: of two rotations at once, one wins and the other makes no key.
      if (!(await repo.rotate(id, now, old.expires_at === null ? graceEnd : Math.min(old.expires_at, graceEnd), row))) throw new ApiKeyNotRotatableError(id, 'rotated');
      return created;
    },

    /**
     * The principal of a presented key, or null if it is malformed, unknown,
     * revoked or expired. A key is accepted from memory when it can be;
     * every refusal reads its id's row from the database and compares the
     * secret's hash with the row's (a decoy for an unknown id), so a refusal
     * does the same work whether the id exists or not, kept in memory or
     * not: answer times do not tell which key ids exist.
     */
    async verify(presented: string): Promise<ApiKeyPrincipal | null> {
      // A proven key was well formed, its checksum right, when it was proven: the id and the secret are at known places.
      const proven = provenHashes.get(presented);
      // A malformed key, or one whose checksum is wrong, is refused before any read.
      const parsed = proven === undefined ? parseKey(presented) : null;
      if (proven === undefined && parsed === null) return null;
      const id = presented.slice(3, 15);
      const now = clock();
      const accept = (row: ApiKeyRow): ApiKeyPrincipal => {
        noteUse(row.id, now);
        return principalOf(row);
      };
      // A key made with a checksum is taken only with it; one made before, only without (until it is rotated).
      const usable = (row: ApiKeyRow | undefined): row is ApiKeyRow => row !== undefined && statusOf(row, now) === 'active' && (parsed === null || (row.format ?? LEGACY_FORMAT) === parsed.format);
      const kept = await repo.peek(id);
      // A key this node has seen proven, against the row it was proven with: no hashing.
      if (kept && proven === kept.secret_hash && statusOf(kept, now) === 'active') return accept(kept);
      const digest = secretDigest(presented.slice(16, 59));
      if (matchesDigest(kept, digest) && usable(kept)) return accept(kept);
      const row = await repo.load(id);
      if (!matchesDigest(row, digest) || !usable(row)) return null;
      if (provenHashes.size >= 10_000) provenHashes.clear();
      provenHashes.set(presented, row.secret_hash);
      return accept(row);
    },
  };
}

export type ApiKeysService = ReturnType<typeof createApiKeysService>;
