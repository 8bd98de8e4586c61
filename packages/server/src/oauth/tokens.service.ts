import { randomBytes, randomUUID } from 'node:crypto';
import { DomainError, type ErrorReason } from '../errors.ts';
import { hashSecret } from '../crypto/secret-hash.ts';
import type { Db } from '../storage/database.ts';
import { VersionedCache, type WriteVersion } from '../storage/versioned-cache.ts';
import { verifierMatches } from './pkce.ts';
import { createTokensRepo, type TokenPairRows } from './tokens.repo.ts';

/** The token response of seed section 2 (contract section 5: expires_in in seconds). */
export interface TokenSet {
  access_token: string;
  refresh_token: string;
  token_type: 'Bearer';
  expires_in: number;
  scope: string;
}

/** An OAuth grant failure (an `invalid_grant` of RFC 6749): its reason in the error catalog, and the request field at fault. */
function grantFailure(reason: ErrorReason, field: string): DomainError {
  return new DomainError(reason, { violations: [{ field, reason: 'grant' }] });
}

export interface AccessTokenInfo {
  readonly userId: string;
  readonly clientId: string;
  readonly scopes: ReadonlySet<string>;
  readonly scope: string;
  readonly issuedAt: number;
  readonly expiresAt: number;
  /** The user's parental cap (an AgeRating) as the operator set it; null: none. Read with the token, so a change applies at once. */
  readonly maxAgeRating: string | null;
}

/** Contract section 5: failed checks of a code do not spend it; this many do. */
export const MAX_FAILED_CODE_CHECKS = 5;

const DAY_MS = 86_400_000;
/** Contract section 5: refresh tokens expire after 30 days idle and 90 days absolute. */
const REFRESH_IDLE_MS = 30 * DAY_MS;
const REFRESH_ABSOLUTE_MS = 90 * DAY_MS;

/** 256 random bits; only their SHA-256 is stored. The prefix tells secret scanners (and people) what it is. */
function newSecret(prefix: string): string {
  return `${prefix}${randomBytes(32).toString('base64url')}`;
}

