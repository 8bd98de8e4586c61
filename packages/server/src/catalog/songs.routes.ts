import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { BatchGetSongsRequest, BatchGetSongsResponse, ErrorBody, ValidationErrorBody } from '@maqam/contract';
import type { Guard } from '../http/credentials.ts';
import { negotiateLocale } from '../http/locale.hook.ts';
import type { LocaleNegotiator } from '../http/locale.ts';
import { normalizeProtoJsonNames } from '../http/proto-json.ts';
import type { CatalogService } from './catalog.service.ts';

export interface CatalogRouteDeps {
  catalog: CatalogService;
  guard: Guard;
  negotiator: LocaleNegotiator;
}

export const CATALOG_SECURITY: Record<string, string[]>[] = [{ bearerAuth: ['read'] }, { apiKeyAuth: [] }];
export const ERROR_RESPONSES = { 400: ValidationErrorBody, '4xx': ErrorBody, '5xx': ErrorBody } as const;

export function songsRoutes(app: FastifyInstance, { catalog, guard, negotiator }: CatalogRouteDeps): void {
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    // "::" escapes the colon of the AIP-136 custom method in Fastify's router.
    '/v1/music/songs::batchGet',
    {
      schema: {
        operationId: 'BatchGetSongs',
        tags: ['MusicCatalogService'],
        summary: 'Returns many songs by id in one call.',
        description:
          'Every requested id is a key of `results`; ids not in the catalog get a per-item NOT_FOUND error. Duplicate ids are answered once.',
        security: CATALOG_SECURITY,
        body: BatchGetSongsRequest,
        response: { 200: BatchGetSongsResponse, ...ERROR_RESPONSES },
      },
      onRequest: guard('catalog'),
      preValidation: [
        negotiateLocale(negotiator),
        async (request) => normalizeProtoJsonNames(request.body),
      ],
    },
    async (request, reply) => {
      const ids = request.body.songIdList.map((songId) => songId.value);
      const body = await catalog.batchGetSongs(ids, request.negotiation);
      // Already serialized JSON bytes of the response schema: Fastify sends a Buffer as is.
      return reply.type('application/json; charset=utf-8').send(body as unknown as BatchGetSongsResponse);
    },
  );
}
