import { resolve } from 'node:path';
import { loadConfig, openStorage, prepareDatabase, VERSION_MAX_AGE_MS, type Config, type RebuildProgress, type Storage } from '@maqam/server';
import { progressMeter, type Output } from './output.ts';

/** The CLI reads the same environment as the server; flags override it. */
export function configFrom(
  flags: { 'database-url'?: string | undefined; port?: string | undefined; host?: string | undefined },
  env: Readonly<Record<string, string | undefined>>,
): Config {
  const overrides: Record<string, string> = {};
  if (flags['database-url'] !== undefined) overrides.DATABASE_URL = flags['database-url'];
  if (flags.port !== undefined) overrides.PORT = flags.port;
  if (flags.host !== undefined) overrides.HOST = flags.host;
  return loadConfig(env, overrides);
}

/** The database a URL names, for people: the SQLite file's full path, or PostgreSQL's user@host/database (never a password). */
export function describeDatabase(databaseUrl: string): string {
  if (databaseUrl.startsWith('sqlite:')) return `SQLite ${resolve(databaseUrl.slice('sqlite:'.length))}`;
  try {
    const url = new URL(databaseUrl);
    return `PostgreSQL ${url.username ? `${decodeURIComponent(url.username)}@` : ''}${url.host}${url.pathname}`;
  } catch {
    return 'the configured database';
  }
}

/**
 * The configured database. On PostgreSQL with REDIS_URL, the CLI's writes
 * (a revoked key, an import) change the nodes' shared write version like the server's
 * do, so every node sees them on its next request.
 */
export function openConfiguredStorage(config: Config, out: Output): Storage {
  return openStorage(config.databaseUrl, {
    redisUrl: config.redisUrl,
    // Every command migrates first, and a migration may change a table under a statement it ran before
    // (storage/postgres.ts): the CLI prepares nothing, and saves little by preparing.
    preparedMaxParameters: 0,
    onWriteVersionError: (error) => out.info(`warning: ${error.message}; servers see this change within ${VERSION_MAX_AGE_MS / 1000} s`),
  });
}

/**
 * Opens the database, migrated, runs `work`, and always closes it. Says on
 * standard error which database it is: a key written to ./data/maqam.db
 * while the server runs on PostgreSQL is an hour of 401s.
 */
export async function withStorage<T>(config: Config, out: Output, work: (storage: Storage) => Promise<T>): Promise<T> {
  out.info(`database: ${describeDatabase(config.databaseUrl)}`);
  const storage = openConfiguredStorage(config, out);
  try {
    await prepareDatabase(storage, reportRebuilds(out));
    return await work(storage);
  } finally {
    await storage.close();
  }
}

/**
 * Tells the operator about data rebuilt because the database holds it in
 * another format (prepareDatabase): a line as each begins, then a progress
 * bar, which can take minutes on a large catalog.
 */
export function reportRebuilds(out: Output): RebuildProgress {
  let current: { name: string; meter: (count: number, fraction: number) => string } | undefined;
  return (name, done, total) => {
    if (total === 0) return; // nothing stored yet: the version is only recorded
    if (current?.name !== name) {
      if (current !== undefined) out.done();
      current = { name, meter: progressMeter('items') };
      out.info(`rebuilding the ${name}, stored in another format (${total.toLocaleString('en')} items)...`);
    }
    const fraction = total === 0 ? 1 : done / total;
    out.progress(fraction, current.meter(done, fraction));
    if (done === total) out.done();
  };
}
