import type { CatalogRepo } from './catalog.repo.ts';

export interface ArtistName {
  readonly texts: Readonly<Record<string, string>>;
  readonly originalLanguage: string;
}

/** Artists whose names are kept at once; a catalog of 1M songs has about 40,000. */
const MAX_ARTISTS = 200_000;

/**
 * Artist names for the song artist refs, kept in memory: there are far fewer
 * artists than songs and every song render needs them, so a miss on a song
 * costs one indexed row instead of a join. Cleared when the catalog changes.
 */
export class ArtistNames {
  readonly #repo: CatalogRepo;
  #names = new Map<string, ArtistName>();

  constructor(repo: CatalogRepo) {
    this.#repo = repo;
  }

  clear(): void {
    this.#names = new Map();
  }

  /** The names of these artists; unknown ids are absent from the result. */
  async load(ids: Iterable<string>): Promise<ReadonlyMap<string, ArtistName>> {
    const found = new Map<string, ArtistName>();
    const missing: string[] = [];
    for (const id of ids) {
      const name = this.#names.get(id);
      if (name !== undefined) found.set(id, name);
      else missing.push(id);
    }
    if (missing.length > 0) {
      const rows = await this.#repo.artistNames([...new Set(missing)]);
      // Past the bound, start over rather than track recency: artists are few and cheap to reload.
      if (this.#names.size + rows.length > MAX_ARTISTS) this.#names = new Map();
      for (const row of rows) {
        const name = { texts: JSON.parse(row.name_i18n) as Record<string, string>, originalLanguage: row.original_language };
        this.#names.set(row.id, name);
        found.set(row.id, name);
      }
    }
    return found;
  }
}
