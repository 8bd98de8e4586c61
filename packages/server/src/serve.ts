import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.ts';
import type { Config } from './config.ts';
import type { DemoApp } from './demo/demo.routes.ts';
import { prepareDatabase } from './prepare-database.ts';
import { openStorage, type Storage } from './storage/storage.ts';
import type { RebuildProgress } from './storage/stored-formats.ts';
import { atMostOncePer } from './storage/unavailable.ts';

export interface RunningServer {
  app: FastifyInstance;
  storage: Storage;
  url: string;
  close(): Promise<void>;
}

/** config -> database (migrated) -> app -> listen. The caller decides about signals. */
export async function startServer(
  config: Config,
  options: {
    beforeListen?: (storage: Storage) => Promise<void>;
    demo?: DemoApp | undefined;
    /** Told as stored data of another format is rebuilt, before the server listens. */
    onRebuildProgress?: RebuildProgress;
  } = {},
): Promise<RunningServer> {
  // Migrations and seeding may run long statements: they get a connection without deadlines.
  let reportWriteVersionError: (error: Error) => void = (error) => process.emitWarning(error.message);
  const shared = { redisUrl: config.redisUrl, onWriteVersionError: (error: Error) => reportWriteVersionError(error) };
  // Nothing here is prepared: a migration may change a table under a statement it ran before (storage/postgres.ts).
  const maintenance = openStorage(config.databaseUrl, { ...shared, preparedMaxParameters: 0 });
  try {
    await prepareDatabase(maintenance, options.onRebuildProgress);
    await options.beforeListen?.(maintenance);
  } finally {
    await maintenance.close();
  }
  let reportConnectionError: (error: Error) => void = () => {};
  const storage = openStorage(config.databaseUrl, {
    ...shared,
    timeoutMs: config.databaseTimeoutMs,
    preparedMaxParameters: config.postgresPreparedParameters,
    onConnectionError: (error) => reportConnectionError(error),
    // Requests read few pages of each table, most from outside any cache that fits a server's memory (the
    // fragment cache spares them most reads). 8 MB instead of 16, alternating 30 s runs of
    // bench/batch-get/memory.ts on the 1M catalog: RSS 324 to 327 MB against 332 to 338, CPU the same
    // (Zipf 407 and 452 us a request against 421 and 425; uniform 923 and 1,013 against 943 and 999).
    // Imports keep 16: 200k songs took 19.9 and 20.5 s with 8 against 19.6 and 20.3.
    sqliteCacheMb: 8,
  });
  try {
    const app = await buildApp({ config, storage, ...(options.demo ? { demo: options.demo } : {}) });
    reportConnectionError = atMostOncePer(1000, (error) => {
      app.log.warn({ err: error }, 'database connection lost; requests answer 503 until it is back');
    });
    reportWriteVersionError = (error) => app.log.warn({ err: error }, 'a write committed, but other nodes could not be told through Redis; they see it within seconds');
    const url = await app.listen({ port: config.port, host: config.host });
    let closing: Promise<void> | undefined;
    return {
      app,
      storage,
      url,
      close: () => (closing ??= app.close().then(() => storage.close())),
    };
  } catch (error) {
    await storage.close();
    throw error;
  }
}

/**
 * Graceful shutdown: on SIGTERM or SIGINT stop accepting connections, let
 * in-flight requests finish, close the database, exit. A second signal, or
 * a shutdown slower than the grace period, exits at once.
 */
export function closeOnSignals(server: RunningServer, graceMs = 10_000): void {
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(1);
    stopping = true;
    server.app.log.info({ signal }, 'shutting down');
    setTimeout(() => process.exit(1), graceMs).unref();
    server.close().then(
      () => process.exit(0),
      (error: unknown) => {
        server.app.log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
