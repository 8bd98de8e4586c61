// What plays, and what plays next: the songs of an album, an artist's top
// tracks, a playlist or a search, in their order or shuffled. It outlives
// the page that started it (the app keeps one while you browse, and a tab
// keeps it across a reload in sessionStorage).

/** What a queue needs of a song: an id to tell it apart. */
export interface Queued {
  readonly id: { readonly value: string };
}

export interface QueueState<T> {
  /** The songs in the order they were given. */
  readonly songs: readonly T[];
  /** The order they play in: positions in `songs` (shuffled or not). */
  readonly order: readonly number[];
  /** The place in `order` of the song playing. */
  readonly at: number;
  readonly shuffled: boolean;
}

/** A uniform shuffle (Fisher-Yates) of `items`, with `random` in [0, 1). */
function shuffle<T>(items: T[], random: () => number): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}

export class PlayQueue<T extends Queued> {
  #songs: readonly T[] = [];
  #order: number[] = [];
  #at = -1;
  #shuffled = false;
  readonly #random: () => number;

  constructor(random: () => number = Math.random) {
    this.#random = random;
  }

  /** Plays `songs` from the one at `index`: the rest in order, or shuffled around it. */
  start(songs: readonly T[], index: number, shuffled = false): T | undefined {
    this.#songs = [...songs];
    this.#order = songs.map((_, i) => i);
    this.#at = Math.max(0, Math.min(index, songs.length - 1));
    this.#shuffled = false;
    if (shuffled) this.setShuffled(true);
    return this.current;
  }

  get current(): T | undefined {
    const position = this.#order[this.#at];
    return position === undefined ? undefined : this.#songs[position];
  }

  /** The songs still to play after the current one, in the order they will. */
  get upcoming(): T[] {
    return this.#order.slice(this.#at + 1).map((position) => this.#songs[position]!);
  }

  /** Every song, in play order, and the place of the current one. */
  get playOrder(): { songs: T[]; at: number } {
    return { songs: this.#order.map((position) => this.#songs[position]!), at: this.#at };
  }

  get shuffled(): boolean {
    return this.#shuffled;
  }

  get hasNext(): boolean {
    return this.#at + 1 < this.#order.length;
  }

  get hasPrevious(): boolean {
    return this.#at > 0;
  }

  /** The next song, now current; undefined at the end (the queue stays on its last). */
  next(): T | undefined {
    if (!this.hasNext) return undefined;
    this.#at++;
    return this.current;
  }

  previous(): T | undefined {
    if (!this.hasPrevious) return undefined;
    this.#at--;
    return this.current;
  }

  /** Jumps to the song at `place` of the play order. */
  jump(place: number): T | undefined {
    if (place < 0 || place >= this.#order.length) return undefined;
    this.#at = place;
    return this.current;
  }

  /**
   * Shuffles what is still to play (the song playing stays, and what has
   * played stays behind it), or puts it back in the given order after the
   * song playing.
   */
  setShuffled(shuffled: boolean): void {
    if (shuffled === this.#shuffled || this.#order.length === 0) return;
    this.#shuffled = shuffled;
    const playing = this.#order[this.#at]!;
    if (shuffled) {
      const played = this.#order.slice(0, this.#at + 1);
      this.#order = [...played, ...shuffle(this.#order.slice(this.#at + 1), this.#random)];
    } else {
      this.#order = this.#songs.map((_, i) => i);
      this.#at = playing;
    }
  }

  toJSON(): QueueState<T> {
    return { songs: this.#songs, order: this.#order, at: this.#at, shuffled: this.#shuffled };
  }

  /** A queue as `toJSON` wrote it; nothing when it does not hold together. */
  restore(state: QueueState<T>): void {
    const { songs, order, at, shuffled } = state;
    const valid = Array.isArray(songs) && Array.isArray(order) && order.length === songs.length &&
      [...order].sort((a, b) => a - b).every((position, i) => position === i) && Number.isInteger(at) && at >= 0 && at < order.length;
    if (!valid) return;
    this.#songs = [...songs];
    this.#order = [...order];
    this.#at = at;
    this.#shuffled = shuffled === true;
  }
}
