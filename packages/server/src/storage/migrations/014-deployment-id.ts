import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';

/**
 * The deployment's identity: a random id stored once, in the database every
 * node and every CLI run shares. What processes share outside the database
 * (Redis's write epoch and rate-limit counts) is named after it, not after
 * how a DATABASE_URL happens to spell the database (127.0.0.1 or localhost,
 * a proxy's port), so every process on one database agrees on the names.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.insertInto('settings').values({ key: 'deployment_id', value: randomUUID() }).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.deleteFrom('settings').where('key', '=', 'deployment_id').execute();
}
