import type { FastifyBaseLogger } from 'fastify';
import type { LocaleNegotiator } from '../locale/negotiation.ts';
import type { CatalogChanges } from '../storage/catalog-changes.ts';
import type { CatalogRepo } from './catalog.repo.ts';

/**
 * Imports run in another process (the CLI) or on another node, so the server
 * learns of them from the database: every import batch bumps the catalog
 * version, and a changed version drops cached renderings and reloads the
 * catalog's languages. The version is checked when an import announces a
 * change through the shared Redis (storage/catalog-changes.ts), and polled
 * every `intervalMs` besides, which bounds staleness when no word comes.
 */
export async function watchCatalog(deps: {
  repo: CatalogRepo;
  /** The catalog's version now (storage/catalog-version.ts, which owns it). */
  catalogVersion: () => Promise<string>;
  /** What holds catalog data in memory: rendered fragments, artist names, the search vocabulary. */
  caches: readonly { clear(): void }[];
  negotiator: LocaleNegotiator;
  /** Word of changes from other processes (Storage.catalogChanges). */
  changes: CatalogChanges;
  intervalMs: number;
  log: FastifyBaseLogger;
}) {
  let version: string | undefined;
  async function refresh(): Promise<void> {
    const current = await deps.catalogVersion();
    if (current !== version) {
      deps.negotiator.setCatalogLanguages(await deps.repo.catalogLanguages());
      for (const cache of deps.caches) cache.clear();
      version = current;
    }
  }
  await refresh();
  const check = () => {
    refresh().catch((error: unknown) => deps.log.warn({ err: error }, 'catalog version check failed'));
  };
  const timer = setInterval(check, deps.intervalMs);
  timer.unref();
  const stopListening = deps.changes.listen(check);
  return {
    refresh,
    stop: () => {
      clearInterval(timer);
      stopListening();
    },
  };
}
