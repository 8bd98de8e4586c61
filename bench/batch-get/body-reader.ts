// bench/batch-get/body-reader.ts: the Batch* body reader (http/batch-body.ts) on a hundred bodies of the
// fresh Zipf stream, each read 200 times, against JSON.parse of the same bodies' UTF-8 text (where the
// general path starts, before ajv and the renaming). Run `npm run bench:batch-get` once first (it writes
// the stream).
//
//   node bench/batch-get/body-reader.ts
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { BatchGetSongsRequest } from '@maqam/contract';
import { batchBodyReader } from '../../packages/server/src/http/batch-body.ts';

const DATA = join(resolve(import.meta.dirname, '../..'), 'bench/.data');
const bodies = readFileSync(join(DATA, 'fresh-zipf-1000000.txt'), 'utf8').split('\n').filter(Boolean).slice(0, 100).map((line) => Buffer.from(line));
const read = batchBodyReader(BatchGetSongsRequest);
const ROUNDS = 200;
let sink = 0;

function time(label: string, each: (body: Buffer) => number): number {
  const start = process.hrtime.bigint();
  for (let round = 0; round < ROUNDS; round++) for (const body of bodies) sink += each(body);
  return Number(process.hrtime.bigint() - start) / 1000 / (ROUNDS * bodies.length);
}

for (let run = 0; run < 5; run++) {
  const reader = time('reader', (body) => read(body)!.ids.length);
  const parsed = time('JSON.parse', (body) => (JSON.parse(body.toString('utf8')) as { songIdList: unknown[] }).songIdList.length);
  console.log(`run ${run + 1}: the reader ${reader.toFixed(2)} us a body, JSON.parse alone ${parsed.toFixed(2)}`);
}
if (sink === 0) throw new Error('nothing read');
