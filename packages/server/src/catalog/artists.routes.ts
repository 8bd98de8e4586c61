import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import {
  DEFAULT_PAGE_SIZE,
  GetRelatedArtistsParams,
  GetRelatedArtistsQuery,
  GetRelatedArtistsResponse,
} from '@maqam/contract';
import { ApiError, invalidRequest } from '../errors.ts';
import { negotiateLocale } from '../http/locale.hook.ts';
import { ArtistNotFoundError, PageTokenError } from './catalog.service.ts';
import { CATALOG_SECURITY, ERROR_RESPONSES, type CatalogRouteDeps } from './songs.routes.ts';

/**
 * The value of a parameter that may be spelled several ways, and the spelling
 * the client used. Two spellings with different values are a 400.
 */
function pickAlias<T>(query: Record<string, unknown>, names: readonly string[]): { name: string; value: T } | undefined {
  let picked: { name: string; value: T } | undefined;
  for (const name of names) {
    const value = query[name] as T | undefined;
    if (value === undefined) continue;
    if (picked === undefined) picked = { name, value };
    else if (picked.value !== value) {
      throw invalidRequest({ field: name, reason: 'aliasConflict', params: { other: picked.name } });
    }
  }
  return picked;
}

export function artistsRoutes(app: FastifyInstance, { catalog, guard, negotiator }: CatalogRouteDeps): void {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/v1/music/artists/:artist_id/related',
    {
      schema: {
        operationId: 'GetRelatedArtists',
        tags: ['MusicCatalogService'],
        summary: 'Returns artists similar to the given artist, one page at a time.',
        description:
          'Ordered by similarity, most similar first. `nextPageToken` is empty on the last page. Page tokens are bound to the artist and expire.',
        security: CATALOG_SECURITY,
        params: GetRelatedArtistsParams,
        querystring: GetRelatedArtistsQuery,
        response: { 200: GetRelatedArtistsResponse, ...ERROR_RESPONSES },
      },
      onRequest: guard('catalog'),
      preValidation: negotiateLocale(negotiator),
    },
    async (request) => {
      const query = request.query as Record<string, unknown>;
      const size = pickAlias<number>(query, ['page_size', 'pageSize', 'limit']);
      const token = pickAlias<string>(query, ['page_token', 'pageToken']);
      try {
        return await catalog.relatedArtists(
          request.params.artist_id,
          size?.value ?? DEFAULT_PAGE_SIZE,
          token?.value,
          request.negotiation,
        );
      } catch (error) {
        if (error instanceof PageTokenError) throw invalidRequest({ field: token!.name, reason: 'pageToken' });
        if (error instanceof ArtistNotFoundError) throw new ApiError('artistNotFound', { params: { id: request.params.artist_id } });
        throw error;
      }
    },
  );
}
