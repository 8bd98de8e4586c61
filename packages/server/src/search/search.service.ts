import { invalidRequest } from '../errors.ts';
import type { Negotiation } from '../http/locale.ts';
import type { CatalogService, PageRequest } from '../catalog/catalog.service.ts';
import type { PageCursorCodec } from '../catalog/page-cursor.ts';
import { searchTerms, type SearchTerm } from '../text/normalize.ts';
import { wholeNameWord, type SearchKind } from './search-index.ts';
import type { SearchRepo, Walk } from './search.repo.ts';
import { MATCH, Vocabulary } from './vocabulary.ts';

type Position = [tier: number, popularity: number, id: string, kind: string];

const quote = JSON.stringify as (value: string) => string;

/**
 * Ids and kinds compare in UTF-8 byte order, as SQLite's BINARY and
 * PostgreSQL's "C" collations do. UTF-8 keeps code point order, so code
 * points are compared (UTF-16 code units would put U+E000..U+FFFF after
 * supplementary characters), without encoding either string.
 */
function bytes(a: string, b: string): number {
  if (a === b) return 0;
  const shorter = Math.min(a.length, b.length);
  for (let i = 0; i < shorter; i++) {
    const x = a.codePointAt(i)!;
    const y = b.codePointAt(i)!;
    if (x !== y) return x < y ? -1 : 1;
    if (x > 0xffff) i++; // the same pair of surrogates in both
  }
  return a.length - b.length;
}

/** The contract's order: relevance tier, then popularity (highest first), then id; kind breaks a tie of ids. */
function compare(a: Position, b: Position): number {
  return a[0] - b[0] || b[1] - a[1] || bytes(a[2], b[2]) || bytes(a[3], b[3]);
}

/** Relevance tiers, best first: the whole name, whole words, prefixes, variants (typos, transliterations, other script). */
const TIERS = [0, MATCH.whole, MATCH.prefix, MATCH.variant] as const;

/** Postings counted per word to pick the rarest query word to walk. */
const COUNT_CAP = 1_000;

export interface SearchServiceDeps {
  repo: SearchRepo;
  catalog: CatalogService;
  cursors: PageCursorCodec;
}

/**
 * DiscoveryService.Search (contract section 11): the query's words are
 * expanded against the in-memory vocabulary into the indexed words they
 * match and how well; the page is read tier by tier from index walks that
 * stop as soon as it is full (so a common word costs a page, not all its
 * items), and rendered from the same fragments as the catalog's operations.
 * Ties break in byte order on both dialects, so both answer the same pages.
 */
