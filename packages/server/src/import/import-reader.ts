import { createReadStream, statSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { Worker } from 'node:worker_threads';
import type { ImportRecord } from '@maqam/contract';
import { ImportBatch, InvalidRecordError, parseImportLine, type ImportBatchData } from './import-batch.ts';

/**
 * An NDJSON file's import batches: each line parsed and checked, each
 * batch's rows built (and, on the reader's thread, its song templates).
 *
 * A large file is read on a thread of its own (import-reader-worker.ts):
 * while the importing thread writes one batch, the reader builds the next.
 * That work was about a sixth of the importing thread's time (a CPU profile
 * of a 700,000-line import: parsing and checking 5%, building rows 6%,
 * templates 4%); receiving a built batch costs the writer a structured clone
 * instead. The reader builds one batch ahead and sends it when asked, so at
 * most two batches are in memory: the one being written and the next.
 *
 * Starting the thread costs about 0.4 s (it loads the importer's modules and
 * compiles the record schemas again), so a smaller file is read on the
 * importing thread, as one of a few thousand lines always was.
 */
export interface ReadBatch {
  /**
   * The batch's rows, and in its `errors` the problems of its bad lines (then
   * nothing of it is written, but its references are checked); null when
   * the batch had no line.
   */
  readonly batch: ImportBatch | null;
  /** How far the reader had got in the file when the batch was complete. */
  readonly bytesRead: number;
  readonly linesRead: number;
}

/** Files from this size up are read on a thread of their own: about 50,000 lines of the demo catalog. */
export const READER_THREAD_BYTES = 16 * 1024 * 1024;

/** What the reader thread is given. */
export interface ReaderJob {
  readonly path: string;
  readonly batchSize: number;
}

/** What it sends, one message each time it is asked. */
export type ReaderMessage =
  | { readonly kind: 'batch'; readonly batch: ImportBatchData | null; readonly bytesRead: number; readonly linesRead: number }
  | { readonly kind: 'end' }
  | { readonly kind: 'failed'; readonly message: string; readonly code?: string };

/** The file's batches, read on a thread of its own when `thread` says so (by default, from READER_THREAD_BYTES up). */
export function readImportBatches(path: string, batchSize: number, thread = statSync(path).size >= READER_THREAD_BYTES): AsyncGenerator<ReadBatch> {
  return thread ? readOnThread(path, batchSize) : readHere(path, batchSize);
}

/** Reads the file on this thread. */
export async function* readHere(path: string, batchSize: number): AsyncGenerator<ReadBatch> {
  let batch = new ImportBatch();
  /** Records the batch has read, good or bad. */
  let batchRecords = 0;
  let lineNumber = 0;
  // Opened before the loop with no await in between: readline drops the lines it reads before anyone iterates.
  const stream = createReadStream(path);
  const lines = createInterface({ input: stream, crlfDelay: Infinity });

  const complete = (): ReadBatch => {
    // A batch with a bad line is not written, but its rows are passed on: their references are checked in the same pass.
    const read = { batch: batch.size > 0 || batch.errors.length > 0 ? batch : null, bytesRead: stream.bytesRead, linesRead: lineNumber };
    batch = new ImportBatch();
    batchRecords = 0;
    return read;
  };

  for await (const text of lines) {
    lineNumber++;
    if (text.trim() === '') continue;
    batchRecords++;
    let record: ImportRecord | undefined;
    try {
      record = parseImportLine(text);
    } catch (error) {
      if (!(error instanceof InvalidRecordError)) throw error;
      for (const message of error.problems) batch.errors.push({ line: lineNumber, message });
      if (error.value) batch.noteRefused(lineNumber, error.value);
    }
    // Rows of the good lines, even in a batch that will not be written: their references are checked all the same.
    if (record !== undefined) batch.add(lineNumber, record);
    if (batchRecords >= batchSize) yield complete();
  }
  yield complete();
}

/** Reads the file on a thread of its own, one batch ahead. */
async function* readOnThread(path: string, batchSize: number): AsyncGenerator<ReadBatch> {
  const worker = new Worker(new URL('./import-reader-worker.ts', import.meta.url), { workerData: { path, batchSize } satisfies ReaderJob });
  const next = () =>
    new Promise<ReaderMessage>((resolve, reject) => {
      const onMessage = (message: ReaderMessage) => {
        worker.off('error', onError).off('exit', onExit);
        resolve(message);
      };
      const onError = (error: Error) => {
        worker.off('message', onMessage).off('exit', onExit);
        reject(error);
      };
      const onExit = (code: number) => {
        worker.off('message', onMessage).off('error', onError);
        reject(new Error(`the import's reader thread exited (${code})`));
      };
      worker.once('message', onMessage).once('error', onError).once('exit', onExit);
      worker.postMessage('next');
    });
  try {
    for (;;) {
      const message = await next();
      if (message.kind === 'end') return;
      if (message.kind === 'failed') throw Object.assign(new Error(message.message), message.code ? { code: message.code } : {});
      yield { ...message, batch: message.batch === null ? null : ImportBatch.fromData(message.batch) };
    }
  } finally {
    await worker.terminate();
  }
}
