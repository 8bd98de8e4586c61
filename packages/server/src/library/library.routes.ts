import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import {
  CheckFollowedArtistsResponse, CheckSavedItemsResponse, EmptyResponse, FollowArtistsResponse, FollowedArtistsRequest, GetCurrentUserResponse,
  GetFollowedArtistsResponse, GetHistoryResponse, GetLibraryChangesQuery, GetLibraryChangesResponse, GetSavedItemsQuery, GetSavedItemsResponse,
  LIBRARY_ITEM_TYPES, MAX_BATCH_SIZE, PageQuery, ReportPlaysRequest, ReportPlaysResponse, SavedItemsRequest, SaveItemsResponse,
} from '@maqam/contract';
import { invalidRequest, localizedError, type ErrorReason, type MessageLocale } from '../errors.ts';
import { uncachedAnswers, sendJson, sendLentAnswer, type AnswerLender } from '../http/answers.ts';
import { userOf } from '../http/credentials.ts';
import { IDEMPOTENCY_NOTE, type Idempotency } from '../http/idempotency.ts';
import { pageRequest, typesParameter } from '../catalog/paging.ts';
import type { HistoryService, PlayOutcome } from './history.service.ts';
import type { ChangeRow, LibraryKind } from './library.repo.ts';
import type { LibraryService, SaveOutcome, SaveOutcomes } from './library.service.ts';
import { rfc3339 } from './rendered-items.ts';

export interface LibraryRouteDeps {
  /** Lends the memory of the lists' answers (catalog.listAnswer), given back once they are sent. */
  catalog: AnswerLender;
  library: LibraryService;
  history: HistoryService;
  /** Keeps a write's answer with it (the edge claims the key: `config.idempotent`). */
  idempotency: Idempotency;
}

const TAGS = ['LibraryService'];
/** What the routes declare of themselves (http/edge.ts wires it). */
const READ = { access: 'user-read' } as const;
const WRITE = { access: 'user-write', idempotent: true } as const;
/** A POST that reads (a check): retried freely, but a key is taken like any POST's. */
const CHECK = { access: 'user-read', idempotent: true } as const;


/** The ids of a list, each once, in first-seen order (as Batch* answers them). */
const distinct = (list: readonly { value: string }[] | undefined): string[] => [...new Set((list ?? []).map((id) => id.value))];

/** A per-item error, in the request's language. */
function itemError(reason: ErrorReason, id: string, locale: MessageLocale) {
  return { error: localizedError(reason, { id }, locale) };
}

/** How a check names an item's state: `{"saved":true,"savedAt":"..."}` or `{"saved":false}`. */
interface StateMembers {
  readonly yes: string;
  readonly no: string;
}
const stateMembers = (flag: string, time: string): StateMembers => ({ yes: `{"${flag}":true,"${time}":"`, no: `{"${flag}":false}` });
const SAVED = stateMembers('saved', 'savedAt');
const FOLLOWING = stateMembers('following', 'followedAt');

/**
 * A check's map of states, keyed by id in the order asked, as the JSON text
 * the response schema's serializer would write (SavedState, FollowingState;
 * library.test.ts pins the bytes). Kept because it pays: answered through
 * the serializer instead, CheckSavedItems of 100 ids cost 1.30 times the
 * CPU a request (bench/README.md, "Mechanisms weighed by it").
 */
function statesJson(states: ReadonlyMap<string, number | undefined>, members: StateMembers): string {
  let json = '{';
  for (const [id, at] of states) {
    if (json.length > 1) json += ',';
    json += `${JSON.stringify(id)}:${at === undefined ? members.no : `${members.yes}${rfc3339(at)}"}`}`;
  }
  return `${json}}`;
}

/**
 * A page of the change feed as the JSON text the response schema's
 * serializer would write (GetLibraryChangesResponse; library.test.ts pins
 * the bytes). A kind and a change are names of the server's own
 * (ChangeKind, ChangeType), written as they are; the changes of one write
 * share their time, written once. Kept because it pays: a page of 500
 * answered through the serializer cost 1.24 times the CPU a request
 * (bench/README.md, "Mechanisms weighed by it").
 */
function changesJson(changes: readonly ChangeRow[], nextCursor: string): string {
  let json = '{"changes":[';
  let lastAt = Number.NaN;
  let lastTime = '';
  for (let i = 0; i < changes.length; i++) {
    const { kind, id, change, at } = changes[i]!;
    if (at !== lastAt) {
      lastAt = at;
      lastTime = rfc3339(at);
    }
    json += `${i === 0 ? '' : ','}{"kind":"${kind}","id":${JSON.stringify(id)},"change":"${change}","at":"${lastTime}"}`;
  }
  return `${json}],"nextCursor":${JSON.stringify(nextCursor)}}`;
}

