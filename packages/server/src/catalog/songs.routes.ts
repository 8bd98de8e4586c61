import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { BatchGetSongsRequest, BatchGetSongsResponse, GetLyricsResponse, GetSongParams, GetSongResponse } from '@maqam/contract';
import { sendJson, sendLentAnswer } from '../http/answers.ts';
import { batchBody, batchIdsOf } from '../http/batch-body.ts';
import type { CatalogService } from './catalog.service.ts';

export interface CatalogRouteDeps {
  catalog: CatalogService;
}

export function songsRoutes(app: FastifyInstance, deps: CatalogRouteDeps): void {
  const { catalog } = deps;
  const routes = app.withTypeProvider<TypeBoxTypeProvider>();

  routes.get(
    '/v1/music/songs/:song_id',
    {
      schema: {
        operationId: 'GetSong',
        tags: ['MusicCatalogService'],
        summary: 'Returns one song.',
        description: 'Texts resolve to the best language of `Accept-Language` the song has (`value`), beside the original (`originalValue`). A withdrawn or unknown id is a 404.',
        params: GetSongParams,
        response: { 200: GetSongResponse },
      },
      config: { access: 'catalog' },
    },
    async (request, reply) => sendJson(reply, await catalog.getSong(request.params.song_id, request.negotiation)),
  );

  routes.get(
    '/v1/music/songs/:song_id/lyrics',
    {
      schema: {
        operationId: 'GetLyrics',
        tags: ['MusicCatalogService'],
        summary: "Returns a song's lyrics, time-synced when the catalog has them so.",
        description:
          'With time-synced lyrics both `lyrics` and `syncedLyrics` are present and `lyrics.lines` are the synced texts. ' +
          'A song without lyrics is a 404 whose message says so.',
        params: GetSongParams,
        response: { 200: GetLyricsResponse },
      },
      config: { access: 'catalog' },
    },
    async (request, reply) => sendJson(reply, await catalog.lyrics(request.params.song_id)),
  );

  // "::" escapes the colon of the AIP-136 custom method in Fastify's router.
  const batch = batchBody('/v1/music/songs::batchGet', BatchGetSongsRequest);
  routes.post(
    batch.pattern,
    {
      schema: {
        operationId: 'BatchGetSongs',
        tags: ['MusicCatalogService'],
        summary: 'Returns many songs by id in one call.',
        description:
          'Every requested id is a key of `results`; ids not in the catalog get a per-item NOT_FOUND error. Duplicate ids are answered once.',
        body: BatchGetSongsRequest,
        response: { 200: BatchGetSongsResponse },
      },
      config: { ...batch.config, access: 'catalog' },
    },
    async (request, reply) => sendLentAnswer(reply, await catalog.batchGetSongs(batchIdsOf(request.body, 'songIdList'), request.negotiation), catalog),
  );
}
