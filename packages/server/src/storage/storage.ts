import { Kysely, Migrator, sql, type Compilable, type RawBuilder } from 'kysely';
import type { Database } from './database.ts';
import { migrations } from './migrations/index.ts';
import { createPostgresDialect } from './postgres.ts';
import { createSqliteDialect } from './sqlite.ts';

export type DialectName = 'sqlite' | 'postgres';

/**
 * The database and the few things that differ between dialects. Repositories
 * are written once against `db`; the quirks below are the only dialect seams.
 */
export interface Storage {
  readonly db: Kysely<Database>;
  readonly dialect: DialectName;
  /**
   * A subquery yielding the given ids, bound as ONE parameter. The SQL text is
   * the same for any number of ids, so the statement is prepared once and the
   * 100-id batch does not hit SQLite's or pg's parameter limits.
   */
  idList(ids: readonly string[]): RawBuilder<string>;
  close(): Promise<void>;
}

/** Opens `sqlite:<path>` (the default) or `postgres://...`. Does not migrate. */
export function openStorage(databaseUrl: string): Storage {
  if (databaseUrl.startsWith('postgres://') || databaseUrl.startsWith('postgresql://')) {
    const db = new Kysely<Database>({ dialect: createPostgresDialect(databaseUrl) });
    return {
      db,
      dialect: 'postgres',
      idList: (ids) => sql<string>`(select unnest(${ids as string[]}::text[]))`,
      close: () => db.destroy(),
    };
  }
  if (databaseUrl.startsWith('sqlite:')) {
    const db = new Kysely<Database>({ dialect: createSqliteDialect(databaseUrl.slice('sqlite:'.length)) });
    return {
      db,
      dialect: 'sqlite',
      idList: (ids) => sql<string>`(select value from json_each(${JSON.stringify(ids)}))`,
      close: () => db.destroy(),
    };
  }
  throw new Error(`DATABASE_URL must start with sqlite: or postgres://, got "${databaseUrl.split(':')[0]}:"`);
}

/** Applies every pending migration; returns the names applied. */
export async function migrateToLatest(storage: Storage): Promise<string[]> {
  const migrator = new Migrator({ db: storage.db, provider: migrations });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/**
 * A query with one string parameter, compiled once: Kysely would otherwise
 * rebuild and recompile it on every call, which costs more than the indexed
 * lookup itself on per-request paths (credential checks).
 */
export function precompiledLookup<Row>(db: Kysely<Database>, build: (value: string) => Compilable<Row>): (value: string) => Promise<Row[]> {
  const marker = '\u0000precompiled-lookup\u0000';
  const compiled = build(marker).compile();
  const slot = compiled.parameters.indexOf(marker);
  if (slot < 0 || compiled.parameters.lastIndexOf(marker) !== slot) throw new Error('precompiledLookup: the query must use its value once');
  return async (value) => {
    const parameters = [...compiled.parameters];
    parameters[slot] = value;
    return (await db.executeQuery<Row>({ ...compiled, parameters })).rows;
  };
}