export function createTokensService(
  db: Db,
  options: { accessTokenTtlSeconds: number; codeTtlSeconds: number; clock?: () => number; writeVersion?: WriteVersion },
) {
  const clock = options.clock ?? Date.now;
  const repo = createTokensRepo(db);
  /** Access tokens checked without a read while the database has not changed (revocations are writes). */
  const accessTokens = new VersionedCache<Awaited<ReturnType<typeof repo.accessTokenByHash>>[number]>(options.writeVersion ?? (() => null));

  /** A new token pair of the grant: the secrets to answer, and the rows (their hashes) to store with the spend. */
  function newPair(grant: { id: string; scope: string }, now: number): { tokens: TokenSet; rows: TokenPairRows } {
    const accessToken = newSecret('mat_');
    const refreshToken = newSecret('mrt_');
    return {
      tokens: { access_token: accessToken, refresh_token: refreshToken, token_type: 'Bearer', expires_in: options.accessTokenTtlSeconds, scope: grant.scope },
      rows: {
        grantId: grant.id,
        accessTokenHash: hashSecret(accessToken),
        refreshTokenHash: hashSecret(refreshToken),
        issuedAt: now,
        accessExpiresAt: now + options.accessTokenTtlSeconds * 1000,
      },
    };
  }

  return {
    /**
     * Records a sign-in (a new grant) and returns its single-use authorization
     * code, or null if the sign-in form `formId` already made a grant (a form
     * posted twice, on any node, yields one code).
     */
    async issueCode(input: { clientId: string; userId: string; scope: string; redirectUri: string; codeChallenge: string; formId?: string }): Promise<string | null> {
      const now = clock();
      const grantId = randomUUID();
      const code = randomBytes(32).toString('base64url');
      const made = await repo.insertGrantWithCode(
        { id: grantId, clientId: input.clientId, userId: input.userId, scope: input.scope, formId: input.formId ?? null, createdAt: now },
        { hash: hashSecret(code), redirectUri: input.redirectUri, codeChallenge: input.codeChallenge, expiresAt: now + options.codeTtlSeconds * 1000 },
      );
      return made ? code : null;
    },

    /**
     * The authorization_code grant, as an ordered list of checks. Checks that
     * whoever intercepted a code can fail on purpose (verifier, client,
     * redirect URI) do not spend it, or the legitimate exchange could be made
     * to fail; they are counted, and the fifth spends it. The code is then
     * claimed by a conditional update in the transaction that issues the
     * tokens, so of concurrent exchanges exactly one wins on any number of
     * nodes, and a claim never outlives tokens that were not issued. A later
     * exchange is a replay and revokes the grant.
     */
    async exchangeCode(input: { code: string; clientId: string; redirectUri: string; codeVerifier: string }): Promise<TokenSet> {
      const now = clock();
      const hash = hashSecret(input.code);
      const row = await repo.codeByHash(hash);
      if (!row) throw grantFailure('grantCodeUnknown', 'code');
      const replayed = async (): Promise<never> => {
        await repo.revokeGrant(row.grant_id, now);
        throw grantFailure('grantCodeReused', 'code');
      };
      if (row.used_at !== null) {
        if (row.failed_checks >= MAX_FAILED_CODE_CHECKS) throw grantFailure('grantCodeTooManyChecks', 'code');
        return replayed();
      }
      if (row.expires_at <= now) throw grantFailure('grantCodeExpired', 'code');
      const mismatch =
        row.client_id !== input.clientId ? grantFailure('grantCodeOtherClient', 'client_id')
        : row.redirect_uri !== input.redirectUri ? grantFailure('grantRedirectMismatch', 'redirect_uri')
        : !verifierMatches(input.codeVerifier, row.code_challenge) ? grantFailure('grantVerifierMismatch', 'code_verifier')
        : undefined;
      if (mismatch) {
        await repo.countFailedCodeCheck(hash, now, MAX_FAILED_CODE_CHECKS);
        throw mismatch;
      }
      if (row.revoked_at !== null) throw grantFailure('grantCodeSignInRevoked', 'code');
      // Disabled between the sign-in and this exchange: the grant may have been made after disabling revoked the others.
      if (row.disabled_at !== null) throw grantFailure('grantCodeAccountDisabled', 'code');
      const pair = newPair({ id: row.grant_id, scope: row.scope }, now);
      return (await repo.spendCodeForPair(hash, now, pair.rows)) ? pair.tokens : replayed();
    },

    /**
     * Rotation: every refresh spends the presented token and issues a new pair
     * in one transaction (a connection lost between the two used to leave a
     * spent token without a successor). The spend is a conditional update, so
     * one of concurrent refreshes wins; presenting a spent token is reuse and
     * revokes the whole grant (RFC 9700 §4.14.2).
     */
    async refresh(input: { refreshToken: string; clientId: string }): Promise<TokenSet> {
      const now = clock();
      const hash = hashSecret(input.refreshToken);
      const row = await repo.refreshTokenByHash(hash);
      if (!row) throw grantFailure('refreshUnknown', 'refresh_token');
      if (row.client_id !== input.clientId) throw grantFailure('refreshOtherClient', 'client_id');
      const reused = async (): Promise<never> => {
        await repo.revokeGrant(row.grant_id, now);
        throw grantFailure('refreshReused', 'refresh_token');
      };
      if (row.spent_at !== null) return reused();
      if (row.revoked_at !== null) throw grantFailure('refreshSignInRevoked', 'refresh_token');
      if (row.disabled_at !== null) throw grantFailure('refreshAccountDisabled', 'refresh_token');
      if (now - row.issued_at >= REFRESH_IDLE_MS || now - row.created_at >= REFRESH_ABSOLUTE_MS) {
        throw grantFailure('refreshExpired', 'refresh_token');
      }
      const pair = newPair({ id: row.grant_id, scope: row.scope }, now);
      return (await repo.spendRefreshTokenForPair(hash, now, pair.rows)) ? pair.tokens : reused();
    },

    /**
     * RFC 7009: a refresh token revokes its grant (the family), an access
     * token only itself. Unknown tokens are fine; the hint only orders lookups.
     */
    async revoke(token: string, hint?: string): Promise<void> {
      const now = clock();
      const hash = hashSecret(token);
      const asAccess = () => repo.revokeAccessToken(hash, now);
      const asRefresh = async () => {
        const grantId = await repo.grantOfRefreshToken(hash);
        if (grantId !== undefined) await repo.revokeGrant(grantId, now);
        return grantId !== undefined;
      };
      if (hint === 'refresh_token') {
        if (!(await asRefresh())) await asAccess();
      } else if (!(await asAccess())) {
        await asRefresh();
      }
    },

    /** The live access token's facts, or null if it is unknown, expired or revoked (itself or its grant), or its user is disabled. */
    async verifyAccessToken(token: string): Promise<AccessTokenInfo | null> {
      const hash = hashSecret(token);
      const row = await accessTokens.get(hash, async () => (await repo.accessTokenByHash(hash))[0]);
      if (!row || row.revoked_at !== null || row.grant_revoked_at !== null || row.disabled_at !== null || row.expires_at <= clock()) return null;
      return {
        userId: row.user_id,
        clientId: row.client_id,
        scope: row.scope,
        scopes: new Set(row.scope.split(' ')),
        issuedAt: row.issued_at,
        expiresAt: row.expires_at,
        maxAgeRating: row.max_age_rating,
      };
    },
  };
}

export type TokensService = ReturnType<typeof createTokensService>;
