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

/**
 * A walk checks each posting it passes against the other query words, so it
 * is best driven by the rarest one. At a glance, postings are counted up to
 * COUNT_CAP a query word. That cannot tell a word of 100,000 postings from
 * one of 12,000, which matters when two common words rarely go together: in
 * the 1M demo catalog, 134 items have both 'tamally' and 'm', and walking
 * 'tamally' passed 100,000 postings (140 ms) where 'm' fills the page
 * from a few thousand. Counting further costs about as much as a walk of
 * two common words that do go together ('amr diab': 4 ms -> 13 ms), so the
 * glance's word is walked first from its WALK_BUDGET most popular postings
 * only; if that does not fill the page, the words are counted further (four
 * times more a round while they all reach the cap, up to MAX_COUNT_CAP) and
 * the rarest is walked. (Only where the glance's query word stands for one
 * indexed word: a half-typed one expands to many, walked as before.) 1M
 * demo catalog: 'tamally m' 140 -> 25 ms, 'Mira V' 50 -> 21 ms; a budget
 * of 250 or 500 postings made common pairs fall back ('habibi nancy': 9 ->
 * 14 ms), and counting eight times more a round overshot ('tamally m' 35 ms).
 */
const COUNT_CAP = 1_000;
const MAX_COUNT_CAP = 1_024_000;
const WALK_BUDGET = 1_000;

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
    /** Postings counted per word, and whether that is all of them (else there are at least as many). */
    const counted = new Map<string, { count: number; all: boolean }>();
    const postingsUpTo = async (word: string, cap: number): Promise<number> => {
      const known = counted.get(word);
      if (known !== undefined && (known.all || known.count >= cap)) return Math.min(known.count, cap);
      const count = await repo.postingCount(word, cap);
      counted.set(word, { count, all: count < cap });
      return count;
    };
    /** Postings of a query word's allowed words, counted up to `cap` (a total of `cap` means at least that many). */
    const rarity = async (allowed: string[], cap: number): Promise<number> => {
      if (cap <= 0) return 0;
      let total = 0;
      for (const word of allowed) {
        total += await postingsUpTo(word, cap - total);
        if (total >= cap) return cap;
      }
      return total;
    };
    /** The query word with the fewest postings among its allowed words, counting more, up to `maxCap`, only while they all tie at the cap. */
    const rarest = async (allowed: string[][], maxCap: number): Promise<number> => {
      for (let cap = COUNT_CAP; ; cap *= 4) {
        let fewest = Infinity;
        let driver = 0;
        for (let i = 0; i < allowed.length; i++) {
          // A word with as many postings as the fewest so far cannot be rarer: counting it stops there.
          const size = await rarity(allowed[i]!, Math.min(cap, fewest));
          if (size < fewest) [fewest, driver] = [size, i];
        }
        if (fewest < cap || cap >= maxCap) return driver;
      }
    };

    /** The walks' items in the tier (at least the first `limit` of the walks' merged order, when they have that many). */
    const walkAll = async (tier: number, walks: readonly Walk[], limit: number): Promise<Map<string, Position>> => {
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
      return found;
    };

    const page: Position[] = [];
    for (const tier of TIERS) {
      if (page.length >= need) break;
      if (after !== null && tier < after[0]) continue;
      const keyset = after !== null && tier === after[0] ? ([after[1], after[2], after[3]] as const) : undefined;
      const limit = need - page.length;
      let found: Map<string, Position>;
      if (tier === 0) {
        found = await walkAll(tier, [{ word: whole, kinds, others: [], ...(keyset && { after: keyset }), limit }], limit);
      } else {
        const allowed = within(tier);
        if (allowed.some((list) => list.length === 0)) continue;
        const better = tier > MATCH.whole ? within(tier - 1) : [];
        // Nothing new at this tier: every item it would hold ranked above.
        if (better.length > 0 && better.every((list, i) => list.length === allowed[i]!.length)) continue;
        const notAll = better.length > 0 && better.every((list) => list.length > 0) ? better : undefined;
        const walksOf = (driver: number): Walk[] => {
          const others = allowed.filter((_, i) => i !== driver);
          // Most promising word first, so the page fills with its most popular items and the floor below rises early.
          const driverWords = [...allowed[driver]!].sort((a, b) => words.bound(b) - words.bound(a));
          return driverWords.map((word) => ({ word, kinds, others, notWholeName: whole, ...(notAll && { notAll }), ...(keyset && { after: keyset }), limit }));
        };
        const glance = allowed.length > 1 ? await rarest(allowed, COUNT_CAP) : 0;
        // Postings at or above the budget's last one: all of them were passed, so the walk's first `limit` items are the tier's.
        const budgetFloor = allowed.length > 1 && allowed[glance]!.length === 1 ? await repo.popularityAt(allowed[glance]![0]!, WALK_BUDGET) : undefined;
        if (budgetFloor === undefined) {
          found = await walkAll(tier, walksOf(glance), limit);
        } else {
          found = await walkAll(tier, walksOf(glance).map((walk) => ({ ...walk, minPopularity: budgetFloor })), limit);
          if (found.size < limit) found = await walkAll(tier, walksOf(await rarest(allowed, MAX_COUNT_CAP)), limit);
        }
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
