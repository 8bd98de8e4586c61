import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import {
  AddPlaylistItemsRequest, CreatePlaylistRequest, EmptyResponse, GetPlaylistItemsResponse, GetPlaylistResponse, GetUserPlaylistsResponse,
  MovePlaylistItemsRequest, PageQuery, PlaylistItemsWriteResponse, PlaylistParams, PlaylistResponse, RemovePlaylistItemsRequest,
  RemovePlaylistItemsResponse, ReplacePlaylistItemsRequest, UpdatePlaylistRequest, VersionResponse,
} from '@maqam/contract';
import { ApiError, type MessageLocale } from '../errors.ts';
import { sendJson } from '../http/answers.ts';
import { userOf } from '../http/credentials.ts';
import { ifMatchVersions, noneMatchHolds, versionEtag } from '../http/etag.ts';
import { IDEMPOTENCY_NOTE, type Idempotency } from '../http/idempotency.ts';
import { pageRequest } from '../catalog/paging.ts';
import type { EntriesWritten, PlaylistService, SongFragments, VersionedAnswer } from './playlists.service.ts';
import type { PlaylistRow } from './playlists.repo.ts';

export interface PlaylistRouteDeps {
  playlists: PlaylistService;
  /** Keeps a write's answer with it (the edge claims the key: `config.idempotent`). */
  idempotency: Idempotency;
}

const TAGS = ['PlaylistService'];
/** What the routes declare of themselves (http/edge.ts wires it): anyone reads a public playlist, its owner the rest. */
const READ = { access: 'catalog', keyScope: 'playlists' } as const;
const USER_READ = { access: 'user-read' } as const;
const WRITE = { access: 'user-write' } as const;
const POST = { access: 'user-write', idempotent: true } as const;
const IF_MATCH_NOTE = ' Send `If-Match: "<version>"` to apply it only to that version: if the playlist has moved on, nothing changes and the answer is 412 with the current ETag.';

type Params = { playlist_id: string };
/** Who reads: a token's user, or nobody in particular (an API key reads public playlists only). */
const readerOf = (request: FastifyRequest) => ({ userId: request.principal?.kind === 'token' ? request.principal.userId : undefined });
const ifMatchOf = (request: FastifyRequest) => ifMatchVersions(request.headers['if-match']);

/** A write's answer: its body, with the playlist's new version as the ETag. */
function withVersion<T>(reply: FastifyReply, playlist: PlaylistRow, body: T): T {
  reply.header('etag', versionEtag(playlist.version));
  return body;
}

/** A read's answer: 304 when the client already holds this version (If-None-Match), else the body, with the version as ETag. */
async function sendVersioned(request: FastifyRequest, reply: FastifyReply, answer: VersionedAnswer): Promise<FastifyReply> {
  const etag = versionEtag(answer.version);
  reply.header('etag', etag);
  if (noneMatchHolds(request.headers['if-none-match'], etag)) return reply.code(304).send();
  return sendJson(reply, await answer.body());
}

/**
 * PlaylistService (contract section 14): a user's playlists, their entries
 * with ids of their own, versions as ETags with If-Match and If-None-Match.
 * Reads take `read` or an API key (which sees public playlists only); writes
 * `write`, and their POSTs an Idempotency-Key.
 */
