import type { TokenStorage } from './auth/storage.ts';
import type { ProgressResult } from './library.ts';
import { ReportQueue } from './report-queue.ts';
import { typedTitle, type PlayableTitle } from './streaming.ts';
import type { ProgressReport } from './types.ts';

/** Where the queue of unsent progress reports is kept in the storage. */
const QUEUE_KEY = 'maqam:progress';
/** The longest position the API takes (a day). */
const MAX_POSITION_MS = 86_400_000;

/**
 * How a WatchReporter keeps and sends progress.
 *
 * @example
 * const reporter = maqam.watchReporter({ storage: localStorageTokens(), onReported: (results) => results.some((r) => r.finished) && refreshShelf() });
 */
export interface WatchReporterOptions {
  /** Where reports wait while offline (survives a reload when it is localStorage); in memory by default. Same shape as the token storage. */
  storage?: TokenStorage | undefined;
  /** The clock (tests move it); Date.now by default. */
  now?: (() => number) | undefined;
  /** While playing, a position is reported each time it moved this far from the last one reported; 10 s by default. */
  intervalMs?: number | undefined;
  /** Told what each report sent answered (each result in the order of `reports`). */
  onReported?: ((results: ProgressResult[], reports: ProgressReport[]) => void) | undefined;
}

/** The reporter's transport: `library.progress.report`. */
type Report = (reports: readonly ProgressReport[]) => Promise<ProgressResult[]>;

/** A position the player gave, in whole milliseconds within what the API takes; a caller's mistake otherwise. */
function positionOf(positionMs: number): number {
  if (!(positionMs >= 0)) throw new TypeError('WatchReporter: positionMs must be a number of milliseconds');
  return Math.min(Math.round(positionMs), MAX_POSITION_MS);
}

/**
 * Follows an app's video player and reports where the viewer is, so
 * continue watching resumes there on any device. Call `play` on play (it
 * starts a title, or goes on with it), `timeUpdate` on the player's time
 * updates (a report each 10 s of playback), `pause`, `seek` and `end`, and
 * `restart` when the viewer deliberately starts over.
 *
 * Each report carries the time the reporter saw its position (`reportedAt`,
 * one millisecond apart at least), never the time it is sent. The server
 * keeps the latest `reportedAt` of a title and ignores a repeated one, so a
 * report retried, or queued offline and sent hours later, never moves a
 * resume point back past what another device reported since. Reports wait
 * in a queue (in the storage given) and are sent as they are made, 50 a
 * request; a request that fails leaves them queued for the next flush.
 *
 * @example
 * const reporter = maqam.watchReporter({ storage: localStorageTokens() });
 * const at = () => video.currentTime * 1000;
 * video.onplay = () => reporter.play({ episodeId: episode.id.value }, at());
 * video.ontimeupdate = () => reporter.timeUpdate(at());
 * video.onpause = () => reporter.pause(at());
 * video.onseeked = () => reporter.seek(at());
 * video.onended = () => reporter.end(at());
 * startOverButton.onclick = () => { video.currentTime = 0; reporter.restart(); };
 * addEventListener('pagehide', () => reporter.pause(at()));
 * addEventListener('online', () => reporter.flush());
 */
export class WatchReporter {
  readonly #queue: ReportQueue<ProgressReport>;
  readonly #now: () => number;
  readonly #intervalMs: number;
  /** The title playing, as the API names it, and where it is. */
  #title: ReturnType<typeof typedTitle> | undefined;
  #positionMs = 0;
  /** The position last reported of this title (where it started, before any report): time updates are measured from it. */
  #reportedMs = 0;
  #reportedAt = 0;

  constructor(report: Report, options: WatchReporterOptions = {}) {
    // The report is made first: `onReported?.(await report(...))` would skip it when there is no onReported.
    this.#queue = new ReportQueue(async (reports) => {
      const results = await report(reports);
      options.onReported?.(results, reports);
    }, QUEUE_KEY, options.storage);
    this.#now = options.now ?? Date.now;
    this.#intervalMs = options.intervalMs ?? 10_000;
  }

  /** The title playing, if any. */
  get current(): PlayableTitle | undefined {
    const title = this.#title;
    return title && ('movieId' in title ? { movieId: title.movieId.value } : { episodeId: title.episodeId.value });
  }

  /**
   * Playback starts or goes on at `positionMs`. Another title than the
   * current one ends the current one first. Starting reports nothing: a
   * start that fails must not look like a place.
   */
  play(title: PlayableTitle, positionMs: number): void {
    const typed = typedTitle(title);
    const position = positionOf(positionMs);
    if (JSON.stringify(typed) !== JSON.stringify(this.#title)) {
      this.end();
      this.#title = typed;
      this.#reportedMs = position;
    }
    this.#positionMs = position;
  }

  /** The player's time moved: reported when it is `intervalMs` (10 s) or more from the last position reported. */
  timeUpdate(positionMs: number): void {
    this.#positionMs = positionOf(positionMs);
    if (this.#title && Math.abs(this.#positionMs - this.#reportedMs) >= this.#intervalMs) this.#report();
  }

  /** Playback paused, or the page is going away: the position is reported now (and whatever waits is sent). */
  pause(positionMs: number): void {
    this.#moved(positionMs);
  }

  /** The viewer jumped to `positionMs`: reported now. A jump back near the start is not a restart (see `restart`). */
  seek(positionMs: number): void {
    this.#moved(positionMs);
  }

  /**
   * The viewer deliberately started over: reports the position (0 by
   * default) with `restart: true`, so it replaces the resume point though it
   * is under 5 % of the title (a plain report there never does: a player
   * that fails to start, or reports 0, must not lose a place).
   */
  restart(positionMs = 0): void {
    this.#positionMs = positionOf(positionMs);
    if (this.#title) this.#report(true);
  }

  /** The title ended, or the viewer left it: the position (the last one seen when not given) is reported, and nothing plays. */
  end(positionMs?: number): void {
    this.#moved(positionMs ?? this.#positionMs);
    this.#title = undefined;
  }

  /**
   * Sends every queued report, 50 a request; resolves when the queue is
   * empty or a request failed (those reports stay queued for the next flush).
   */
  flush(): Promise<void> {
    return this.#queue.flush();
  }

  /** The reports waiting to be sent. */
  pending(): Promise<ProgressReport[]> {
    return this.#queue.read();
  }

  /** Reports a position unless it is the one last reported (then sends what waits). */
  #moved(positionMs: number): void {
    this.#positionMs = positionOf(positionMs);
    if (this.#title && this.#positionMs !== this.#reportedMs) this.#report();
    else void this.flush();
  }

  #report(restart?: boolean): void {
    // Strictly later than the report before: the server ignores a title's repeated reportedAt, and two events in one
    // millisecond (a seek, then a pause) must both count, in their order.
    this.#reportedAt = Math.max(this.#now(), this.#reportedAt + 1);
    this.#reportedMs = this.#positionMs;
    this.#queue.add({ ...this.#title!, positionMs: this.#positionMs, reportedAt: new Date(this.#reportedAt).toISOString(), ...(restart && { restart }) });
  }
}
