import { randomBytes } from 'node:crypto';
import type { Db } from './database.ts';

export async function readSetting(db: Db, key: string): Promise<string | undefined> {
  return (await db.selectFrom('settings').select('value').where('key', '=', key).executeTakeFirst())?.value;
}

/** Sets a setting, whether or not it was set before (in `db`, or in a transaction). */
export async function writeSetting(db: Db, key: string, value: string): Promise<void> {
  await db.insertInto('settings').values({ key, value }).onConflict((oc) => oc.column('key').doUpdateSet({ value })).execute();
}

/**
 * The server's signing secret: MAQAM_SECRET if set, else the one stored in the
 * database, generated on first start. Insert-if-absent then re-read, so nodes
 * starting together on one database agree on a single secret.
 */
export async function ensureServerSecret(db: Db, configured: string | undefined): Promise<string> {
  if (configured) return configured;
  await db
    .insertInto('settings')
    .values({ key: 'server_secret', value: randomBytes(32).toString('base64url') })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
  return (await readSetting(db, 'server_secret'))!;
}
