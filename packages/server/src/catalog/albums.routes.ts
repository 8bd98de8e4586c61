import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import {
  BatchGetAlbumsRequest,
  BatchGetAlbumsResponse,
  GetAlbumParams,
  GetAlbumResponse,
  GetAlbumTracksResponse,
  PageQuery,
} from '@maqam/contract';
import { pageRequest } from './paging.ts';
import { sendJson, sendLentAnswer } from '../http/answers.ts';
import { batchBody, batchIdsOf } from '../http/batch-body.ts';
import type { CatalogRouteDeps } from './songs.routes.ts';

const TAGS = ['MusicCatalogService'];

export function albumsRoutes(app: FastifyInstance, deps: CatalogRouteDeps): void {
  const { catalog } = deps;
  const routes = app.withTypeProvider<TypeBoxTypeProvider>();

  routes.get(
    '/v1/music/albums/:album_id',
    {
      schema: {
        operationId: 'GetAlbum',
        tags: TAGS,
        summary: 'Returns an album.',
        description: '`trackCount` and `totalDurationMs` count the songs of the album that are not withdrawn.',
        params: GetAlbumParams,
        response: { 200: GetAlbumResponse },
      },
      config: { access: 'catalog' },
    },
    async (request, reply) => sendJson(reply, await catalog.getAlbum(request.params.album_id, request.negotiation)),
  );

  // "::" escapes the colon of the AIP-136 custom method in Fastify's router.
  const batch = batchBody('/v1/music/albums::batchGet', BatchGetAlbumsRequest);
  routes.post(
    batch.pattern,
    {
      schema: {
        operationId: 'BatchGetAlbums',
        tags: TAGS,
        summary: 'Returns many albums by id in one call.',
        description:
          'Every requested id is a key of `results`; ids not in the catalog get a per-item NOT_FOUND error. Duplicate ids are answered once.',
        body: BatchGetAlbumsRequest,
        response: { 200: BatchGetAlbumsResponse },
      },
      config: { ...batch.config, access: 'catalog' },
    },
    async (request, reply) => sendLentAnswer(reply, await catalog.batchGetAlbums(batchIdsOf(request.body, 'albumIdList'), request.negotiation), catalog),
  );

  routes.get(
    '/v1/music/albums/:album_id/tracks',
    {
      schema: {
        operationId: 'GetAlbumTracks',
        tags: TAGS,
        summary: "Returns the album's songs in play order, one page at a time.",
        description: 'Ordered by disc number, track number, then song id. Withdrawn songs are left out.',
        params: GetAlbumParams,
        querystring: PageQuery,
        response: { 200: GetAlbumTracksResponse },
      },
      config: { access: 'catalog' },
    },
    async (request, reply) => {
      const page = pageRequest(request.query as Record<string, unknown>);
      return sendLentAnswer(reply, await catalog.albumTracks(request.params.album_id, page, request.negotiation), catalog);
    },
  );
}
