import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import {
  BatchGetSongsRequest, BatchGetSongsResponse, ErrorBody, GetLyricsResponse, GetSongParams, GetSongResponse, ValidationErrorBody,
} from '@maqam/contract';
import { BatchIds, batchBodyReader, type BatchBodyReader } from '../http/batch-body.ts';
import type { Guard } from '../http/credentials.ts';
import { negotiateLocale } from '../http/locale.hook.ts';
import type { LocaleNegotiator } from '../locale/negotiation.ts';
import { normalizeProtoJsonNames } from '../http/proto-json.ts';
import type { CatalogService } from './catalog.service.ts';

export interface CatalogRouteDeps {
  catalog: CatalogService;
  guard: Guard;
  negotiator: LocaleNegotiator;
}

export const CATALOG_SECURITY: Record<string, string[]>[] = [{ oauth2: ['read'] }, { apiKeyAuth: [] }];
export const ERROR_RESPONSES = { 400: ValidationErrorBody, '4xx': ErrorBody, '5xx': ErrorBody } as const;

/**
 * Sends JSON already serialized in the route's response schema (rendered
 * fragments, see render.ts): Fastify sends a Buffer, or a string with its
 * type set, as is.
 */
export function sendJson(reply: FastifyReply, body: Buffer | string): FastifyReply {
  return reply.type(JSON_TYPE).send(body);
}

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * Sends an answer whose memory the catalog lends (a Batch* answer, a list):
 * it is given back when the response closes, after its bytes were written to
 * the socket (or the connection went away), never while a write may still
 * read them.
 */
export function sendLentAnswer(reply: FastifyReply, body: Buffer, catalog: CatalogService): FastifyReply {
  reply.raw.once('close', () => catalog.releaseAnswer(body));
  return sendJson(reply, body);
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A Batch* route's reader of its body's plain form (http/batch-body.ts), tried before JSON.parse. */
    readBatchIds?: BatchBodyReader;
  }
}

/**
 * What a Batch* route at `pattern` (Fastify's, "::" escaping the colon)
 * adds: its body read from its bytes when it can be (by the catalog scope's
 * JSON parser, catalog.routes.ts), and renamed for proto3 JSON when it was
 * parsed.
 */
export function batchBody(pattern: string, schema: object) {
  return { pattern, config: { readBatchIds: batchBodyReader(schema) }, renameProtoJson };
}

/** A preValidation hook: snake_case members of a parsed body become lowerCamelCase (the reader took either already). */
function renameProtoJson(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  if (!(request.body instanceof BatchIds)) normalizeProtoJsonNames(request.body);
  done();
}

/** The ids of a validated Batch* body, whichever way it was read. */
export function batchIdsOf(body: unknown, member: string): string[] {
  return body instanceof BatchIds ? body.ids : (body as Record<string, { value: string }[]>)[member]!.map((id) => id.value);
}

export function songsRoutes(app: FastifyInstance, deps: CatalogRouteDeps): void {
  const { catalog, guard, negotiator } = deps;
  const routes = app.withTypeProvider<TypeBoxTypeProvider>();
  const common = { onRequest: guard('catalog'), preValidation: negotiateLocale(negotiator) };

  routes.get(
    '/v1/music/songs/:song_id',
    {
      schema: {
        operationId: 'GetSong',
        tags: ['MusicCatalogService'],
        summary: 'Returns one song.',
        description: 'Texts resolve to the best language of `Accept-Language` the song has (`value`), beside the original (`originalValue`). A withdrawn or unknown id is a 404.',
        security: CATALOG_SECURITY,
        params: GetSongParams,
        response: { 200: GetSongResponse, ...ERROR_RESPONSES },
      },
      ...common,
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
        security: CATALOG_SECURITY,
        params: GetSongParams,
        response: { 200: GetLyricsResponse, ...ERROR_RESPONSES },
      },
      ...common,
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
        security: CATALOG_SECURITY,
        body: BatchGetSongsRequest,
        response: { 200: BatchGetSongsResponse, ...ERROR_RESPONSES },
      },
      config: batch.config,
      onRequest: guard('catalog'),
      preValidation: [negotiateLocale(negotiator), batch.renameProtoJson],
    },
    async (request, reply) => sendLentAnswer(reply, await catalog.batchGetSongs(batchIdsOf(request.body, 'songIdList'), request.negotiation), catalog),
  );
}
