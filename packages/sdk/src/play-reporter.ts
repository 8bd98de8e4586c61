import type { TokenStorage } from './auth/storage.ts';
import { InvalidRequestError } from './errors.ts';
import { newIdempotencyKey } from './http.ts';
import type { Play, PlayContext } from './types.ts';
import type { PlayResult } from './library.ts';

/** The API takes at most this many plays a report. */
const PLAYS_PER_REPORT = 50;
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
  /** Told what each flushed report answered. */
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
  readonly #report: Report;
  readonly #storage: TokenStorage | undefined;
  readonly #now: () => number;
  readonly #onReported: ((results: Map<string, PlayResult>) => void) | undefined;
  /** Plays not reported yet, when there is no storage. */
  #memory: Play[] = [];
  #playing: { playId: string; songId: string; durationMs: number; context: PlayContext | undefined; startedAt: number; playedMs: number; since: number | undefined } | undefined;
  #flushing: Promise<void> | undefined;
  /** The queue's reads and writes, one after another (the storage may be asynchronous: two at once would lose a play). */
  #queueTurn: Promise<unknown> = Promise.resolve();

  constructor(report: Report, options: PlayReporterOptions = {}) {
    this.#report = report;
    this.#storage = options.storage;
    this.#now = options.now ?? Date.now;
    this.#onReported = options.onReported;
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
    void this.#enqueue(play).then(() => this.flush()).catch(() => {});
    const counted = msPlayed >= COUNTED_MS || (playing.durationMs < 2 * COUNTED_MS && msPlayed * 2 >= playing.durationMs);
    return { playId: play.playId, songId: playing.songId, msPlayed, counted };
  }

  /**
   * Sends every queued play, 50 a report; resolves when the queue is empty
   * or a report failed (those plays stay queued for the next flush). One
   * flush at a time: a call during one waits for it.
   */
  flush(): Promise<void> {
    this.#flushing ??= this.#flushQueue().finally(() => {
      this.#flushing = undefined;
    });
    return this.#flushing;
  }

  /** The plays waiting to be reported. */
  pending(): Promise<Play[]> {
    return this.#read();
  }

  async #read(): Promise<Play[]> {
    if (this.#storage === undefined) return [...this.#memory];
    const stored = await this.#storage.get(QUEUE_KEY);
    try {
      const plays = stored ? (JSON.parse(stored) as unknown) : [];
      return Array.isArray(plays) ? plays.map(typedIds) : [];
    } catch {
      return []; // not ours, or damaged: nothing to report from it
    }
  }

  async #save(plays: Play[]): Promise<void> {
    if (this.#storage === undefined) this.#memory = plays;
    else if (plays.length === 0) await this.#storage.remove(QUEUE_KEY);
    else await this.#storage.set(QUEUE_KEY, JSON.stringify(plays));
  }

  /** Runs `change` on the queue once the changes before it are done. */
  #inTurn<T>(change: () => Promise<T>): Promise<T> {
    const done = this.#queueTurn.then(change, change);
    this.#queueTurn = done.catch(() => {});
    return done;
  }

  #enqueue(play: Play): Promise<void> {
    return this.#inTurn(async () => this.#save([...(await this.#read()), play]));
  }

  async #flushQueue(): Promise<void> {
    for (;;) {
      const queued = await this.#inTurn(() => this.#read());
      if (queued.length === 0) return;
      const batch = queued.slice(0, PLAYS_PER_REPORT);
      let results: Map<string, PlayResult>;
      try {
        results = await this.#report(batch);
      } catch (error) {
        // Refused as malformed, it would be refused again: dropped. Otherwise (offline, signed out, the server
        // busy) kept for the next flush; their playIds make sending them again harmless.
        if (!(error instanceof InvalidRequestError)) return;
        results = new Map();
      }
      // Plays queued meanwhile stay; those reported leave, whatever each answered (a refused play would be refused again).
      const sent = new Set(batch.map((play) => play.playId));
      await this.#inTurn(async () => this.#save((await this.#read()).filter((play) => !sent.has(play.playId))));
      this.#onReported?.(results);
    }
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
