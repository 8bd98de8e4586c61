import type { TokenStorage } from './auth/storage.ts';
import { newIdempotencyKey } from './http.ts';
import { ReportQueue } from './report-queue.ts';
import type { Play, PlayContext } from './types.ts';
import type { PlayResult } from './library.ts';

/** A play counts when it lasted this long, or half of a song shorter than twice it (contract section 13). */
const COUNTED_MS = 30_000;
/** Where the queue of unreported plays is kept in the storage. */
const QUEUE_KEY = 'maqam:plays';

/**
 * How a PlayReporter keeps and sends plays.
 *
 * @example
 * const reporter = maqam.playReporter({ storage: localStorageTokens(), onReported: (results) => refreshRecentlyPlayed() });
 */
export interface PlayReporterOptions {
  /** Where plays wait while offline (survives a reload when it is localStorage); in memory by default. Same shape as the token storage. */
  storage?: TokenStorage | undefined;
  /** The clock (tests move it); Date.now by default. */
  now?: (() => number) | undefined;
  /** Told what each report sent answered. */
  onReported?: ((results: Map<string, PlayResult>) => void) | undefined;
}

/**
 * What `end()` tells of the play that ended.
 *
 * @example
 * const ended: EndedPlay | undefined = reporter.end();
 * if (ended?.counted) recentlyPlayed.unshift(ended.songId);
 */
export interface EndedPlay {
  readonly playId: string;
  readonly songId: string;
  readonly msPlayed: number;
  /** Whether it counts by the API's rule (the server decides the same way). */
  readonly counted: boolean;
}

/** The reporter's transport: `history.report`, whose retries are safe because of playId. */
type Report = (plays: readonly Play[]) => Promise<Map<string, PlayResult>>;

/** A random playId (32 hex digits, within the API's 64 of [A-Za-z0-9._-]). */
const newPlayId = newIdempotencyKey;

/**
 * Follows an app's player and reports its plays: call `start` when a song
 * starts, `pause`/`resume` around pauses, `seek` when the position jumps, and
 * `end` when it ends or another starts. It measures the time actually
 * played, gives each play its own playId, and queues the play; `flush`
 * (called after each `end`) sends the queue in reports of up to 50. A report
 * that fails (offline) stays queued and is sent with the next flush; a report
 * sent twice is recorded once, because of its playIds.
 *
 * @example
 * const reporter = maqam.playReporter({ storage: localStorageTokens() });
 * audio.onplay = () => (reporter.current ? reporter.resume() : reporter.start(song.id.value, { durationMs: song.durationMs, context: { albumId } }));
 * audio.onpause = () => reporter.pause();
 * audio.onended = () => reporter.end();
 * addEventListener('online', () => reporter.flush());
 */
export class PlayReporter {
  readonly #queue: ReportQueue<Play>;
  readonly #now: () => number;
  #playing: { playId: string; songId: string; durationMs: number; context: PlayContext | undefined; startedAt: number; playedMs: number; since: number | undefined } | undefined;

  constructor(report: Report, options: PlayReporterOptions = {}) {
    this.#queue = new ReportQueue(async (plays) => {
      const results = await report(plays);
      options.onReported?.(results);
    }, QUEUE_KEY, options.storage, typedIds);
    this.#now = options.now ?? Date.now;
  }

  /** The play in progress, if any. */
  get current(): { readonly playId: string; readonly songId: string } | undefined {
    return this.#playing && { playId: this.#playing.playId, songId: this.#playing.songId };
  }

  /** A song starts playing (the play before it, if any, ends first). */
  start(songId: string, options: { durationMs: number; context?: PlayContext | undefined }): string {
    if (typeof songId !== 'string' || songId === '') throw new TypeError('PlayReporter: songId must be a non-empty string');
    if (!(options.durationMs >= 0)) throw new TypeError('PlayReporter: durationMs must be a number of milliseconds');
    this.end();
    const now = this.#now();
    this.#playing = { playId: newPlayId(), songId, durationMs: options.durationMs, context: options.context, startedAt: now, playedMs: 0, since: now };
    return this.#playing.playId;
  }

  /** Playback paused: the time until `resume` does not count. */
  pause(): void {
    const playing = this.#playing;
    if (playing?.since === undefined) return;
    playing.playedMs += this.#now() - playing.since;
    playing.since = undefined;
  }

  /** Playback goes on after a pause. */
  resume(): void {
    if (this.#playing && this.#playing.since === undefined) this.#playing.since = this.#now();
  }

  /** The position jumped: what plays from here adds to the same play (only time listened counts, not the distance jumped). */
  seek(): void {
    // Time is measured by the clock while playing, so a jump adds nothing by itself: nothing to do but keep playing.
  }

  /** The play ends (finished, skipped, or replaced): it is queued and a flush begins. */
  end(): EndedPlay | undefined {
    const playing = this.#playing;
    if (playing === undefined) return undefined;
    this.pause();
    this.#playing = undefined;
    const msPlayed = Math.min(Math.round(playing.playedMs), 86_400_000);
    const play: Play = {
      playId: playing.playId,
      songId: { value: playing.songId },
      startedAt: new Date(playing.startedAt).toISOString(),
      msPlayed,
      ...(playing.context ? { context: playing.context } : {}),
    };
    this.#queue.add(play);
    const counted = msPlayed >= COUNTED_MS || (playing.durationMs < 2 * COUNTED_MS && msPlayed * 2 >= playing.durationMs);
    return { playId: play.playId, songId: playing.songId, msPlayed, counted };
  }

  /**
   * Sends every queued play, 50 a report; resolves when the queue is empty
   * or a report failed (those plays stay queued for the next flush). One
   * flush at a time: a call during one waits for it.
   */
  flush(): Promise<void> {
    return this.#queue.flush();
  }

  /** The plays waiting to be reported. */
  pending(): Promise<Play[]> {
    return this.#queue.read();
  }
}

/**
 * A queued play with its ids typed (`{ value }`), as the API takes them: a
 * play queued by an earlier version of this SDK kept bare strings.
 */
function typedIds(stored: Play): Play {
  const play = stored as unknown as { songId: unknown; context?: Record<string, unknown> };
  const typed = (id: unknown) => (typeof id === 'string' ? { value: id } : id);
  const context = play.context && Object.fromEntries(Object.entries(play.context).map(([name, value]) => [name, name === 'searchQuery' ? value : typed(value)]));
  return { ...stored, songId: typed(play.songId), ...(context && { context }) } as Play;
}
