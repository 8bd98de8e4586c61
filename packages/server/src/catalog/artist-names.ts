import type { Negotiation } from '../locale/negotiation.ts';
import { renderSongArtistRef, type ArtistName } from './render.ts';
import type { CatalogRepo } from './catalog.repo.ts';


/** Artists whose names are kept at once; a catalog of 1M songs has about 40,000. */
const MAX_ARTISTS = 200_000;
/** Locale chains whose rendered artist refs are kept at once; real traffic asks for a handful. */
const MAX_CHAINS = 16;

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
  #refs = new Map<string, RenderedRefs>();

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
   * request's locale chain, one an id in order: undefined for an artist not
   * in the catalog. Each id is looked up once (a rendered ref's, else its
   * name's): a profile under uniform misses spent an eighth of rendering
   * songs in looking up the same fresh id strings twice.
   */
  async songArtistRefs(ids: readonly string[], negotiation: Negotiation): Promise<(Buffer | undefined)[]> {
    let memo = this.#refs.get(negotiation.chainKey);
    if (memo === undefined) {
      if (this.#refs.size >= MAX_CHAINS) this.#refs.clear();
      this.#refs.set(negotiation.chainKey, (memo = new RenderedRefs()));
    }
    const rendered = memo;
    const refs: (Buffer | undefined)[] = new Array(ids.length);
    let unrendered: string[] | undefined;
    for (let i = 0; i < ids.length; i++) {
      const ref = rendered.get(ids[i]!);
      if (ref === undefined) (unrendered ??= []).push(ids[i]!);
      refs[i] = ref;
    }
    if (unrendered === undefined) return refs;
    const names = await this.load(unrendered);
    for (let i = 0; i < ids.length; i++) {
      if (refs[i] !== undefined) continue;
      const id = ids[i]!;
      // Rendered meanwhile: by another request, or for this id earlier in the list.
      const ref = rendered.get(id);
      const name = ref === undefined ? names.get(id) : undefined;
      if (ref !== undefined || name === undefined) {
        refs[i] = ref;
        continue;
      }
      const text = renderSongArtistRef(id, name, negotiation.chain);
      refs[i] = rendered.size < MAX_ARTISTS ? rendered.add(id, text) : Buffer.from(text);
    }
    return refs;
  }
}

/**
 * One locale chain's rendered refs, kept in one growing buffer with a map
 * from id to where each ref is. A Buffer of its own per ref cost two heap
 * objects and a malloc'd block each (the objects alone took 7.6 MB in a heap
 * snapshot of a server that had rendered 39,678 refs of the 1M catalog), and
 * a small Buffer cut from Buffer.from's shared 8 KB slabs would pin its
 * whole slab: refs kept that way once pinned about 200 MB of slabs otherwise
 * filled with garbage. Written bytes never change, so a ref handed out stays
 * valid when the buffer grows (it views the old one).
 */
class RenderedRefs {
  #bytes = Buffer.allocUnsafeSlow(64 * 1024);
  #used = 0;
  /** Per id: its ref's offset times SPAN plus its length. */
  readonly #spans = new Map<string, number>();

  get size(): number {
    return this.#spans.size;
  }

  get(id: string): Buffer | undefined {
    const span = this.#spans.get(id);
    if (span === undefined) return undefined;
    const start = Math.floor(span / SPAN);
    return this.#bytes.subarray(start, start + (span % SPAN));
  }

  /** Keeps `text` as the ref of `id` and answers its bytes; a ref too long to keep is answered without being kept. */
  add(id: string, text: string): Buffer {
    const length = Buffer.byteLength(text);
    if (length >= SPAN) return Buffer.from(text);
    if (this.#used + length > this.#bytes.length) {
      const grown = Buffer.allocUnsafeSlow(Math.max(this.#bytes.length * 2, this.#used + length));
      this.#bytes.copy(grown, 0, 0, this.#used);
      this.#bytes = grown;
    }
    const start = this.#used;
    this.#bytes.write(text, start);
    this.#used += length;
    this.#spans.set(id, start * SPAN + length);
    return this.#bytes.subarray(start, start + length);
  }
}

/** Refs are at most this long to be kept; offsets times it stay exact integers up to 2^37 bytes. */
const SPAN = 65_536;
