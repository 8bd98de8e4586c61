import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { DEFAULT_SEARCH_TYPES, MAX_QUERY_LENGTH, SEARCH_TYPES, SearchQuery, SearchResponse } from '@maqam/contract';
import { viewerCapOf } from '../video/age-rating.ts';
import { invalidRequest } from '../errors.ts';
import { sendJson } from '../http/answers.ts';
import { pageRequest, typesParameter } from '../catalog/paging.ts';
import type { SearchService } from './search.service.ts';

export function searchRoutes(app: FastifyInstance, deps: { search: SearchService }): void {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/v1/search',
    {
      schema: {
        operationId: 'Search',
        tags: ['DiscoveryService'],
        summary: 'Finds songs, artists, albums, shows and films the way people type them.',
        description:
          'Every query word must match a name or title (a song also matches through its artists and album): whole, as a prefix (last word), ' +
          'within one typo (5+ letters), or as another spelling, transliteration, Arabizi or script of the same word. ' +
          'Ordered by relevance, then popularity, then id. Page tokens are bound to q and types. Shows and films are searched when `types` names them; ' +
          'for a user with a parental cap, titles above it are never in the results.',
        querystring: SearchQuery,
        response: { 200: SearchResponse },
      },
      config: { access: 'catalog' },
    },
    async (request, reply) => {
      const query = request.query as Record<string, unknown> & { q: string; types?: string };
      const q = query.q.trim();
      if (q.length === 0) throw invalidRequest({ field: 'q', reason: 'minLength', params: { limit: 1 } });
      if (q.length > MAX_QUERY_LENGTH) throw invalidRequest({ field: 'q', reason: 'maxLength', params: { limit: MAX_QUERY_LENGTH } });
      const types = typesParameter(query.types, SEARCH_TYPES, 'searchTypes', DEFAULT_SEARCH_TYPES);
      return sendJson(reply, await deps.search.search(q, types, pageRequest(query), request.negotiation, viewerCapOf(request.principal)));
    },
  );
}
