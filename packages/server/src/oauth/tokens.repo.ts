import { sql, type Kysely } from 'kysely';
import type { Database, Db } from '../storage/database.ts';
import { precompiledLookup } from '../storage/storage.ts';

/** A new token pair of a grant, as stored: only the secrets' hashes. */
export interface TokenPairRows {
  readonly grantId: string;
  readonly accessTokenHash: string;
  readonly refreshTokenHash: string;
  readonly issuedAt: number;
  readonly accessExpiresAt: number;
}

/**
 * The authorization server's grants, codes and tokens. Every write that
 * decides between concurrent requests is one conditional statement (a code or
 * refresh token is spent by an update that only matches it unspent), and a
 * spend and the pair it issues commit together.
 */
export function createTokensRepo(db: Db) {
  async function insertPair(trx: Kysely<Database>, pair: TokenPairRows): Promise<void> {
    await trx
      .insertInto('oauth_access_tokens')
      .values({ token_hash: pair.accessTokenHash, grant_id: pair.grantId, issued_at: pair.issuedAt, expires_at: pair.accessExpiresAt, revoked_at: null })
      .execute();
    await trx.insertInto('oauth_refresh_tokens').values({ token_hash: pair.refreshTokenHash, grant_id: pair.grantId, issued_at: pair.issuedAt, spent_at: null }).execute();
  }

  return {
    /** An access token's facts with its grant's and user's, by the token's hash (compiled once: every request asks). */
    accessTokenByHash: precompiledLookup(db, (hash) =>
      db
        .selectFrom('oauth_access_tokens as a')
        .innerJoin('oauth_grants as g', 'g.id', 'a.grant_id')
        .innerJoin('users as u', 'u.id', 'g.user_id')
        .select(['a.issued_at', 'a.expires_at', 'a.revoked_at', 'g.client_id', 'g.user_id', 'g.scope', 'g.revoked_at as grant_revoked_at', 'u.disabled_at', 'u.max_age_rating'])
        .where('a.token_hash', '=', hash),
    ),

    async revokeGrant(grantId: string, now: number): Promise<void> {
      await db.updateTable('oauth_grants').set({ revoked_at: now }).where('id', '=', grantId).where('revoked_at', 'is', null).execute();
    },

    /** A new grant and its code, in one transaction; false (nothing written) when the sign-in form `formId` already made a grant. */
    insertGrantWithCode(
      grant: { id: string; clientId: string; userId: string; scope: string; formId: string | null; createdAt: number },
      code: { hash: string; redirectUri: string; codeChallenge: string; expiresAt: number },
    ): Promise<boolean> {
      return db.transaction().execute(async (trx) => {
        const inserted = await trx
          .insertInto('oauth_grants')
          .values({ id: grant.id, client_id: grant.clientId, user_id: grant.userId, scope: grant.scope, created_at: grant.createdAt, revoked_at: null, form_id: grant.formId })
          .onConflict((oc) => oc.column('form_id').doNothing())
          .executeTakeFirst();
        if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 0) return false;
        await trx
          .insertInto('oauth_codes')
          .values({ code_hash: code.hash, grant_id: grant.id, redirect_uri: code.redirectUri, code_challenge: code.codeChallenge, expires_at: code.expiresAt, used_at: null })
          .execute();
        return true;
      });
    },

    /** A code with its grant's and user's facts, by the code's hash. */
    codeByHash(hash: string) {
      return db
        .selectFrom('oauth_codes as c')
        .innerJoin('oauth_grants as g', 'g.id', 'c.grant_id')
        .innerJoin('users as u', 'u.id', 'g.user_id')
        .select(['c.grant_id', 'c.redirect_uri', 'c.code_challenge', 'c.expires_at', 'c.used_at', 'c.failed_checks', 'g.client_id', 'g.scope', 'g.revoked_at', 'u.disabled_at'])
        .where('c.code_hash', '=', hash)
        .executeTakeFirst();
    },

    /**
     * Counts a failed check of an unspent code; the `maxChecks`-th spends it (at `now`). One statement, so concurrent
     * failures all count; in a transaction of its own, so on PostgreSQL a COMMIT whose answer was lost is asked about
     * (storage/postgres.ts) rather than answered 503, and the retried exchange counted again.
     */
    async countFailedCodeCheck(hash: string, now: number, maxChecks: number): Promise<void> {
      await db.transaction().execute((trx) => trx
        .updateTable('oauth_codes')
        .set({
          failed_checks: sql<number>`failed_checks + 1`,
          used_at: sql<number | null>`case when failed_checks + 1 >= ${maxChecks} then ${now} else used_at end`,
        })
        .where('code_hash', '=', hash)
        .where('used_at', 'is', null)
        .execute());
    },

    /** Spends the code and stores the pair, in one transaction; false (nothing written) when the code was already spent. */
    spendCodeForPair(hash: string, now: number, pair: TokenPairRows): Promise<boolean> {
      return db.transaction().execute(async (trx) => {
        const claimed = await trx.updateTable('oauth_codes').set({ used_at: now }).where('code_hash', '=', hash).where('used_at', 'is', null).executeTakeFirst();
        if (Number(claimed.numUpdatedRows) === 0) return false;
        await insertPair(trx, pair);
        return true;
      });
    },

    /** A refresh token with its grant's and user's facts, by the token's hash. */
    refreshTokenByHash(hash: string) {
      return db
        .selectFrom('oauth_refresh_tokens as r')
        .innerJoin('oauth_grants as g', 'g.id', 'r.grant_id')
        .innerJoin('users as u', 'u.id', 'g.user_id')
        .select(['r.grant_id', 'r.issued_at', 'r.spent_at', 'g.client_id', 'g.scope', 'g.created_at', 'g.revoked_at', 'u.disabled_at'])
        .where('r.token_hash', '=', hash)
        .executeTakeFirst();
    },

    /** Spends the refresh token and stores its successor pair, in one transaction; false (nothing written) when it was already spent. */
    spendRefreshTokenForPair(hash: string, now: number, pair: TokenPairRows): Promise<boolean> {
      return db.transaction().execute(async (trx) => {
        const claimed = await trx.updateTable('oauth_refresh_tokens').set({ spent_at: now }).where('token_hash', '=', hash).where('spent_at', 'is', null).executeTakeFirst();
        if (Number(claimed.numUpdatedRows) === 0) return false;
        await insertPair(trx, pair);
        return true;
      });
    },

    /** Revokes the access token; true when there is one by this hash (revoked now or before). */
    async revokeAccessToken(hash: string, now: number): Promise<boolean> {
      const revoked = await db.updateTable('oauth_access_tokens').set({ revoked_at: now }).where('token_hash', '=', hash).where('revoked_at', 'is', null).executeTakeFirst();
      if (Number(revoked.numUpdatedRows) > 0) return true;
      return (await db.selectFrom('oauth_access_tokens').select('token_hash').where('token_hash', '=', hash).executeTakeFirst()) !== undefined;
    },

    /** The grant a refresh token belongs to, if there is one by this hash. */
    async grantOfRefreshToken(hash: string): Promise<string | undefined> {
      return (await db.selectFrom('oauth_refresh_tokens').select('grant_id').where('token_hash', '=', hash).executeTakeFirst())?.grant_id;
    },
  };
}

export type TokensRepo = ReturnType<typeof createTokensRepo>;