/** SaveItems' and its siblings' body: 1 to 100 ids, songs and albums together. */
function savedItemsOf(body: SavedItemsRequest): Map<LibraryKind, string[]> {
  const songs = distinct(body.songIdList);
  const albums = distinct(body.albumIdList);
  const total = (body.songIdList?.length ?? 0) + (body.albumIdList?.length ?? 0);
  if (total === 0 || total > MAX_BATCH_SIZE) throw invalidRequest({ field: 'songIdList', reason: 'idsInAll', params: { limit: MAX_BATCH_SIZE } });
  return new Map<LibraryKind, string[]>([['song', songs], ['album', albums]]);
}

/**
 * LibraryService (contract section 13): the signed-in user's saved songs and
 * albums, followed artists, listening history and change feed, and
 * GetCurrentUser. Reads take scope `read`, writes `write`; an API key has no
 * user (403). A scope of its own: its POSTs take an Idempotency-Key.
 */
export async function libraryRoutes(scope: FastifyInstance, deps: LibraryRouteDeps): Promise<void> {
  const { catalog, library, history, idempotency } = deps;
  const routes = scope.withTypeProvider<TypeBoxTypeProvider>();
  uncachedAnswers(scope);

  routes.get('/v1/users/me', {
    schema: {
      operationId: 'GetCurrentUser', tags: TAGS,
      summary: 'The signed-in user.',
      description: 'The user the access token acts for: id, username, the name to show, and when the account was made.',
      response: { 200: GetCurrentUserResponse },
    },
    config: READ,
  }, async (request) => ({ user: await library.user(userOf(request)) }));

  const saveResults = (outcomes: ReadonlyMap<string, SaveOutcome> | undefined, member: 'savedAt' | 'followedAt', locale: MessageLocale) =>
    Object.fromEntries([...(outcomes ?? new Map<string, SaveOutcome>())].map(([id, outcome]) =>
      [id, 'savedAt' in outcome ? { [member]: rfc3339(outcome.savedAt) } : itemError(outcome.error, outcome.id, locale)]));

  routes.post('/v1/library/saved::batchAdd', {
    schema: {
      operationId: 'SaveItems', tags: TAGS,
      summary: 'Saves songs and albums to the user\'s library.',
      description: 'Saving again keeps the first savedAt. An unknown or withdrawn id is a per-item NOT_FOUND and is not saved.' + IDEMPOTENCY_NOTE,
      body: SavedItemsRequest,
      response: { 200: SaveItemsResponse },
    },
    config: WRITE,
  }, async (request, reply) => {
    const locale = request.negotiation.messageLocale;
    const answer = idempotency.answer(request, reply, (outcomes: SaveOutcomes) =>
      ({ songs: saveResults(outcomes.get('song'), 'savedAt', locale), albums: saveResults(outcomes.get('album'), 'savedAt', locale) }));
    return answer.send(await library.save(userOf(request), savedItemsOf(request.body), answer.keep));
  });

  routes.post('/v1/library/saved::batchRemove', {
    schema: {
      operationId: 'RemoveSavedItems', tags: TAGS,
      summary: 'Removes songs and albums from the user\'s library.',
      description: 'Removing what is not saved succeeds.' + IDEMPOTENCY_NOTE,
      body: SavedItemsRequest,
      response: { 200: EmptyResponse },
    },
    config: WRITE,
  }, async (request, reply) => {
    const answer = idempotency.answer(request, reply, () => ({}));
    return answer.send(await library.remove(userOf(request), savedItemsOf(request.body), answer.keep));
  });

  routes.post('/v1/library/saved::check', {
    schema: {
      operationId: 'CheckSavedItems', tags: TAGS,
      summary: 'Tells which of these songs and albums the user has saved.',
      description: 'Every requested id is a key, answered once: saved with savedAt, or saved: false (an unknown id too).',
      body: SavedItemsRequest,
      response: { 200: CheckSavedItemsResponse },
    },
    config: CHECK,
  }, async (request, reply) => {
    const userId = userOf(request);
    const byKind = savedItemsOf(request.body);
    const songs = await library.check(userId, 'song', byKind.get('song')!);
    const albums = await library.check(userId, 'album', byKind.get('album')!);
    return sendJson(reply, `{"songs":${statesJson(songs, SAVED)},"albums":${statesJson(albums, SAVED)}}`);
  });

  routes.get('/v1/library/saved', {
    schema: {
      operationId: 'GetSavedItems', tags: TAGS,
      summary: 'The user\'s saved songs and albums, newest save first, then id.',
      description: 'A withdrawn item stays saved but is left out until it comes back. Page tokens are bound to the user and types.',
      querystring: GetSavedItemsQuery,
      response: { 200: GetSavedItemsResponse },
    },
    config: READ,
  }, async (request, reply) => {
    const query = request.query as Record<string, unknown> & { types?: string };
    return sendLentAnswer(reply, await library.list(userOf(request), typesParameter(query.types, LIBRARY_ITEM_TYPES, 'libraryTypes'), 'savedAt', pageRequest(query), request.negotiation), catalog);
  });

  const artistsOf = (body: FollowedArtistsRequest) => new Map<LibraryKind, string[]>([['artist', distinct(body.artistIdList)]]);

  routes.post('/v1/library/following/artists::batchAdd', {
    schema: {
      operationId: 'FollowArtists', tags: TAGS,
      summary: 'Follows artists.',
      description: 'Following again keeps the first followedAt. An unknown or withdrawn id is a per-item NOT_FOUND and is not followed.' + IDEMPOTENCY_NOTE,
      body: FollowedArtistsRequest,
      response: { 200: FollowArtistsResponse },
    },
    config: WRITE,
  }, async (request, reply) => {
    const answer = idempotency.answer(request, reply, (outcomes: SaveOutcomes) =>
      ({ artists: saveResults(outcomes.get('artist'), 'followedAt', request.negotiation.messageLocale) }));
    return answer.send(await library.save(userOf(request), artistsOf(request.body), answer.keep));
  });

  routes.post('/v1/library/following/artists::batchRemove', {
    schema: {
      operationId: 'UnfollowArtists', tags: TAGS,
      summary: 'Unfollows artists.',
      description: 'Unfollowing an artist not followed succeeds.' + IDEMPOTENCY_NOTE,
      body: FollowedArtistsRequest,
      response: { 200: EmptyResponse },
    },
    config: WRITE,
  }, async (request, reply) => {
    const answer = idempotency.answer(request, reply, () => ({}));
    return answer.send(await library.remove(userOf(request), artistsOf(request.body), answer.keep));
  });

  routes.post('/v1/library/following/artists::check', {
    schema: {
      operationId: 'CheckFollowedArtists', tags: TAGS,
      summary: 'Tells which of these artists the user follows.',
      description: 'Every requested id is a key, answered once: following with followedAt, or following: false (an unknown id too).',
      body: FollowedArtistsRequest,
      response: { 200: CheckFollowedArtistsResponse },
    },
    config: CHECK,
  }, async (request, reply) =>
    sendJson(reply, `{"artists":${statesJson(await library.check(userOf(request), 'artist', distinct(request.body.artistIdList)), FOLLOWING)}}`));

  routes.get('/v1/library/following/artists', {
    schema: {
      operationId: 'GetFollowedArtists', tags: TAGS,
      summary: 'The artists the user follows, newest follow first, then id.',
      description: 'A withdrawn artist stays followed but is left out until it comes back. Page tokens are bound to the user.',
      querystring: PageQuery,
      response: { 200: GetFollowedArtistsResponse },
    },
    config: READ,
  }, async (request, reply) =>
    sendLentAnswer(reply, await library.list(userOf(request), ['artist'], 'followedAt', pageRequest(request.query as Record<string, unknown>), request.negotiation), catalog));

  routes.post('/v1/library/history::report', {
    schema: {
      operationId: 'ReportPlays', tags: TAGS,
      summary: 'Reports plays of songs.',
      description:
        'A play counts when it lasted at least 30 s, or at least half of a song shorter than 60 s; shorter plays are kept as skips. ' +
        'The same playId reported again changes nothing and answers its first result. A bad play is a per-item error; the others are recorded.' + IDEMPOTENCY_NOTE,
      body: ReportPlaysRequest,
      response: { 200: ReportPlaysResponse },
    },
    config: WRITE,
  }, async (request, reply) => {
    const locale = request.negotiation.messageLocale;
    const answer = idempotency.answer(request, reply, (outcomes: ReadonlyMap<string, PlayOutcome>) => ({
      results: Object.fromEntries([...outcomes].map(([playId, outcome]) => [playId, 'counted' in outcome ? { counted: outcome.counted } : itemError(outcome.error, outcome.id, locale)])),
    }));
    return answer.send(await history.report(userOf(request), request.body.plays, answer.keep));
  });

  routes.get('/v1/library/history', {
    schema: {
      operationId: 'GetHistory', tags: TAGS,
      summary: 'The user\'s counted plays, newest first.',
      description: 'Kept MAQAM_HISTORY_DAYS days (default 365); paged with no other cap.',
      querystring: PageQuery,
      response: { 200: GetHistoryResponse },
    },
    config: READ,
  }, async (request, reply) => sendLentAnswer(reply, await history.list(userOf(request), pageRequest(request.query as Record<string, unknown>), request.negotiation), catalog));

  routes.get('/v1/library/changes', {
    schema: {
      operationId: 'GetLibraryChanges', tags: TAGS,
      summary: 'What changed in the user\'s library since a cursor, in commit order.',
      description: 'Without a cursor the answer marks now. With one, it lists the changes after it (at most 500) and the next cursor. Cursors are bound to the user and kept 90 days.',
      querystring: GetLibraryChangesQuery,
      response: { 200: GetLibraryChangesResponse },
    },
    config: READ,
  }, async (request, reply) => {
    const { changes, nextCursor } = await library.changes(userOf(request), (request.query as { cursor?: string }).cursor);
    return sendJson(reply, changesJson(changes, nextCursor));
  });
}
