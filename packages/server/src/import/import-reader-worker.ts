// The thread of an import's reader (import-reader.ts): reads an NDJSON file with readHere, one batch ahead of the
// thread that writes them, and sends each batch when asked.
import { parentPort, workerData } from 'node:worker_threads';
import { readHere, type ReaderJob, type ReaderMessage } from './import-reader.ts';

const { path, batchSize } = workerData as ReaderJob;
const port = parentPort!;

/** Batches the writer asked for and has not been sent yet. */
let asked = 0;
let wake: (() => void) | undefined;
port.on('message', () => {
  asked++;
  wake?.();
});

async function send(message: ReaderMessage): Promise<void> {
  while (asked === 0) await new Promise<void>((resolve) => (wake = resolve));
  asked--;
  port.postMessage(message);
}

async function read(): Promise<void> {
  for await (const { batch, ...rest } of readHere(path, batchSize)) {
    // Here, so the writing thread need not (ImportBatch.templates); on that thread they would only be built earlier.
    // A batch with bad lines is not written: it is sent for its references to be checked.
    if (batch?.errors.length === 0) batch.buildTemplates();
    await send({ kind: 'batch', batch: batch === null ? null : batch.toData(), ...rest });
  }
  await send({ kind: 'end' });
}

read().catch(async (error: NodeJS.ErrnoException) => {
  await send({ kind: 'failed', message: error.message, ...(error.code ? { code: error.code } : {}) });
});
