import { randomBytes, timingSafeEqual } from 'node:crypto';
import { hashSecret, secretDigest } from '../crypto/secret-hash.ts';
import type { ApiKeySummary, CreatedApiKey } from '@maqam/contract';
import type { ApiKeyRow, ApiKeysRepo } from './api-keys.repo.ts';
import type { ApiKeyPrincipal } from '../principal.ts';

/**
 * API keys are `mk_<keyId>_<secret>`: the id finds the row, the secret proves
 * possession. The secret is 256 random bits, so a single SHA-256 is enough to
 * make the stored hash useless to a thief (slow hashes exist for low-entropy
 * passwords); it also keeps the per-request check cheap.
 */
const KEY_PATTERN = /^mk_([a-z0-9]{12})_([A-Za-z0-9_-]{43})$/;
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

function statusOf(row: ApiKeyRow, now: number): ApiKeySummary['status'] {
  if (row.revoked_at !== null) return 'revoked';
  if (row.expires_at !== null && row.expires_at <= now) return 'expired';
  return 'active';
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

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

  async function create(options: { name: string; expiresAt?: number | null }): Promise<CreatedApiKey> {
    const id = newKeyId();
    const secret = randomBytes(32).toString('base64url');
    await repo.insert({
      id,
      name: options.name,
      secret_hash: hashSecret(secret),
      created_at: clock(),
      expires_at: options.expiresAt ?? null,
      revoked_at: null,
      last_used_at: null,
    });
    return { id, name: options.name, key: `mk_${id}_${secret}` };
  }

  return {
    create,

    async list(): Promise<ApiKeySummary[]> {
      const now = clock();
      return (await repo.list()).map((row) => ({
        id: row.id,
        name: row.name,
        createdAt: new Date(row.created_at).toISOString(),
        expiresAt: iso(row.expires_at),
        revokedAt: iso(row.revoked_at),
        lastUsedAt: iso(row.last_used_at),
        status: statusOf(row, now),
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
      const old = await repo.find(id);
      if (!old) throw new ApiKeyNotFoundError(id);
      const now = clock();
      if (statusOf(old, now) !== 'active') throw new Error(`API key "${id}" is ${statusOf(old, now)}; create a new one instead`);
      const created = await create({ name: old.name, expiresAt: old.expires_at });
      const graceEnd = now + graceSeconds * 1000;
      await repo.setExpiry(id, old.expires_at === null ? graceEnd : Math.min(old.expires_at, graceEnd));
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
      // A proven key matched the pattern when it was proven: the id and the secret are at known places.
      const proven = provenHashes.get(presented);
      if (proven === undefined && !KEY_PATTERN.test(presented)) return null;
      const id = presented.slice(3, 15);
      const now = clock();
      const accept = (row: ApiKeyRow): ApiKeyPrincipal => {
        noteUse(row.id, now);
        return { kind: 'apiKey', keyId: row.id };
      };
      const kept = await repo.peek(id);
      // A key this node has seen proven, against the row it was proven with: no hashing.
      if (kept && proven === kept.secret_hash && statusOf(kept, now) === 'active') return accept(kept);
      const digest = secretDigest(presented.slice(16));
      if (matchesDigest(kept, digest) && statusOf(kept, now) === 'active') return accept(kept);
      const row = await repo.load(id);
      if (!matchesDigest(row, digest) || statusOf(row, now) !== 'active') return null;
      if (provenHashes.size >= 10_000) provenHashes.clear();
      provenHashes.set(presented, row.secret_hash);
      return accept(row);
    },
  };
}

export type ApiKeysService = ReturnType<typeof createApiKeysService>;