export async function playlistRoutes(scope: FastifyInstance, deps: PlaylistRouteDeps): Promise<void> {
  const { playlists, idempotency } = deps;
  const routes = scope.withTypeProvider<TypeBoxTypeProvider>();
  // A playlist read may be kept by the client (private: it may be someone's own) and revalidated by its ETag; a write's answer is never kept.
  scope.addHook('onSend', (request, reply, payload, done) => {
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', request.method === 'GET' ? 'private, no-cache' : 'no-store');
    done(null, payload);
  });

  /** A write of entries' answer, `{"version","items"}` with the version as ETag, made from songs rendered before the write began. */
  const entriesJson = (reply: FastifyReply, { playlist, entries }: EntriesWritten, fragments: SongFragments, locale: MessageLocale) =>
    withVersion(reply, playlist, playlists.entriesBody({ version: String(playlist.version) }, entries, undefined, fragments, locale));

  routes.post('/v1/playlists', {
    schema: {
      operationId: 'CreatePlaylist', tags: TAGS,
      summary: 'Makes a playlist for the signed-in user.',
      description: 'Private unless told. Songs named are its first entries (a song named twice, two entries); an unknown or withdrawn song is a 400 naming it, and nothing is made.' + IDEMPOTENCY_NOTE,
      body: CreatePlaylistRequest,
      response: { 201: PlaylistResponse },
    },
    config: POST,
  }, async (request, reply) => {
    const { name, description, visibility, songIdList } = request.body;
    const answer = idempotency.answer(request, reply, (playlist: PlaylistRow) => {
      reply.code(201).header('location', `/v1/playlists/${encodeURIComponent(playlist.id)}`);
      return withVersion(reply, playlist, { playlist: playlists.playlistJson(playlist) });
    });
    return answer.send(await playlists.create(userOf(request), { name, description, visibility, songIds: (songIdList ?? []).map((id) => id.value) }, answer.keep));
  });

  routes.get('/v1/playlists', {
    schema: {
      operationId: 'GetUserPlaylists', tags: TAGS,
      summary: 'The signed-in user\'s playlists, newest first, then id.',
      description: 'Page tokens are bound to the user.',
      querystring: PageQuery,
      response: { 200: GetUserPlaylistsResponse },
    },
    config: USER_READ,
  }, async (request, reply) => sendJson(reply, await playlists.owned(userOf(request), pageRequest(request.query as Record<string, unknown>))));

  routes.get('/v1/playlists/:playlist_id', {
    schema: {
      operationId: 'GetPlaylist', tags: TAGS,
      summary: 'A playlist and the first page of its entries.',
      description: 'Its owner\'s, or a public one. ETag is its version; If-None-Match with it answers 304. A private playlist of another user is a 404, as an unknown id.',
      params: PlaylistParams,
      querystring: PageQuery,
      response: { 200: GetPlaylistResponse },
    },
    config: READ,
  }, async (request, reply) =>
    sendVersioned(request, reply, await playlists.get(request.params.playlist_id, readerOf(request), pageRequest(request.query as Record<string, unknown>), request.negotiation)));

  routes.get('/v1/playlists/:playlist_id/items', {
    schema: {
      operationId: 'GetPlaylistItems', tags: TAGS,
      summary: 'A page of a playlist\'s entries, in order.',
      description:
        'A page token stays good while the playlist changes: paging on shows the entries there when the first page was read that have not moved since, ' +
        'none twice. An entry whose song was withdrawn keeps its place and carries error instead of song. ETag is the version; If-None-Match answers 304.',
      params: PlaylistParams,
      querystring: PageQuery,
      response: { 200: GetPlaylistItemsResponse },
    },
    config: READ,
  }, async (request, reply) =>
    sendVersioned(request, reply, await playlists.items(request.params.playlist_id, readerOf(request), pageRequest(request.query as Record<string, unknown>), request.negotiation)));

  routes.patch('/v1/playlists/:playlist_id', {
    schema: {
      operationId: 'UpdatePlaylist', tags: TAGS,
      summary: 'Changes a playlist\'s name, description or visibility.',
      description: 'Only its owner may; the details left out stay.' + IF_MATCH_NOTE,
      params: PlaylistParams,
      body: UpdatePlaylistRequest,
      response: { 200: PlaylistResponse },
    },
    config: WRITE,
  }, async (request, reply) => {
    const playlist = await playlists.update(userOf(request), request.params.playlist_id, request.body, ifMatchOf(request));
    return withVersion(reply, playlist, { playlist: playlists.playlistJson(playlist) });
  });

  routes.delete('/v1/playlists/:playlist_id', {
    schema: {
      operationId: 'DeletePlaylist', tags: TAGS,
      summary: 'Deletes a playlist and its entries.',
      description: 'Only its owner may; afterwards it is a 404.' + IF_MATCH_NOTE,
      params: PlaylistParams,
      response: { 200: EmptyResponse },
    },
    config: WRITE,
  }, async (request) => {
    await playlists.delete(userOf(request), request.params.playlist_id, ifMatchOf(request));
    return {};
  });

  routes.post('/v1/playlists/:playlist_id/items::batchAdd', {
    schema: {
      operationId: 'AddPlaylistItems', tags: TAGS,
      summary: 'Adds songs to a playlist, each as a new entry.',
      description:
        'At the end, or just before beforeItemId (an entry not in the playlist is a 409). An unknown or withdrawn song is a 400 naming it, and nothing is added.' +
        IF_MATCH_NOTE + IDEMPOTENCY_NOTE,
      params: PlaylistParams,
      body: AddPlaylistItemsRequest,
      response: { 200: PlaylistItemsWriteResponse },
    },
    config: POST,
  }, async (request, reply) => {
    const songIds = request.body.songIdList.map((id) => id.value);
    // Read before the write: its answer is then made inside it, and can neither fail nor wait once it has committed.
    const fragments = await playlists.songFragments(songIds, request.negotiation);
    const answer = idempotency.answer(request, reply, (written: EntriesWritten) => entriesJson(reply, written, fragments, request.negotiation.messageLocale));
    return answer.send(await playlists.add(userOf(request), request.params.playlist_id, songIds, request.body.beforeItemId, ifMatchOf(request), answer.keep));
  });

  routes.post('/v1/playlists/:playlist_id/items::batchRemove', {
    schema: {
      operationId: 'RemovePlaylistItems', tags: TAGS,
      summary: 'Removes entries from a playlist, by their ids.',
      description: 'Only the entries named: another entry of the same song stays. An entry already gone is skipped; removed says how many went.' + IF_MATCH_NOTE + IDEMPOTENCY_NOTE,
      params: PlaylistParams,
      body: RemovePlaylistItemsRequest,
      response: { 200: RemovePlaylistItemsResponse },
    },
    config: POST,
  }, async (request, reply) => {
    const answer = idempotency.answer(request, reply, ({ playlist, removed }: { playlist: PlaylistRow; removed: number }) =>
      withVersion(reply, playlist, { removed, version: String(playlist.version) }));
    return answer.send(await playlists.remove(userOf(request), request.params.playlist_id, request.body.itemIds, ifMatchOf(request), answer.keep));
  });

  routes.post('/v1/playlists/:playlist_id/items::move', {
    schema: {
      operationId: 'MovePlaylistItems', tags: TAGS,
      summary: 'Moves entries, in the order given, just before another entry or to the end.',
      description: 'An entry that is gone, named by itemIds or beforeItemId, is a 409 and nothing moves.' + IF_MATCH_NOTE + IDEMPOTENCY_NOTE,
      params: PlaylistParams,
      body: MovePlaylistItemsRequest,
      response: { 200: VersionResponse },
    },
    config: POST,
  }, async (request, reply) => {
    const { itemIds, beforeItemId } = request.body;
    const answer = idempotency.answer(request, reply, (playlist: PlaylistRow) => withVersion(reply, playlist, { version: String(playlist.version) }));
    return answer.send(await playlists.move(userOf(request), request.params.playlist_id, itemIds, beforeItemId, ifMatchOf(request), answer.keep));
  });

  routes.put('/v1/playlists/:playlist_id/items', {
    schema: {
      operationId: 'ReplacePlaylistItems', tags: TAGS,
      summary: 'Replaces every entry of a playlist with these songs.',
      description: 'If-Match is required (428 without it), so that no change made since the version you read is lost; a stale one is a 412 with the current ETag.',
      params: PlaylistParams,
      body: ReplacePlaylistItemsRequest,
      response: { 200: PlaylistItemsWriteResponse },
    },
    config: WRITE,
  }, async (request, reply) => {
    const ifMatch = ifMatchOf(request);
    if (request.headers['if-match'] === undefined) throw new ApiError('playlistVersionRequired', { violations: [{ field: 'If-Match', reason: 'required' }] });
    const songIds = request.body.songIdList.map((id) => id.value);
    // Read before the write: once it has committed, its answer can neither fail nor wait.
    const fragments = await playlists.songFragments(songIds, request.negotiation);
    // `If-Match: *` asks only that the playlist exist: every version of it matches.
    return sendJson(reply, entriesJson(reply, await playlists.replace(userOf(request), request.params.playlist_id, songIds, ifMatch), fragments, request.negotiation.messageLocale));
  });
}
