// bench/batch-get/body-reader.ts: the Batch* body reader (http/batch-body.ts) on a hundred bodies of the
// fresh Zipf stream, each read 200 times, against JSON.parse of the same bodies' UTF-8 text (where the
// general path starts, before ajv and the renaming), in rounds by bench/lib/compare.ts: A is JSON.parse,
// A again JSON.parse once more, B the reader. Run `npm run bench:batch-get` once first (it writes the
// stream; BENCH_SONGS as it was run).
//
//   node bench/batch-get/body-reader.ts      (BENCH_ROUNDS, default 7)
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { BatchGetSongsRequest } from '@maqam/contract';
import { batchBodyReader } from '../../packages/server/src/http/batch-body.ts';
import { alternate, printComparison, type Side } from '../lib/compare.ts';

const DATA = join(resolve(import.meta.dirname, '../..'), 'bench/.data');
const SONGS = Number(process.env.BENCH_SONGS ?? 1_000_000);
const bodies = readFileSync(join(DATA, `fresh-zipf-${SONGS}.txt`), 'utf8').split('\n').filter(Boolean).slice(0, 100).map((line) => Buffer.from(line));
const read = batchBodyReader(BatchGetSongsRequest);
const READS = 200;
let sink = 0;

/** A way of reading a body as a side: microseconds a body over READS passes of the hundred. */
function way(label: string, each: (body: Buffer) => number): Side {
  const time = () => {
    const start = process.hrtime.bigint();
    for (let pass = 0; pass < READS; pass++) for (const body of bodies) sink += each(body);
    return Number(process.hrtime.bigint() - start) / 1000 / (READS * bodies.length);
  };
  return { label, warmUp: () => void time(), measure: () => ({ us: time() }) };
}

const jsonParse = (body: Buffer) => (JSON.parse(body.toString('utf8')) as { songIdList: unknown[] }).songIdList.length;
const comparison = await alternate({
  a: way('JSON.parse', jsonParse),
  aAgain: way('JSON.parse', jsonParse),
  b: way('the body reader', (body) => read(body)!.ids.length),
  rounds: Number(process.env.BENCH_ROUNDS ?? 7),
  onMeasured: () => {},
});
printComparison(comparison, [{ key: 'us', label: 'us a body', digits: 2 }], `${bodies.length} bodies of 100 ids, each read ${READS} times a round`);
if (sink === 0) throw new Error('nothing read');
