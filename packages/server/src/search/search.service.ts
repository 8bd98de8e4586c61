import { invalidRequest } from '../errors.ts';
import type { Negotiation } from '../http/locale.ts';
import type { CatalogService, PageRequest } from '../catalog/catalog.service.ts';
import type { PageCursorCodec } from '../catalog/page-cursor.ts';
import { searchTerms } from '../text/normalize.ts';
import { wholeNameWord, type SearchKind } from './search-index.ts';
import type { Candidate, Expansion, SearchRepo } from './search.repo.ts';
import { Vocabulary } from './vocabulary.ts';

type Position = [tier: number, popularity: number, id: string, kind: string];

const quote = JSON.stringify as (value: string) => string;

/** The contract's order: relevance tier, then popularity (highest first), then id; kind breaks a tie of ids. */
function compare(a: Position, b: Position): number {
  return a[0] - b[0] || b[1] - a[1] || (a[2] < b[2] ? -1 : a[2] > b[2] ? 1 : 0) || (a[3] < b[3] ? -1 : a[3] > b[3] ? 1 : 0);
}

const positionOf = (candidate: Candidate): Position => [Number(candidate.tier), Number(candidate.popularity ?? 0), candidate.item_id, candidate.kind];

export interface SearchServiceDeps {
  repo: SearchRepo;
  catalog: CatalogService;
  cursors: PageCursorCodec;
}

/**
 * DiscoveryService.Search (contract section 11): the query's words are
 * expanded against the in-memory vocabulary, the postings say which items
 * every word matched and how well, and the page is rendered from the same
 * fragments as the catalog's operations. Sorting happens here, in code-unit
 * order, so both dialects answer the same pages.
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
      let candidates: Candidate[] = [];
      if (terms.length > 0) {
        const words = await loadVocabulary();
        const expansions: Expansion[] = [];
        terms.forEach((term, index) => {
          for (const [word, quality] of words.expand(term.word, term.keys, index === terms.length - 1)) expansions.push({ word, queryWord: index, quality });
        });
        const wordCount = new Set(expansions.map((e) => e.queryWord)).size;
        // A query word that matches nothing leaves nothing to find.
        if (wordCount === terms.length) {
          candidates = await repo.candidates(expansions, terms.length, wholeNameWord(terms.map((t) => t.word)), kinds);
        }
      }
      const ordered = candidates.map(positionOf).sort(compare);
      const start = after === null ? 0 : ordered.findIndex((position) => compare(position, after) > 0);
      const page = start < 0 ? [] : ordered.slice(start, start + request.size);
      const more = start >= 0 && start + request.size < ordered.length;
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
