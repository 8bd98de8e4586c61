import type { Db } from '../storage/database.ts';

/** A user as the list shows it: with the number of sign-ins not revoked. */
export interface UserListRow {
  id: string;
  username: string;
  created_at: number | string;
  disabled_at: number | string | null;
  active: number | string | null;
}

/** The users who sign in, by the key of their username (usernameKey), and the sign-ins they hold. */
export function createUsersRepo(db: Db) {
  return {
    byKey(key: string) {
      return db.selectFrom('users').select(['id', 'username', 'password_hash', 'disabled_at']).where('username_key', '=', key).executeTakeFirst();
    },

    /** False when the key is taken. */
    async insert(row: { id: string; username: string; username_key: string; password_hash: string; created_at: number }): Promise<boolean> {
      const inserted = await db
        .insertInto('users')
        .values({ ...row, disabled_at: null })
        .onConflict((oc) => oc.column('username_key').doNothing())
        .executeTakeFirst();
      return Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0;
    },

    list(): Promise<UserListRow[]> {
      return db
        .selectFrom('users as u')
        .select((eb) => [
          'u.id', 'u.username', 'u.created_at', 'u.disabled_at',
          eb.selectFrom('oauth_grants as g').select((g) => g.fn.countAll<number | string>().as('n'))
            .whereRef('g.user_id', '=', 'u.id').where('g.revoked_at', 'is', null).as('active'),
        ])
        .orderBy('u.created_at').orderBy('u.id')
        .execute();
    },

    /** Disabled from `now` on (kept as it was if already disabled). */
    async disable(userId: string, now: number): Promise<void> {
      await db.updateTable('users').set({ disabled_at: now }).where('id', '=', userId).where('disabled_at', 'is', null).execute();
    },

    /** Sets the user's parental cap (an AgeRating), or clears it (null). */
    async setMaxAgeRating(userId: string, rating: string | null): Promise<void> {
      await db.updateTable('users').set({ max_age_rating: rating }).where('id', '=', userId).execute();
    },

    /** The user's roles (contract section 16: 'developer'); none for an unknown user. */
    async roles(userId: string): Promise<string[]> {
      const row = await db.selectFrom('users').select('roles').where('id', '=', userId).executeTakeFirst();
      return row === undefined ? [] : row.roles.split(' ').filter(Boolean);
    },

    async setRoles(userId: string, roles: readonly string[]): Promise<void> {
      await db.updateTable('users').set({ roles: [...roles].sort().join(' ') }).where('id', '=', userId).execute();
    },

    async enable(userId: string): Promise<void> {
      await db.updateTable('users').set({ disabled_at: null }).where('id', '=', userId).execute();
    },

    async setPasswordHash(userId: string, passwordHash: string): Promise<void> {
      await db.updateTable('users').set({ password_hash: passwordHash }).where('id', '=', userId).execute();
    },

    /**
     * Deletes the user and everything of theirs, in one transaction: their
     * sign-ins (grants, codes, tokens), their stream billing windows, and,
     * through ON DELETE CASCADE, their library, history, change feed and
     * Idempotency-Key answers. The stream ledger keeps its rows: it is the
     * record of what was billed, and names the user by id only.
     */
    async deleteWithEverything(userId: string): Promise<boolean> {
      return db.transaction().execute(async (trx) => {
        const grants = trx.selectFrom('oauth_grants').select('id').where('user_id', '=', userId);
        await trx.deleteFrom('oauth_codes').where('grant_id', 'in', grants).execute();
        await trx.deleteFrom('oauth_refresh_tokens').where('grant_id', 'in', grants).execute();
        await trx.deleteFrom('oauth_access_tokens').where('grant_id', 'in', grants).execute();
        await trx.deleteFrom('oauth_grants').where('user_id', '=', userId).execute();
        await trx.deleteFrom('stream_entitlements').where('user_id', '=', userId).execute();
        const deleted = await trx.deleteFrom('users').where('id', '=', userId).executeTakeFirst();
        return Number(deleted.numDeletedRows) > 0;
      });
    },

    /** Revokes every sign-in of the user not revoked yet; answers how many. */
    async revokeSignIns(userId: string, now: number): Promise<number> {
      const revoked = await db.updateTable('oauth_grants').set({ revoked_at: now }).where('user_id', '=', userId).where('revoked_at', 'is', null).executeTakeFirst();
      return Number(revoked.numUpdatedRows);
    },
  };
}
