// What plays, and what plays next: the songs of an album, an artist's top
// tracks, a playlist or a search, in their order or shuffled. A queue is a
// value: each step answers a new one, which the store keeps (and a tab keeps
// across a reload in sessionStorage, in this same shape).

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

export const EMPTY_QUEUE: QueueState<never> = { songs: [], order: [], at: -1, shuffled: false };

/** A uniform shuffle (Fisher-Yates) of `items`, with `random` in [0, 1). */
function shuffle<T>(items: T[], random: () => number): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}

/** Plays `songs` from the one at `index`: the rest in order, or shuffled around it. */
export function startQueue<T extends Queued>(songs: readonly T[], index: number, shuffled = false, random: () => number = Math.random): QueueState<T> {
  const queue: QueueState<T> = { songs: [...songs], order: songs.map((_, i) => i), at: Math.max(0, Math.min(index, songs.length - 1)), shuffled: false };
  return shuffled ? withShuffle(queue, true, random) : queue;
}

export function currentOf<T>(queue: QueueState<T>): T | undefined {
  const position = queue.order[queue.at];
  return position === undefined ? undefined : queue.songs[position];
}

/** Every song, in play order, and the place of the current one. */
export function playOrder<T>(queue: QueueState<T>): { songs: T[]; at: number } {
  return { songs: queue.order.map((position) => queue.songs[position]!), at: queue.at };
}

export const hasNext = (queue: QueueState<unknown>) => queue.at + 1 < queue.order.length;
export const hasPrevious = (queue: QueueState<unknown>) => queue.at > 0;

/** The queue on the song at `place` of the play order; undefined past either end (the queue stays where it is). */
export function jump<T>(queue: QueueState<T>, place: number): QueueState<T> | undefined {
  if (place < 0 || place >= queue.order.length) return undefined;
  return { ...queue, at: place };
}

/**
 * Shuffles what is still to play (the song playing stays, and what has
 * played stays behind it), or puts it back in the given order after the
 * song playing.
 */
export function withShuffle<T>(queue: QueueState<T>, shuffled: boolean, random: () => number = Math.random): QueueState<T> {
  if (shuffled === queue.shuffled || queue.order.length === 0) return queue;
  if (!shuffled) return { ...queue, order: queue.songs.map((_, i) => i), at: queue.order[queue.at]!, shuffled };
  const played = queue.order.slice(0, queue.at + 1);
  return { ...queue, order: [...played, ...shuffle(queue.order.slice(queue.at + 1), random)], shuffled };
}

/** A queue as JSON.stringify wrote it; undefined when it does not hold together. */
export function restoreQueue<T>(saved: unknown): QueueState<T> | undefined {
  const { songs, order, at, shuffled } = (saved ?? {}) as Partial<QueueState<T>>;
  const valid = Array.isArray(songs) && Array.isArray(order) && order.length === songs.length &&
    [...order].sort((a, b) => a - b).every((position, i) => position === i) && Number.isInteger(at) && at! >= 0 && at! < order.length;
  return valid ? { songs: [...songs], order: [...order], at: at!, shuffled: shuffled === true } : undefined;
}
