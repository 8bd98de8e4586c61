import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import {
  EmptyResponse, GetContinueWatchingResponse, HideContinueWatchingRequest, MAX_BATCH_SIZE, PageQuery, ReportProgressRequest, ReportProgressResponse,
} from '@maqam/contract';
import { invalidRequest, localizedError } from '../errors.ts';
import { uncachedAnswers, sendLentAnswer, type AnswerLender } from '../http/answers.ts';
import { userOf } from '../http/credentials.ts';
import { IDEMPOTENCY_NOTE, type Idempotency } from '../http/idempotency.ts';
import { pageRequest } from '../catalog/paging.ts';
import { viewerCapOf } from '../video/age-rating.ts';
import type { ProgressOutcome, WatchingService } from './watching.service.ts';

export interface WatchingRouteDeps {
  /** Lends the memory of the list's answer, given back once it is sent. */
  catalog: AnswerLender;
  watching: WatchingService;
  idempotency: Idempotency;
}

const TAGS = ['LibraryService'];
const READ = { access: 'user-read' } as const;
const WRITE = { access: 'user-write', idempotent: true } as const;
const CAP_NOTE = ' Titles above the user\'s parental cap are absent, and reporting one is a per-item NOT_FOUND.';

/**
 * Continue watching (LibraryService, contract section 15): progress
 * reports, the resume list and hiding. Reads take `read`, writes `write`; an
 * API key has no user. Its POSTs take an Idempotency-Key.
 */
export async function watchingRoutes(scope: FastifyInstance, deps: WatchingRouteDeps): Promise<void> {
  const { catalog, watching, idempotency } = deps;
  const routes = scope.withTypeProvider<TypeBoxTypeProvider>();
  uncachedAnswers(scope);

  routes.post('/v1/library/progress::report', {
    schema: {
      operationId: 'ReportProgress', tags: TAGS,
      summary: 'Reports where the viewer is in films and episodes.',
      description:
        'Each report is kept once per title and reportedAt; of two reports of a title the later reportedAt wins. A position under 5 % does not start or move ' +
        'a resume point unless `restart` is true; past 90 % (or where the credits start) the title is finished and leaves continue watching, and a show\'s next ' +
        'episode takes its place. A bad report is a per-item error; the others are recorded.' + CAP_NOTE + IDEMPOTENCY_NOTE,
      body: ReportProgressRequest,
      response: { 200: ReportProgressResponse },
    },
    config: WRITE,
  }, async (request, reply) => {
    const reports = request.body.progress;
    reports.forEach((report, i) => {
      if ((report.movieId === undefined) === (report.episodeId === undefined)) throw invalidRequest({ field: `progress[${i}].movieId`, reason: 'oneTitle', params: { first: 'movieId', second: 'episodeId' } });
    });
    const locale = request.negotiation.messageLocale;
    const answer = idempotency.answer(request, reply, (outcomes: readonly ProgressOutcome[]) => ({
      results: outcomes.map((outcome) => ('error' in outcome ? { error: localizedError(outcome.error, { id: outcome.id }, locale) } : outcome)),
    }));
    return answer.send(await watching.report(userOf(request), reports, viewerCapOf(request.principal), answer.keep));
  });

  routes.get('/v1/library/continue-watching', {
    schema: {
      operationId: 'GetContinueWatching', tags: TAGS,
      summary: 'Films and episodes to resume, latest first.',
      description: 'A show appears once: its episode in progress, or the next after the one finished last (none once its last episode is finished, until a new one comes).' + CAP_NOTE,
      querystring: PageQuery,
      response: { 200: GetContinueWatchingResponse },
    },
    config: READ,
  }, async (request, reply) =>
    sendLentAnswer(reply, await watching.list(userOf(request), viewerCapOf(request.principal), pageRequest(request.query as Record<string, unknown>), request.negotiation), catalog));

  routes.post('/v1/library/continue-watching::hide', {
    schema: {
      operationId: 'HideContinueWatching', tags: TAGS,
      summary: 'Hides films and episodes from continue watching, keeping their place.',
      description: 'A hidden title comes back on its next report. An unknown id is a 404.' + IDEMPOTENCY_NOTE,
      body: HideContinueWatchingRequest,
      response: { 200: EmptyResponse },
    },
    config: WRITE,
  }, async (request, reply) => {
    const { movieIdList = [], episodeIdList = [] } = request.body;
    const total = movieIdList.length + episodeIdList.length;
    if (total === 0 || total > MAX_BATCH_SIZE) throw invalidRequest({ field: 'movieIdList', reason: 'idsInAll', params: { limit: MAX_BATCH_SIZE } });
    const items = [
      ...[...new Set(movieIdList.map((id) => id.value))].map((id) => ({ kind: 'movie' as const, id })),
      ...[...new Set(episodeIdList.map((id) => id.value))].map((id) => ({ kind: 'episode' as const, id })),
    ];
    const answer = idempotency.answer(request, reply, () => ({}));
    await watching.hide(userOf(request), items, viewerCapOf(request.principal), answer.keep);
    return answer.send(true);
  });
}