export function createSearchService({ repo, catalog, cursors }: SearchServiceDeps) {
  let vocabulary: Promise<Vocabulary> | undefined;

  function loadVocabulary(): Promise<Vocabulary> {
    vocabulary ??= repo.vocabulary().then((rows) => new Vocabulary(rows), (error: unknown) => {
      vocabulary = undefined;
      throw error;
    });
    return vocabulary;
  }

  /**
   * The first `need` items after `after` in the contract's order, tier by
   * tier. Within a tier the items come from walks of the postings of the
   * rarest query word's allowed words, most popular first, each filtered to
   * items that match every other query word within the tier and no better
   * tier, and stopped at `need`; merging the walks gives the tier's order.
   */
  async function rankedPage(terms: SearchTerm[], kinds: readonly SearchKind[], after: Position | null, need: number): Promise<Position[]> {
    const words = await loadVocabulary();
    const expansions = terms.map((term, index) => words.expand(term.word, term.keys, index === terms.length - 1));
    if (expansions.some((found) => found.size === 0)) return [];
    const within = (tier: number) => expansions.map((found) => [...found].filter(([, quality]) => quality <= tier).map(([word]) => word));
    const whole = wholeNameWord(terms.map((term) => term.word));
    const counts = new Map<string, number>();
    /** Postings of a query word's allowed words, counted only until they pass `enough` (a rarer word is known by then). */
    const rarity = async (allowed: string[], enough: number) => {
      let total = 0;
      for (const word of allowed) {
        if (!counts.has(word)) counts.set(word, await repo.postingCount(word, COUNT_CAP));
        total += counts.get(word)!;
        if (total > enough) break;
      }
      return total;
    };

    const page: Position[] = [];
    for (const tier of TIERS) {
      if (page.length >= need) break;
      if (after !== null && tier < after[0]) continue;
      const keyset = after !== null && tier === after[0] ? ([after[1], after[2], after[3]] as const) : undefined;
      const limit = need - page.length;
      let walks: Walk[];
      if (tier === 0) {
        walks = [{ word: whole, kinds, others: [], ...(keyset && { after: keyset }), limit }];
      } else {
        const allowed = within(tier);
        if (allowed.some((list) => list.length === 0)) continue;
        const better = tier > MATCH.whole ? within(tier - 1) : [];
        // Nothing new at this tier: every item it would hold ranked above.
        if (better.length > 0 && better.every((list, i) => list.length === allowed[i]!.length)) continue;
        let driver = 0;
        if (allowed.length > 1) {
          let fewest = Infinity;
          for (let i = 0; i < allowed.length; i++) {
            const size = await rarity(allowed[i]!, fewest);
            if (size < fewest) [fewest, driver] = [size, i];
          }
        }
        const others = allowed.filter((_, i) => i !== driver);
        const notAll = better.length > 0 && better.every((list) => list.length > 0) ? better : undefined;
        // Most promising word first, so the page fills with its most popular items and the floor below rises early.
        const driverWords = [...allowed[driver]!].sort((a, b) => words.bound(b) - words.bound(a));
        walks = driverWords.map((word) => ({ word, kinds, others, notWholeName: whole, ...(notAll && { notAll }), ...(keyset && { after: keyset }), limit }));
      }
      const found = new Map<string, Position>();
      // Once `limit` items are found, a later walk only matters down to the least popular of them:
      // it stops at once when its word's best posting is below (search-as-you-type expands to many words).
      let floor: number | undefined;
      for (const walk of walks) {
        // No posting of this word could reach the page: it would walk nothing (its bound is an upper bound).
        if (floor !== undefined && tier > 0 && words.bound(walk.word) < floor) continue;
        for (const row of await repo.walk(floor === undefined ? walk : { ...walk, minPopularity: floor })) {
          found.set(`${row.kind}\u0000${row.item_id}`, [tier, Number(row.popularity), row.item_id, row.kind]);
        }
        if (found.size >= limit) floor = [...found.values()].sort(compare)[limit - 1]![1];
      }
      page.push(...[...found.values()].sort(compare).slice(0, limit));
    }
    return page;
  }

  return {
    /** Drops the vocabulary; the next search reads it again (the catalog changed). */
    clear(): void {
      vocabulary = undefined;
    },

    async search(q: string, kinds: readonly SearchKind[], request: PageRequest, negotiation: Negotiation): Promise<Buffer> {
      const terms = searchTerms(q);
      const scope = `search\u0000${terms.map((t) => t.word).join(' ')}\u0000${[...kinds].sort().join(',')}`;
      let after: Position | null = null;
      if (request.token !== undefined && request.token.value !== '') {
        after = cursors.decode<Position>(request.token.value, scope, ['number', 'number', 'string', 'string']);
        if (after === null) throw invalidRequest({ field: request.token.field, reason: 'pageToken' });
      }
      const need = request.size + 1; // one more tells whether another page follows
      const page: Position[] = terms.length > 0 ? await rankedPage(terms, kinds, after, need) : [];
      const more = page.length > request.size;
      page.length = Math.min(page.length, request.size);
      const last = page[page.length - 1];
      const nextPageToken = more && last ? cursors.encode(scope, last) : '';

      const byKind = new Map<SearchKind, string[]>();
      for (const [, , id, kind] of page) {
        const list = byKind.get(kind as SearchKind) ?? [];
        list.push(id);
        byKind.set(kind as SearchKind, list);
      }
      const rendered = new Map<string, Buffer>();
      for (const [kind, ids] of byKind) {
        const fragments = await catalog.fragments(kind, ids, negotiation);
        ids.forEach((id, i) => {
          const fragment = fragments[i];
          if (fragment) rendered.set(`${kind}\u0000${id}`, fragment);
        });
      }
      const parts: Buffer[] = [Buffer.from('{"results":[')];
      let first = true;
      for (const [, , id, kind] of page) {
        // An item withdrawn between the index read and the render is left out.
        const fragment = rendered.get(`${kind}\u0000${id}`);
        if (!fragment) continue;
        if (!first) parts.push(Buffer.from(','));
        parts.push(fragment);
        first = false;
      }
      parts.push(Buffer.from(`],"nextPageToken":${quote(nextPageToken)}}`));
      return Buffer.concat(parts);
    },
  };
}

export type SearchService = ReturnType<typeof createSearchService>;
