import type { Selectable } from 'kysely';
import type { Db, OAuthClientsTable } from '../storage/database.ts';

export type ClientRow = Selectable<OAuthClientsTable>;

/** The registered OAuth clients. */
export function createClientsRepo(db: Db) {
  return {
    async insert(row: ClientRow): Promise<void> {
      await db.insertInto('oauth_clients').values(row).execute();
    },

    /** Every client, oldest first. */
    list(): Promise<ClientRow[]> {
      return db.selectFrom('oauth_clients').selectAll().orderBy('created_at').orderBy('id').execute();
    },

    find(clientId: string): Promise<ClientRow | undefined> {
      return db.selectFrom('oauth_clients').selectAll().where('id', '=', clientId).executeTakeFirst();
    },

    async setScopes(clientId: string, scopes: string): Promise<void> {
      await db.updateTable('oauth_clients').set({ scopes }).where('id', '=', clientId).execute();
    },

    async setRedirectUris(clientId: string, redirectUris: string): Promise<void> {
      await db.updateTable('oauth_clients').set({ redirect_uris: redirectUris }).where('id', '=', clientId).execute();
    },

    /** Deletes the client and every sign-in made through it (grants, codes, tokens), in one transaction; false if there was none. */
    deleteWithSignIns(clientId: string): Promise<boolean> {
      return db.transaction().execute(async (trx) => {
        const grants = trx.selectFrom('oauth_grants').select('id').where('client_id', '=', clientId);
        await trx.deleteFrom('oauth_codes').where('grant_id', 'in', grants).execute();
        await trx.deleteFrom('oauth_refresh_tokens').where('grant_id', 'in', grants).execute();
        await trx.deleteFrom('oauth_access_tokens').where('grant_id', 'in', grants).execute();
        await trx.deleteFrom('oauth_grants').where('client_id', '=', clientId).execute();
        const deleted = await trx.deleteFrom('oauth_clients').where('id', '=', clientId).executeTakeFirst();
        return Number(deleted.numDeletedRows) > 0;
      });
    },
  };
}
