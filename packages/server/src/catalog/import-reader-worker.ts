// The thread of an import's reader (import-reader.ts): reads an NDJSON file, parses and checks each line, and builds
// each batch's rows and song templates, one batch ahead of the thread that writes them.
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { parentPort, workerData } from 'node:worker_threads';
import type { ImportRecord } from '@maqam/contract';
import { ImportBatch, parseImportLine, type LineError } from './import.ts';
import type { ReaderJob, ReaderMessage } from './import-reader.ts';

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
  let batch = new ImportBatch();
  let batchErrors: LineError[] = [];
  /** Records the batch has read, good or bad. */
  let batchRecords = 0;
  let lineNumber = 0;
  // Opened before the loop with no await in between: readline drops the lines it reads before anyone iterates.
  const stream = createReadStream(path);
  const lines = createInterface({ input: stream, crlfDelay: Infinity });

  const flush = async () => {
    // A batch with a bad line is not written: its rows are not sent.
    const good = batchErrors.length === 0 && batch.size > 0;
    if (good) batch.buildTemplates();
    await send({ kind: 'batch', batch: good ? batch.toData() : null, errors: batchErrors, bytesRead: stream.bytesRead, linesRead: lineNumber });
    batch = new ImportBatch();
    batchErrors = [];
    batchRecords = 0;
  };

  for await (const text of lines) {
    lineNumber++;
    if (text.trim() === '') continue;
    batchRecords++;
    let record: ImportRecord | undefined;
    try {
      record = parseImportLine(text);
    } catch (error) {
      batchErrors.push({ line: lineNumber, message: (error as Error).message });
    }
    // A batch with a bad line is not written: the rows of its other lines need not be built.
    if (record !== undefined && batchErrors.length === 0) batch.add(lineNumber, record);
    if (batchRecords >= batchSize) await flush();
  }
  await flush();
  await send({ kind: 'end' });
}

read().catch(async (error: NodeJS.ErrnoException) => {
  await send({ kind: 'failed', message: error.message, ...(error.code ? { code: error.code } : {}) });
});
