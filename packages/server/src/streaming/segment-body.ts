import type { IncomingMessage } from 'node:http';
import { open, type FileHandle } from 'node:fs/promises';
import { Readable, type Writable } from 'node:stream';
import { send, type SendOptions, type SendResult } from '@fastify/send';
import type { BufferPool } from '../catalog/buffer-pool.ts';

/**
 * A segment's bytes, sent without a new buffer per chunk.
 *
 * @fastify/send's own body is fs.createReadStream, which allocates a new 64 KiB buffer outside V8's heap for every
 * chunk. That external memory made V8 run a full collection every 55 to 60 MB sent, each one marking the whole
 * server's heap: serving a 2.1 MB video segment cost 2.2 to 2.4 times a bare node:http server's CPU (issue 54,
 * bench/video/README.md). Here the bytes are read into blocks lent by a per-process BufferPool and a block goes back
 * to it only once the socket's write callback says the socket is done with it, so the same few blocks carry every
 * segment.
 */

/** As fs.createReadStream's chunk. */
const CHUNK_BYTES = 64 * 1024;
/** Idle blocks an app keeps between requests (app.ts): 32 responses' two blocks each; what more concurrent responses hold is dropped when given back. */
export const SEGMENT_BLOCKS_BYTES = 4 * 1024 * 1024;

/** @fastify/send's answer for a segment file, its body sent through pooled blocks (createSegmentSender). */
export type SegmentSender = (request: IncomingMessage, path: string, options: SendOptions) => Promise<SendResult>;

/**
 * @fastify/send's answer for a segment file (status, Range, ETag, conditional requests and their headers are all
 * its decisions), with the body of a GET's 200 or 206 read through blocks lent by `blocks` in place of its read stream.
 */
export function createSegmentSender(blocks: BufferPool): SegmentSender {
  return (request, path, options) => sendSegment(blocks, request, path, options);
}

async function sendSegment(blocks: BufferPool, request: IncomingMessage, path: string, options: SendOptions): Promise<SendResult> {
  // Asked as a HEAD it answers the same status and headers and opens no read stream; send reads only these two fields.
  const answer = await send({ method: 'HEAD', headers: request.headers } as IncomingMessage, path, options);
  if (answer.type !== 'file' || request.method === 'HEAD' || (answer.statusCode !== 200 && answer.statusCode !== 206)) return answer;
  const length = Number(answer.headers['Content-Length']);
  if (length === 0) return answer;
  const start = answer.statusCode === 206 ? Number(/^bytes (\d+)-/.exec(answer.headers['Content-Range']!)![1]) : 0;
  return { ...answer, stream: new SegmentBody(blocks, answer.metadata.path, start, length) };
}

/**
 * `length` bytes of a file from `start`, written by `pipe()` (Fastify sends a stream payload with `payload.pipe(res)`
 * once the headers are set, lib/reply.js sendStream) with each write's callback: one block is being read while the
 * other is written, and the next write waits for the last one's callback, which is also the backpressure. The file
 * is closed once read, on an error, and when the response closes early (Fastify then destroys its payload). Once
 * every byte was handed to the response it ends the response and itself ('end'), as pipe() does.
 */
class SegmentBody extends Readable {
  readonly #blocks: BufferPool;
  readonly #path: string;
  readonly #start: number;
  readonly #length: number;
  /** Settles the write under way: true when its callback came without an error, false when this body is destroyed first. */
  #settle: ((written: boolean) => void) | undefined;

  constructor(blocks: BufferPool, path: string, start: number, length: number) {
    super();
    this.#blocks = blocks;
    this.#path = path;
    this.#start = start;
    this.#length = length;
  }

  override pipe<T extends NodeJS.WritableStream>(destination: T, options?: { end?: boolean }): T {
    void this.#pump(destination as unknown as Writable, options?.end !== false);
    return destination;
  }

  override _read(): void {
    this.destroy(new Error('a segment body is only written through pipe()'));
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    // A write whose callback may never come (the socket is gone) does not hold the file open.
    this.#settle?.(false);
    callback(error);
  }

  async #pump(destination: Writable, end: boolean): Promise<void> {
    let file: FileHandle | undefined;
    try {
      file = await open(this.#path, 'r');
      let position = this.#start;
      let remaining = this.#length;
      let previous: Promise<boolean> = Promise.resolve(true);
      while (remaining > 0 && !this.destroyed) {
        const block = this.#blocks.take(Math.min(CHUNK_BYTES, remaining));
        let bytesRead: number;
        try {
          ({ bytesRead } = await file.read(block, 0, block.length, position));
        } catch (error) {
          this.#blocks.give(block);
          throw error;
        }
        if (!(await previous) || this.destroyed) {
          this.#blocks.give(block);
          return;
        }
        if (bytesRead === 0) {
          this.#blocks.give(block);
          // Fewer bytes than the Content-Length sent: the response is cut (Fastify destroys it), never padded.
          throw new Error(`${this.#path} ended before the ${this.#length} bytes from ${this.#start} its answer announced`);
        }
        previous = this.#write(destination, block, bytesRead);
        position += bytesRead;
        remaining -= bytesRead;
      }
      await file.close();
      file = undefined;
      if ((await previous) && !this.destroyed) {
        // As pipe() does: the response ends on this body's 'end' (unless asked not to, as Fastify does for trailers),
        // so Fastify sees the body end before the response finishes, not a body closed early.
        if (end) this.once('end', () => destination.end());
        this.push(null);
        this.resume();
      }
    } catch (error) {
      this.destroy(error as Error);
    } finally {
      await file?.close().catch(() => undefined);
    }
  }

  #write(destination: Writable, block: Buffer, bytes: number): Promise<boolean> {
    return new Promise((resolve) => {
      this.#settle = resolve;
      destination.write(bytes === block.length ? block : block.subarray(0, bytes), (error) => {
        // The socket has written the bytes, or will never write them: either way it no longer reads the block.
        this.#blocks.give(block);
        resolve(error == null);
      });
    });
  }
}
