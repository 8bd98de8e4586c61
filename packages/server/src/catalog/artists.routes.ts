import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import {
  BatchGetArtistsRequest,
  BatchGetArtistsResponse,
  DEFAULT_TOP_TRACKS,
  GetArtistDiscographyQuery,
  GetArtistDiscographyResponse,
  GetArtistParams,
  GetArtistResponse,
  GetArtistTopTracksQuery,
  GetArtistTopTracksResponse,
  GetRelatedArtistsParams,
  GetRelatedArtistsQuery,
  GetRelatedArtistsResponse,
} from '@maqam/contract';
import { pageRequest, pickAlias } from './paging.ts';
import { sendJson, sendLentAnswer } from '../http/answers.ts';
import { batchBody, batchIdsOf } from '../http/batch-body.ts';
import type { CatalogRouteDeps } from './songs.routes.ts';

const TAGS = ['MusicCatalogService'];

export function artistsRoutes(app: FastifyInstance, deps: CatalogRouteDeps): void {
  const { catalog } = deps;
  const routes = app.withTypeProvider<TypeBoxTypeProvider>();

  routes.get(
    '/v1/music/artists/:artist_id',
    {
      schema: {
        operationId: 'GetArtist',
        tags: TAGS,
        summary: "Returns an artist's full profile.",
        description: 'Name and biography resolve to the best language of `Accept-Language` the artist has. A withdrawn or unknown id is a 404.',
        params: GetArtistParams,
        response: { 200: GetArtistResponse },
      },
      config: { access: 'catalog' },
    },
    async (request, reply) => sendJson(reply, await catalog.getArtist(request.params.artist_id, request.negotiation)),
  );

  // "::" escapes the colon of the AIP-136 custom method in Fastify's router.
  const batch = batchBody('/v1/music/artists::batchGet', BatchGetArtistsRequest);
  routes.post(
    batch.pattern,
    {
      schema: {
        operationId: 'BatchGetArtists',
        tags: TAGS,
        summary: 'Returns many artists by id in one call.',
        description:
          'Every requested id is a key of `results`; ids not in the catalog get a per-item NOT_FOUND error. Duplicate ids are answered once.',
        body: BatchGetArtistsRequest,
        response: { 200: BatchGetArtistsResponse },
      },
      config: { ...batch.config, access: 'catalog' },
    },
    async (request, reply) => sendLentAnswer(reply, await catalog.batchGetArtists(batchIdsOf(request.body, 'artistIdList'), request.negotiation), catalog),
  );

  routes.get(
    '/v1/music/artists/:artist_id/albums',
    {
      schema: {
        operationId: 'GetArtistDiscography',
        tags: TAGS,
        summary: "Returns the albums that credit the artist, newest first, one page at a time.",
        description: 'Ordered by release date descending, then album id. `album_type` keeps one type of album.',
        params: GetArtistParams,
        querystring: GetArtistDiscographyQuery,
        response: { 200: GetArtistDiscographyResponse },
      },
      config: { access: 'catalog' },
    },
    async (request, reply) => {
      const query = request.query as Record<string, unknown>;
      const albumType = pickAlias<string>(query, ['album_type', 'albumType'])?.value;
      return sendLentAnswer(reply, await catalog.artistAlbums(request.params.artist_id, albumType, pageRequest(query), request.negotiation), catalog);
    },
  );

  routes.get(
    '/v1/music/artists/:artist_id/top-tracks',
    {
      schema: {
        operationId: 'GetArtistTopTracks',
        tags: TAGS,
        summary: "Returns the artist's most popular songs.",
        description: 'Ordered by popularity descending, then song id. `page_size` 1 to 50, default 10; there is no next page.',
        params: GetArtistParams,
        querystring: GetArtistTopTracksQuery,
        response: { 200: GetArtistTopTracksResponse },
      },
      config: { access: 'catalog' },
    },
    async (request, reply) => {
      const size = pickAlias<number>(request.query as Record<string, unknown>, ['page_size', 'pageSize', 'limit'])?.value;
      return sendLentAnswer(reply, await catalog.artistTopTracks(request.params.artist_id, size ?? DEFAULT_TOP_TRACKS, request.negotiation), catalog);
    },
  );

  routes.get(
    '/v1/music/artists/:artist_id/related',
    {
      schema: {
        operationId: 'GetRelatedArtists',
        tags: TAGS,
        summary: 'Returns artists similar to the given artist, one page at a time.',
        description:
          'Ordered by similarity, most similar first. `nextPageToken` is empty on the last page. Page tokens are bound to the artist and expire.',
        params: GetRelatedArtistsParams,
        querystring: GetRelatedArtistsQuery,
        response: { 200: GetRelatedArtistsResponse },
      },
      config: { access: 'catalog' },
    },
    async (request, reply) => {
      const page = pageRequest(request.query as Record<string, unknown>);
      return sendLentAnswer(reply, await catalog.relatedArtists(request.params.artist_id, page, request.negotiation), catalog);
    },
  );
}
