import { Worker } from 'node:worker_threads';
import { ImportBatch, type ImportBatchData, type LineError } from './import.ts';

/**
 * An NDJSON file's import batches, read on a thread of its own
 * (import-reader-worker.ts): while the importing thread writes one batch, the
 * reader parses and checks the next one's lines and builds its rows and song
 * templates. That work was about a sixth of the importing thread's time (a
 * CPU profile of a 700,000-line import: parsing and checking 5%, building
 * rows 6%, templates 4%); receiving a built batch costs the writer a
 * structured clone instead.
 *
 * The reader builds one batch ahead and sends it when asked, so at most two
 * batches are in memory: the one being written and the next.
 */
export interface ReadBatch {
  /** The batch's rows; null when a line of it was bad (then nothing of it is written). */
  readonly batch: ImportBatch | null;
  /** Its bad lines. */
  readonly errors: readonly LineError[];
  /** How far the reader had got in the file when the batch was complete. */
  readonly bytesRead: number;
  readonly linesRead: number;
}

/** What the reader thread is given. */
export interface ReaderJob {
  readonly path: string;
  readonly batchSize: number;
}

/** What it sends, one message each time it is asked. */
export type ReaderMessage =
  | { readonly kind: 'batch'; readonly batch: ImportBatchData | null; readonly errors: LineError[]; readonly bytesRead: number; readonly linesRead: number }
  | { readonly kind: 'end' }
  | { readonly kind: 'failed'; readonly message: string; readonly code?: string };

export async function* readImportBatches(path: string, batchSize: number): AsyncGenerator<ReadBatch> {
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
