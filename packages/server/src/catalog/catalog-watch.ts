import type { FastifyBaseLogger } from 'fastify';
import type { LocaleNegotiator } from '../http/locale.ts';
import type { CatalogRepo } from './catalog.repo.ts';

/**
 * Imports run in another process (the CLI) or on another node, so the server
 * learns of them from the database: every import batch bumps the catalog
 * version, and a changed version drops cached renderings and reloads the
 * catalog's languages. Staleness is bounded by the poll interval.
 */
export async function watchCatalog(deps: {
  repo: CatalogRepo;
  /** What holds catalog data in memory: rendered fragments, artist names, the search vocabulary. */
  caches: readonly { clear(): void }[];
  negotiator: LocaleNegotiator;
  /** Told the version after every poll, changed or not (the song snapshot builds once it stays the same). */
  onVersion?: (version: string) => void;
  intervalMs: number;
  log: FastifyBaseLogger;
}) {
  let version: string | undefined;
  async function refresh(): Promise<void> {
    const current = await deps.repo.catalogVersion();
    if (current !== version) {
      deps.negotiator.setCatalogLanguages(await deps.repo.catalogLanguages());
      for (const cache of deps.caches) cache.clear();
      version = current;
    }
    deps.onVersion?.(current);
  }
  await refresh();
  const timer = setInterval(() => {
    refresh().catch((error: unknown) => deps.log.warn({ err: error }, 'catalog version check failed'));
  }, deps.intervalMs);
  timer.unref();
  return { refresh, stop: () => clearInterval(timer) };
}
