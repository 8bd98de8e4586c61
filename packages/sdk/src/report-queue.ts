// The queue both reporters (play-reporter.ts, watch-reporter.ts) keep their
// reports in until the API has them: in the app's storage or in memory, sent
// 50 a report, kept after a failure, one flush at a time.
import type { TokenStorage } from './auth/storage.ts';
import { InvalidRequestError } from './errors.ts';

/** The API takes at most this many plays, or progress reports, a request. */
const PER_REPORT = 50;

/**
 * Reports waiting to be sent. `send` reports one batch (and tells the app);
 * when it throws, the batch stays queued for the next flush, which is safe
 * only because each report says what it is (a playId; a title and the time
 * its position was seen), so the server records a report sent twice once.
 */
export class ReportQueue<Item> {
  readonly #send: (batch: Item[]) => Promise<unknown>;
  readonly #key: string;
  readonly #storage: TokenStorage | undefined;
  readonly #revive: (stored: Item) => Item;
  /** The queue, when there is no storage. */
  #memory: Item[] = [];
  #flushing: Promise<void> | undefined;
  /** The flush that follows the one under way. */
  #next: Promise<void> | undefined;
  /** The queue's reads and writes, one after another (the storage may be asynchronous: two at once would lose a report). */
  #turn: Promise<unknown> = Promise.resolve();

  constructor(send: (batch: Item[]) => Promise<unknown>, key: string, storage: TokenStorage | undefined, revive: (stored: Item) => Item = (item) => item) {
    this.#send = send;
    this.#key = key;
    this.#storage = storage;
    this.#revive = revive;
  }

  /** Queues a report and begins a flush; never throws (what failed stays queued). */
  add(item: Item): void {
    void this.#inTurn(async () => this.#save([...(await this.read()), item])).then(() => this.flush()).catch(() => {});
  }

  /**
   * Sends every queued report, 50 a request; resolves when the queue is
   * empty or a request failed (its reports stay queued). One flush at a
   * time: a call during one is answered by one more after it (one, however
   * many calls), which sends what was queued before the call.
   */
  flush(): Promise<void> {
    if (this.#flushing === undefined) {
      return (this.#flushing = this.#flushQueue().finally(() => {
        this.#flushing = undefined;
      }));
    }
    return (this.#next ??= this.#flushing.then(() => {
      this.#next = undefined;
      return this.flush();
    }));
  }

  /** The reports waiting to be sent. */
  async read(): Promise<Item[]> {
    if (this.#storage === undefined) return [...this.#memory];
    const stored = await this.#storage.get(this.#key);
    try {
      const items = stored ? (JSON.parse(stored) as unknown) : [];
      return Array.isArray(items) ? items.map(this.#revive) : [];
    } catch {
      return []; // not ours, or damaged: nothing to report from it
    }
  }

  async #save(items: Item[]): Promise<void> {
    if (this.#storage === undefined) this.#memory = items;
    else if (items.length === 0) await this.#storage.remove(this.#key);
    else await this.#storage.set(this.#key, JSON.stringify(items));
  }

  /** Runs `change` on the queue once the changes before it are done. */
  #inTurn<T>(change: () => Promise<T>): Promise<T> {
    const done = this.#turn.then(change, change);
    this.#turn = done.catch(() => {});
    return done;
  }

  async #flushQueue(): Promise<void> {
    for (;;) {
      const batch = (await this.#inTurn(() => this.read())).slice(0, PER_REPORT);
      if (batch.length === 0) return;
      try {
        await this.#send(batch);
      } catch (error) {
        // Refused as malformed, it would be refused again: dropped. Otherwise (offline, signed out, the server
        // busy) kept for the next flush; what each report says of itself makes sending it again harmless.
        if (!(error instanceof InvalidRequestError)) return;
      }
      // Reports queued meanwhile (by this tab or another one sharing the storage) stay; those sent leave, whatever
      // each answered (a refused report would be refused again). A report is known by its JSON text.
      const sent = new Set(batch.map((item) => JSON.stringify(item)));
      await this.#inTurn(async () => this.#save((await this.read()).filter((item) => !sent.has(JSON.stringify(item)))));
    }
  }
}
