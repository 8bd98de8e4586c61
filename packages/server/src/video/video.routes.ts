import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import {
  BatchGetEpisodesRequest,
  BatchGetEpisodesResponse,
  BatchGetMoviesRequest,
  BatchGetMoviesResponse,
  BatchGetSeasonsRequest,
  BatchGetSeasonsResponse,
  BatchGetShowsRequest,
  BatchGetShowsResponse,
  GetEpisodeParams,
  GetEpisodeResponse,
  GetMovieParams,
  GetMovieResponse,
  GetSeasonParams,
  GetSeasonResponse,
  GetShowParams,
  GetShowResponse,
  GetSongAppearancesResponse,
  GetSongParams,
  GetSoundtrackResponse,
  PageQuery,
} from '@maqam/contract';
import { pageRequest } from '../catalog/paging.ts';
import { sendJson, sendLentAnswer } from '../http/answers.ts';
import { batchBody, batchIdsOf } from '../http/batch-body.ts';
import { readBatchBodies } from '../http/batch-scope.ts';
import { viewerCapOf } from './age-rating.ts';
import type { VideoKind, VideoService } from './video.service.ts';

export interface VideoRouteDeps {
  video: VideoService;
}

const TAGS = ['VideoCatalogService'];
const CAP_NOTE =
  ' For a user with a parental cap (maxAgeRating), a title rated above it (an episode: the higher of its rating and its show\'s; unrated: AGE_RATING_18) is answered as an unknown id is.';

/** The cap the request reads under (video/age-rating.ts). */
const capOf = (request: FastifyRequest) => viewerCapOf(request.principal);

/**
 * VideoCatalogService (contract section 15): shows, seasons with their
 * episode pages, episodes and films, their soundtracks, and a song's
 * appearances. Catalog reads: an API key or a token with `read`.
 */
export async function videoRoutes(scope: FastifyInstance, deps: VideoRouteDeps): Promise<void> {
  const { video } = deps;
  readBatchBodies(scope);
  const routes = scope.withTypeProvider<TypeBoxTypeProvider>();

  const kinds = [
    { kind: 'show', plural: 'shows', name: 'Show', what: 'show', params: GetShowParams, param: 'show_id', get: GetShowResponse, batch: [BatchGetShowsRequest, BatchGetShowsResponse, 'showIdList'] },
    { kind: 'season', plural: 'seasons', name: 'Season', what: 'season', params: GetSeasonParams, param: 'season_id', get: GetSeasonResponse, batch: [BatchGetSeasonsRequest, BatchGetSeasonsResponse, 'seasonIdList'] },
    { kind: 'episode', plural: 'episodes', name: 'Episode', what: 'episode', params: GetEpisodeParams, param: 'episode_id', get: GetEpisodeResponse, batch: [BatchGetEpisodesRequest, BatchGetEpisodesResponse, 'episodeIdList'] },
    { kind: 'movie', plural: 'movies', name: 'Movie', what: 'film', params: GetMovieParams, param: 'movie_id', get: GetMovieResponse, batch: [BatchGetMoviesRequest, BatchGetMoviesResponse, 'movieIdList'] },
  ] as const;

  for (const { kind, plural, name, what, params, param, get, batch: [batchRequest, batchResponse, member] } of kinds) {
    if (kind === 'season') {
      routes.get(`/v1/video/seasons/:season_id`, {
        schema: {
          operationId: 'GetSeason', tags: TAGS,
          summary: 'Returns a season and a page of its episodes.',
          description: 'Episodes by episode number, then id; withdrawn episodes are left out. Page with page_size and page_token.' + CAP_NOTE,
          params, querystring: PageQuery, response: { 200: get },
        },
        config: { access: 'catalog', keyScope: 'video' },
      }, async (request, reply) => {
        const id = (request.params as Record<string, string>)[param]!;
        return sendLentAnswer(reply, await video.season(id, pageRequest(request.query as Record<string, unknown>), request.negotiation, capOf(request)), video);
      });
    } else {
      routes.get(`/v1/video/${plural}/:${param}`, {
        schema: {
          operationId: `Get${name}`, tags: TAGS,
          summary: `Returns a ${what}.`,
          description: `A withdrawn or unknown id is a 404.${CAP_NOTE}`,
          params, response: { 200: get },
        },
        config: { access: 'catalog', keyScope: 'video' },
      }, async (request, reply) =>
        sendJson(reply, await video.get(kind as VideoKind, (request.params as Record<string, string>)[param]!, request.negotiation, capOf(request))));
    }

    // "::" escapes the colon of the AIP-136 custom method in Fastify's router.
    const body = batchBody(`/v1/video/${plural}::batchGet`, batchRequest);
    routes.post(body.pattern, {
      schema: {
        operationId: `BatchGet${name}s`, tags: TAGS,
        summary: `Returns many ${what}s by id in one call.`,
        description: `Every requested id is a key of \`results\`; ids not in the catalog get a per-item NOT_FOUND error. Duplicate ids are answered once.${CAP_NOTE}`,
        body: batchRequest, response: { 200: batchResponse },
      },
      config: { ...body.config, access: 'catalog', keyScope: 'video' },
    }, async (request, reply) =>
      sendLentAnswer(reply, await video.batchGet(kind, batchIdsOf(request.body, member), request.negotiation, capOf(request)), video));
  }

  for (const { kind, param, params, what } of [
    { kind: 'show', param: 'show_id', params: GetShowParams, what: 'show' },
    { kind: 'movie', param: 'movie_id', params: GetMovieParams, what: 'film' },
  ] as const) {
    routes.get(`/v1/video/${kind}s/:${param}/soundtrack`, {
      schema: {
        operationId: kind === 'show' ? 'GetShowSoundtrack' : 'GetMovieSoundtrack', tags: TAGS,
        summary: `Returns the songs of a ${what}'s soundtrack, one page at a time.`,
        description: `In the order the ${what} lists them; withdrawn songs are left out. The songs play as any other (AcquireMusicStream).${CAP_NOTE}`,
        params, querystring: PageQuery, response: { 200: GetSoundtrackResponse },
      },
      config: { access: 'catalog', keyScope: 'video' },
    }, async (request, reply) => {
      const id = (request.params as Record<string, string>)[param]!;
      return sendLentAnswer(reply, await video.soundtrack(kind, id, pageRequest(request.query as Record<string, unknown>), request.negotiation, capOf(request)), video);
    });
  }

  routes.get('/v1/music/songs/:song_id/appearances', {
    schema: {
      operationId: 'GetSongAppearances', tags: TAGS,
      summary: 'Returns the shows and films whose soundtrack lists a song.',
      description: `Each title is \`{ show }\` or \`{ movie }\`, films first, then by id.${CAP_NOTE}`,
      params: GetSongParams, querystring: PageQuery, response: { 200: GetSongAppearancesResponse },
    },
    config: { access: 'catalog', keyScope: 'video' },
  }, async (request, reply) =>
    sendLentAnswer(reply, await video.appearances(request.params.song_id, pageRequest(request.query as Record<string, unknown>), request.negotiation, capOf(request)), video));
}
