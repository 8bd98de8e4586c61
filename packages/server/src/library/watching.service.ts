import { FINISHED_SHARE, MAX_PLAY_AGE_MS, MAX_PLAY_CLOCK_SKEW_MS, STARTED_SHARE, type ProgressReport } from '@maqam/contract';
import { DomainError, type ErrorReason } from '../errors.ts';
import type { Negotiation } from '../locale/negotiation.ts';
import type { CatalogLists } from '../catalog/catalog.service.ts';
import { keysetPage, type PageCursorCodec, type PageRequest } from '../catalog/page-cursor.ts';
import { admits, type ViewerCap } from '../video/age-rating.ts';
import type { VideoService } from '../video/video.service.ts';
import { instantOf } from './history.service.ts';
import { rfc3339, withMembers } from './rendered-items.ts';
import type { BeforeCommit, UserStore } from './user-write.ts';
import type { Progress, TitleKind, WatchedTitle, WatchingRepo, WatchingWrite } from './watching.repo.ts';

/** What a report answers: the title's resume point and whether it is finished, or why it was refused. */
export type ProgressOutcome = { readonly positionMs: number; readonly finished: boolean } | { readonly error: ErrorReason; readonly id: string };

/** A title of continue watching: a film or episode in progress, or a show's next episode. */
interface Entry {
  readonly kind: TitleKind;
  readonly id: string;
  readonly positionMs: number;
  readonly updatedAt: number;
}

const NOT_FOUND: Record<TitleKind, ErrorReason> = { movie: 'movieNotFound', episode: 'episodeNotFound' };

/**
 * Contract section 15: watched this far, a title is finished: 90 % of it, or
 * where its credits start if that is earlier.
 */
export function finishedAt(title: Pick<WatchedTitle, 'durationMs' | 'creditsStartMs'>): number {
  const ninetyPercent = title.durationMs * FINISHED_SHARE;
  return title.creditsStartMs === null ? ninetyPercent : Math.min(ninetyPercent, title.creditsStartMs);
}

/**
 * The progress a report leaves, given what there was (`before`), or
 * undefined when it changes nothing but the history. The rules of section 15,
 * where the peers lose places: an older report never wins over a newer one;
 * a position under 5 % (a failed start, a player that reports 0) never
 * replaces a resume point unless the viewer restarted; past 90 % or the
 * credits the title is finished; any later report brings a hidden title back.
 */
export function progressAfter(title: WatchedTitle, before: Progress | undefined, report: { positionMs: number; reportedAt: number; restart: boolean }, now: number): Progress | undefined {
  if (before !== undefined && report.reportedAt < before.reportedAt) return undefined;
  const moved = { kind: title.kind, id: title.id, showId: title.showId, reportedAt: report.reportedAt, updatedAt: now, hidden: false };
  if (report.positionMs >= finishedAt(title)) return { ...moved, positionMs: report.positionMs, finished: true };
  const started = report.positionMs > 0 && report.positionMs >= title.durationMs * STARTED_SHARE;
  if (started || (report.restart && before !== undefined)) return { ...moved, positionMs: report.positionMs, finished: false };
  // Under 5 %: no new resume point. A hidden title with a place comes back where it was; one hidden before it was
  // started (a show's next episode: reportedAt 0) has none, and a start under 5 % does not enter.
  if (before?.hidden && !before.finished && before.reportedAt > 0) return { ...before, hidden: false, reportedAt: report.reportedAt, updatedAt: now };
  return undefined;
}

export interface WatchingServiceDeps {
  repo: Pick<WatchingRepo, 'progress' | 'episodesInOrder'>;
  writes: UserStore<{ watching: WatchingWrite }>;
  video: Pick<VideoService, 'fragments'>;
  catalog: Pick<CatalogLists, 'listAnswer'>;
  cursors: PageCursorCodec;
  clock: () => number;
}

