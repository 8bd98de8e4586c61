import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from './database.ts';
import { readSetting, writeSetting } from './settings.repo.ts';

/**
 * The catalog's version: what every cache of catalog data depends on (the
 * fragment cache, the artists' names, the search vocabulary, an import's
 * memo). This module owns it: it is read here, and bumped here, in the
 * transaction of every import batch, to a value never used before. Word of
 * a bump reaches the deployment's other processes through Redis when it is
 * configured (catalog-changes.ts) and by their polls of it otherwise. The
 * other version caches depend on, the write version (credentials depend on it), is
 * Storage.writeVersion (sqlite.ts's data_version, shared-write-version.ts's shared version in Redis).
 */
const KEY = 'catalog_version';

/** The version now; '0' before the first import. */
export async function readCatalogVersion(db: Kysely<Database>): Promise<string> {
  return (await readSetting(db, KEY)) ?? '0';
}

/** Writes a new version in `trx` (an import batch's transaction) and answers it. */
export async function bumpCatalogVersion(trx: Kysely<Database>): Promise<string> {
  const version = randomUUID();
  await writeSetting(trx, KEY, version);
  return version;
}
