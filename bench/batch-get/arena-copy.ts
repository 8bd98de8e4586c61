// bench/batch-get/arena-copy.ts: what reading a fragment's lines ahead of its copy saves, on its own.
//
// A BatchGetSongs answer of cached songs is a hundred copies of about 620 bytes each, from places
// scattered over the fragment cache's 64 MB arena, so each copy starts on lines no processor cache
// holds. This copies a hundred random fragments of a 64 MB buffer into an answer buffer (after
// writing 8 MB elsewhere, as other requests would between two of them), three ways in the same run:
//   - plain:    one copy after another;
//   - first:    the first byte of every fragment read beforehand, as FragmentCache.findAll did until
//               2026-11-26 (its phase 3);
//   - every:    a byte of every 64 of every fragment read beforehand, as findAll does now.
// The reads of one phase do not depend on one another, so the processor overlaps their misses; inside
// a copy, each line's miss waits on the one before. Compared in rounds by bench/lib/compare.ts: A is
// plain, A again plain once more, and first and every each a B against them.
//
//   node bench/batch-get/arena-copy.ts      (BENCH_ROUNDS, default 6; BENCH_COPIES a side a round, default 3000)
import { alternate, printComparison, type Side } from '../lib/compare.ts';

const ARENA_BYTES = 64 << 20;
const FRAGMENTS = 100;
const FRAGMENT_BYTES = 620;
const COPIES = Number(process.env.BENCH_COPIES ?? 3000);

const arena = Buffer.allocUnsafeSlow(ARENA_BYTES).fill(7);
const answer = Buffer.allocUnsafeSlow(FRAGMENTS * FRAGMENT_BYTES);
const elsewhere = Buffer.allocUnsafeSlow(8 << 20);
const starts = new Int32Array(FRAGMENTS);
let sink = 0;

function copyAll(): number {
  let at = 0;
  for (let i = 0; i < FRAGMENTS; i++) at += arena.copy(answer, at, starts[i]!, starts[i]! + FRAGMENT_BYTES);
  return at;
}
const ways: Record<string, () => number> = {
  plain: copyAll,
  first: () => {
    // Summed in a local, as findAll does: a running total kept outside would be boxed once it outgrew a small integer.
    let read = 0;
    for (let i = 0; i < FRAGMENTS; i++) read += arena[starts[i]!]!;
    sink = (sink + read) | 0;
    return copyAll();
  },
  every: () => {
    let read = 0;
    for (let i = 0; i < FRAGMENTS; i++) {
      const end = starts[i]! + FRAGMENT_BYTES;
      for (let at = starts[i]!; at < end; at += 64) read += arena[at]!;
      read += arena[end - 1]!;
    }
    sink = (sink + read) | 0;
    return copyAll();
  },
};

/** A way as a side: microseconds a hundred copies, over COPIES answers of fresh random fragments. */
function side(label: string, way: () => number): Side {
  const time = () => {
    let nanoseconds = 0;
    for (let copy = 0; copy < COPIES; copy++) {
      for (let i = 0; i < FRAGMENTS; i++) starts[i] = Math.floor(Math.random() * (ARENA_BYTES - FRAGMENT_BYTES));
      elsewhere.fill(copy & 0xff);
      const start = process.hrtime.bigint();
      sink = (sink + way()) | 0;
      nanoseconds += Number(process.hrtime.bigint() - start);
    }
    return nanoseconds / COPIES / 1000;
  };
  return { label, warmUp: () => void time(), measure: () => ({ us: time() }) };
}

const comparison = await alternate({
  a: side('plain', ways.plain!),
  aAgain: side('plain', ways.plain!),
  b: [side('first', ways.first!), side('every', ways.every!)],
  rounds: Number(process.env.BENCH_ROUNDS ?? 6),
  onMeasured: () => {},
});
printComparison(comparison, [{ key: 'us', label: 'us a hundred copies', digits: 1 }], `${FRAGMENTS} fragments of ${FRAGMENT_BYTES} bytes from a ${ARENA_BYTES >> 20} MB arena, ${COPIES} answers a side a round (checksum ${sink % 10})`);