/** Continue watching (LibraryService, contract section 15): progress reports, the resume list with shows' next episodes, and hiding. */
export function createWatchingService({ repo, writes, video, catalog, cursors, clock }: WatchingServiceDeps) {
  /** The titles reports and hides name, live and within the viewer's cap (others are NOT_FOUND, as unknown ids). */
  const withinCap = (titles: ReadonlyMap<string, WatchedTitle>, cap: ViewerCap) => new Map([...titles].filter(([, title]) => admits(cap, ...title.ratingRanks)));

  /** Continue watching as it stands: films in progress, and one entry a show (its episode in progress, or the next after the last finished). */
  async function entries(userId: string, cap: ViewerCap): Promise<Entry[]> {
    const progress = await repo.progress(userId);
    const list: Entry[] = [];
    const latestOfShow = new Map<string, Progress>();
    const byEpisode = new Map<string, Progress>();
    for (const row of progress) {
      if (row.kind === 'movie') {
        if (!row.finished && !row.hidden) list.push({ kind: 'movie', id: row.id, positionMs: row.positionMs, updatedAt: row.updatedAt });
        continue;
      }
      byEpisode.set(row.id, row);
      // Rows come latest first: a show's first is its latest.
      if (row.showId !== null && !latestOfShow.has(row.showId)) latestOfShow.set(row.showId, row);
    }
    const finishedShows = [...latestOfShow.values()].filter((row) => row.finished).map((row) => row.showId!);
    const order = new Map<string, string[]>();
    for (const episode of await repo.episodesInOrder(finishedShows)) {
      if (!admits(cap, ...episode.ratingRanks)) continue;
      const list = order.get(episode.showId) ?? [];
      list.push(episode.id);
      order.set(episode.showId, list);
    }
    for (const [showId, latest] of latestOfShow) {
      if (latest.hidden) continue;
      if (!latest.finished) {
        list.push({ kind: 'episode', id: latest.id, positionMs: latest.positionMs, updatedAt: latest.updatedAt });
        continue;
      }
      // The next episode after the one finished last, skipping those already finished (watched out of order).
      const episodes = order.get(showId) ?? [];
      const next = episodes.slice(episodes.indexOf(latest.id) + 1).find((id) => !byEpisode.get(id)?.finished);
      if (next === undefined || episodes.indexOf(latest.id) === -1) continue;
      const started = byEpisode.get(next);
      if (started?.hidden) continue;
      list.push({ kind: 'episode', id: next, positionMs: started?.positionMs ?? 0, updatedAt: latest.updatedAt });
    }
    return list.sort((a, b) => b.updatedAt - a.updatedAt || (a.kind < b.kind ? -1 : a.kind > b.kind ? 1 : 0) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  return {
    /**
     * ReportProgress: each report kept once (by title and reportedAt), and
     * the resume point moved as progressAfter says, in one write with its
     * answer. Finishes are changes of the user's feed.
     */
    async report(userId: string, reports: readonly ProgressReport[], cap: ViewerCap, beforeCommit?: BeforeCommit<ProgressOutcome[]>): Promise<ProgressOutcome[]> {
      const now = clock();
      const items = reports.map((report) => (report.movieId ? { kind: 'movie' as const, id: report.movieId.value } : { kind: 'episode' as const, id: report.episodeId!.value }));
      const answered = await writes.write(userId, async ({ watching }) => {
        const reportedAts = reports.map((report) => instantOf(report.reportedAt));
        const asked = items.flatMap((item, i) => (Number.isNaN(reportedAts[i]!) ? [] : [{ ...item, reportedAt: reportedAts[i]! }]));
        const before = await watching.before(items, asked);
        const titles = withinCap(before.titles, cap);
        const outcomes: ProgressOutcome[] = [];
        for (const [i, report] of reports.entries()) {
          const { kind, id } = items[i]!;
          const reportedAt = reportedAts[i]!;
          const key = `${kind}\u0000${id}`;
          const title = titles.get(key);
          if (Number.isNaN(reportedAt)) outcomes.push({ error: 'progressTimeInvalid', id });
          else if (reportedAt > now + MAX_PLAY_CLOCK_SKEW_MS) outcomes.push({ error: 'progressInFuture', id });
          else if (reportedAt < now - MAX_PLAY_AGE_MS) outcomes.push({ error: 'progressTooOld', id });
          else if (title === undefined) outcomes.push({ error: NOT_FOUND[kind], id });
          else {
            const was = before.progress.get(key);
            // A report is kept once by its title and reportedAt: sent before, or twice in this request, it changes nothing.
            const reportKey = `${key}\u0000${reportedAt}`;
            const kept = !before.reported.has(reportKey);
            if (kept) {
              before.reported.add(reportKey);
              watching.keepReport(kind, id, reportedAt, report.positionMs, report.restart === true);
            }
            const after = kept ? progressAfter(title, was, { positionMs: report.positionMs, reportedAt, restart: report.restart === true }, now) : undefined;
            if (after !== undefined) {
              watching.saveProgress(after);
              before.progress.set(key, after);
              if (after.finished && !was?.finished) watching.recordChange(kind, id, 'CHANGE_UPDATED', now);
            }
            const state = after ?? was;
            outcomes.push({ positionMs: state?.positionMs ?? 0, finished: state?.finished ?? false });
          }
        }
        return outcomes;
      }, beforeCommit);
      if (answered === undefined) throw new DomainError('accessTokenInvalid');
      return answered;
    },

    /**
     * Hides titles from continue watching without forgetting their place: a
     * show's next episode not yet started is hidden as a place at 0. Hides are
     * changes of the user's feed. Unknown ids are refused as a whole (404).
     */
    async hide(userId: string, items: readonly { kind: TitleKind; id: string }[], cap: ViewerCap, beforeCommit?: BeforeCommit<boolean>): Promise<void> {
      const now = clock();
      const done = await writes.write(userId, async ({ watching }) => {
        const before = await watching.before(items, []);
        const titles = withinCap(before.titles, cap);
        const missing = items.find((item) => !titles.has(`${item.kind}\u0000${item.id}`));
        if (missing) throw new DomainError(NOT_FOUND[missing.kind], { params: { id: missing.id } });
        for (const { kind, id } of items) {
          const key = `${kind}\u0000${id}`;
          const was = before.progress.get(key);
          if (was?.hidden) continue;
          const title = titles.get(key)!;
          const hidden: Progress = was === undefined
            ? { kind, id, showId: title.showId, positionMs: 0, reportedAt: 0, updatedAt: now, finished: false, hidden: true }
            : { ...was, hidden: true };
          watching.saveProgress(hidden);
          before.progress.set(key, hidden);
          watching.recordChange(kind, id, 'CHANGE_REMOVED', now);
        }
        return true;
      }, beforeCommit);
      if (done === undefined) throw new DomainError('accessTokenInvalid');
    },

    /** GetContinueWatching: `{"items":[{"movie"|"episode":{...},"positionMs":N,"updatedAt":"..."}],"nextPageToken":"..."}`, latest first. */
    async list(userId: string, cap: ViewerCap, request: PageRequest, negotiation: Negotiation): Promise<Buffer> {
      const all = await entries(userId, cap);
      const position = (entry: Entry): [number, string, string] => [entry.updatedAt, entry.kind, entry.id];
      const after = (entry: Entry, at: [number, string, string]) =>
        entry.updatedAt < at[0] || (entry.updatedAt === at[0] && (entry.kind > at[1] || (entry.kind === at[1] && entry.id > at[2])));
      const { rows, nextPageToken } = await keysetPage<[number, string, string]>(cursors, request, `watching\u0000${userId}\u0000${cap}`, ['number', 'string', 'string'])
        .read(async (at, limit) => (at === null ? all : all.filter((entry) => after(entry, at))).slice(0, limit), position);
      const rendered = new Map<string, Buffer | undefined>();
      for (const kind of ['movie', 'episode'] as const) {
        const ids = rows.filter((row) => row.kind === kind).map((row) => row.id);
        if (ids.length === 0) continue;
        const fragments = await video.fragments(kind, ids, negotiation, cap);
        ids.forEach((id, i) => rendered.set(`${kind}\u0000${id}`, fragments[i]));
      }
      const items: (readonly Buffer[])[] = [];
      for (const row of rows) {
        const fragment = rendered.get(`${row.kind}\u0000${row.id}`);
        if (fragment !== undefined) items.push(withMembers(fragment, `,"positionMs":${row.positionMs},"updatedAt":"${rfc3339(row.updatedAt)}"`));
      }
      return catalog.listAnswer('items', items, nextPageToken);
    },
  };
}

export type WatchingService = ReturnType<typeof createWatchingService>;
