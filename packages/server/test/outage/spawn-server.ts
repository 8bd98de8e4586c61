import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { freePort } from '../harness.ts';

const BIN = resolve(import.meta.dirname, '../../../cli/bin/maqam.js');

export interface ServerProcess {
  readonly url: string;
  readonly child: ChildProcess;
  /** What the process wrote to stderr (its warnings and, if it died, why). */
  stderr(): string;
  /** What the process logged (stdout: pino lines at LOG_LEVEL, warn unless set). */
  log(): string;
  alive(): boolean;
  stop(): Promise<number | null>;
}

/** `maqam serve` in its own process, so a crash shows as an exit and not as a failed test worker. */
export async function spawnServer(env: Record<string, string>): Promise<ServerProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, [BIN, 'serve', '--port', String(port)], {
    env: { ...process.env, LOG_LEVEL: 'warn', MAQAM_SECRET: 'x'.repeat(40), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  let log = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    // Bounded: a long drill logs every 503 it answers.
    if (log.length < 1_000_000) log += chunk.toString();
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolveExit) => child.on('exit', (code) => resolveExit(code)));
  const url = `http://127.0.0.1:${port}`;
  if ((await timeToRecover(async () => (await fetch(`${url}/readyz`)).status, 20_000)) === Infinity) {
    child.kill('SIGKILL');
    throw new Error(`maqam serve did not become ready: ${stderr}`);
  }
  return {
    url,
    child,
    stderr: () => stderr,
    log: () => log,
    alive: () => child.exitCode === null && child.signalCode === null,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

export interface Answer {
  readonly phase: string;
  readonly status: number | 'no answer';
  readonly retryAfter: string | null;
  readonly ms: number;
  readonly validBody: boolean;
}

/**
 * Keeps `workers` requests in flight until stopped, labelling each answer
 * with the phase current when it was sent. A request without an answer in
 * `hangMs` counts as 'no answer'.
 */
export function steadyLoad(send: (signal: AbortSignal) => Promise<Response>, options: { workers: number; hangMs: number }) {
  const answers: Answer[] = [];
  let phase = 'start';
  let running = true;
  const worker = async () => {
    while (running) {
      const sentIn = phase;
      const started = performance.now();
      try {
        const res = await send(AbortSignal.timeout(options.hangMs));
        const text = await res.text();
        let validBody = true;
        try {
          const body = JSON.parse(text) as { code?: string; requestId?: string };
          if (res.status !== 200) validBody = typeof body.code === 'string' && typeof body.requestId === 'string';
        } catch {
          validBody = false;
        }
        answers.push({ phase: sentIn, status: res.status, retryAfter: res.headers.get('retry-after'), ms: performance.now() - started, validBody });
      } catch {
        answers.push({ phase: sentIn, status: 'no answer', retryAfter: null, ms: performance.now() - started, validBody: false });
      }
    }
  };
  const workers = Array.from({ length: options.workers }, worker);
  return {
    answers,
    setPhase(name: string) {
      phase = name;
    },
    async stop() {
      running = false;
      await Promise.all(workers);
    },
  };
}

/** Milliseconds until `probe` answers 200, polling every 20 ms (up to `limitMs`). */
export async function timeToRecover(probe: () => Promise<number>, limitMs = 10_000): Promise<number> {
  const started = performance.now();
  while (performance.now() - started < limitMs) {
    if ((await probe().catch(() => 0)) === 200) return performance.now() - started;
    await new Promise((r) => setTimeout(r, 20));
  }
  return Infinity;
}

export const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
