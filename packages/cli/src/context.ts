import { loadConfig, migrateToLatest, openStorage, type Config, type Storage } from '@maqam/server';

/** The CLI reads the same environment as the server; flags override it. */
export function configFrom(flags: { 'database-url'?: string | undefined; port?: string | undefined; host?: string | undefined }): Config {
  const overrides: Record<string, string> = {};
  if (flags['database-url'] !== undefined) overrides.DATABASE_URL = flags['database-url'];
  if (flags.port !== undefined) overrides.PORT = flags.port;
  if (flags.host !== undefined) overrides.HOST = flags.host;
  return loadConfig(process.env, overrides);
}

/** Opens the database, migrated, runs `work`, and always closes it. */
export async function withStorage<T>(config: Config, work: (storage: Storage) => Promise<T>): Promise<T> {
  const storage = openStorage(config.databaseUrl);
  try {
    await migrateToLatest(storage);
    return await work(storage);
  } finally {
    await storage.close();
  }
}
