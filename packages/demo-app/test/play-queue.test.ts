// The demo's queue, as values: the order it plays in, shuffled and not, and what a reload may restore.
import { describe, expect, it } from 'vitest';
import { currentOf, hasNext, hasPrevious, jump, playOrder, restoreQueue, startQueue, withShuffle } from '../src/player/play-queue.ts';

const songs = ['a', 'b', 'c', 'd', 'e'].map((value) => ({ id: { value } }));
const ids = (list: { id: { value: string } }[]) => list.map((song) => song.id.value);
/** A "random" that always answers 0: Fisher-Yates then swaps each place with the first (c d e becomes d e c). */
const first = () => 0;

describe('the play queue', () => {
  it('plays the list in its order from the song chosen, and stops at either end', () => {
    const queue = startQueue(songs, 2);
    expect(currentOf(queue)?.id.value).toBe('c');
    expect([hasPrevious(queue), hasNext(queue)]).toEqual([true, true]);
    const last = jump(queue, 4)!;
    expect(currentOf(last)?.id.value).toBe('e');
    expect(hasNext(last)).toBe(false);
    expect(jump(last, 5)).toBeUndefined();
    expect(jump(queue, -1)).toBeUndefined();
    // A step answers a new queue; the one it came from is unchanged.
    expect(currentOf(queue)?.id.value).toBe('c');
  });

  it('shuffles only what is still to play, and puts it back in order after the song playing', () => {
    const played = jump(startQueue(songs, 0), 1)!;
    const shuffled = withShuffle(played, true, first);
    expect(ids(playOrder(shuffled).songs)).toEqual(['a', 'b', 'd', 'e', 'c']);
    expect(currentOf(shuffled)?.id.value).toBe('b');
    const moved = jump(shuffled, 2)!;
    const ordered = withShuffle(moved, false);
    expect(ids(playOrder(ordered).songs)).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(currentOf(ordered)?.id.value).toBe('d');
    expect(withShuffle(ordered, false)).toBe(ordered);
  });

  it('starts shuffled around the song chosen', () => {
    const queue = startQueue(songs, 3, true, first);
    expect(currentOf(queue)?.id.value).toBe('d');
    expect(ids(playOrder(queue).songs).slice(0, 4)).toEqual(['a', 'b', 'c', 'd']);
    expect(queue.shuffled).toBe(true);
  });

  it('restores what it kept across a reload, and nothing that does not hold together', () => {
    const kept = JSON.parse(JSON.stringify(withShuffle(startQueue(songs, 1), true, first)));
    expect(restoreQueue(kept)).toEqual(kept);
    expect(restoreQueue({ ...kept, order: [0, 0, 1, 2, 3] })).toBeUndefined();
    expect(restoreQueue({ ...kept, at: 5 })).toBeUndefined();
    expect(restoreQueue({ ...kept, songs: songs.slice(1) })).toBeUndefined();
    expect(restoreQueue(null)).toBeUndefined();
  });
});
