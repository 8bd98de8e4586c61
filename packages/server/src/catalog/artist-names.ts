import type { Negotiation } from '../http/locale.ts';
import { localizedJson } from './render.ts';
import type { CatalogRepo } from './catalog.repo.ts';

export interface ArtistName {
  readonly texts: Readonly<Record<string, string>>;
  readonly originalLanguage: string;
}

/** Artists whose names are kept at once; a catalog of 1M songs has about 40,000. */
const MAX_ARTISTS = 200_000;
/** Locale chains whose rendered artist refs are kept at once; real traffic asks for a handful. */
const MAX_CHAINS = 16;

const quote = JSON.stringify as (value: string) => string;

/**
 * Artist names for the song artist refs, kept in memory: there are far fewer
 * artists than songs and every song render needs them, so a miss on a song
 * costs one indexed row instead of a join. The refs themselves are kept
 * rendered per locale chain. Cleared when the catalog changes; what a load
 * read before a clear goes into the maps it started with, which the clear
 * dropped, so a stale name never outlives the change.
 */
export class ArtistNames {
  readonly #repo: CatalogRepo;
  #names = new Map<string, ArtistName>();
  #refs = new Map<string, Map<string, Buffer>>();

  constructor(repo: CatalogRepo) {
    this.#repo = repo;
  }

  clear(): void {
    this.#names = new Map();
    this.#refs = new Map();
  }

  /** The names of these artists; unknown ids are absent from the result. */
  async load(ids: Iterable<string>): Promise<ReadonlyMap<string, ArtistName>> {
    let names = this.#names;
    const found = new Map<string, ArtistName>();
    const missing: string[] = [];
    for (const id of ids) {
      const name = names.get(id);
      if (name !== undefined) found.set(id, name);
      else missing.push(id);
    }
    if (missing.length > 0) {
      const rows = await this.#repo.artistNames([...new Set(missing)]);
      // Past the bound, start over rather than track recency: artists are few and cheap to reload.
      if (names === this.#names && names.size + rows.length > MAX_ARTISTS) this.#names = names = new Map();
      for (const row of rows) {
        const name = { texts: JSON.parse(row.name_i18n) as Record<string, string>, originalLanguage: row.original_language };
        names.set(row.id, name);
        found.set(row.id, name);
      }
    }
    return found;
  }

  /**
   * The SongArtistRefs `{"id":...,"name":...}` of these artists in the
   * request's locale chain, as a lookup: undefined for an artist not in the
   * catalog.
   */
  async songArtistRefs(ids: readonly string[], negotiation: Negotiation): Promise<(id: string) => Buffer | undefined> {
    let memo = this.#refs.get(negotiation.chainKey);
    if (memo === undefined) {
      if (this.#refs.size >= MAX_CHAINS) this.#refs.clear();
      this.#refs.set(negotiation.chainKey, (memo = new Map()));
    }
    const rendered = memo;
    const unrendered = ids.filter((id) => !rendered.has(id));
    const names = unrendered.length === 0 ? new Map<string, ArtistName>() : await this.load(unrendered);
    return (id) => {
      let ref = rendered.get(id);
      if (ref === undefined) {
        const name = names.get(id);
        if (name === undefined) return undefined;
        ref = ownBuffer(`{"id":{"value":${quote(id)}},"name":${localizedJson(name.texts, name.originalLanguage, negotiation.chain)}}`);
        if (rendered.size < MAX_ARTISTS) rendered.set(id, ref);
      }
      return ref;
    };
  }
}

/**
 * The UTF-8 bytes of a string kept for long, in memory of their own. Buffer.from
 * cuts small buffers out of shared 8 KB slabs, and one kept slice keeps its
 * whole slab alive: refs kept that way pinned about 200 MB of slabs otherwise
 * filled with garbage on the 1M catalog.
 */
function ownBuffer(text: string): Buffer {
  const bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(text));
  bytes.write(text);
  return bytes;
}
