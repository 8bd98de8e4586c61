// Shared by the benchmarks that put a pinned server under wrk: start it on
// core 0, drive it from core 1, read wrk's figures and the server's CPU and
// memory from /proc.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, readSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Side } from './compare.ts';

export interface WrkResult {
  requests: number;
  /** What wrk read, heads and bodies, per request. */
  bytesPerRequest: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
}

export function toMs(text: string): number {
  const match = /^([\d.]+)(us|ms|s|m)$/.exec(text)!;
  const value = Number(match[1]);
  return match[2] === 'us' ? value / 1000 : match[2] === 'ms' ? value : match[2] === 's' ? value * 1000 : value * 60000;
}

/**
 * wrk on core 1: `-t<threads> -c<connections>` for `seconds`, with a Lua script and its environment. One thread
 * unless told; a script whose connections each keep state of their own (what they wrote, to undo it next) runs a
 * thread a connection, since a thread's connections share its Lua state.
 */
export function wrk(options: { url: string; script: string; seconds: number; connections: number; threads?: number; timeoutSeconds?: number; env?: Record<string, string> }): WrkResult {
  const result = spawnSync(
    'taskset',
    ['-c', '1', 'wrk', `-t${options.threads ?? 1}`, `-c${options.connections}`, `-d${options.seconds}s`, `--timeout`, `${options.timeoutSeconds ?? 2}s`, '--latency', '-s', options.script, options.url],
    { env: { ...process.env, ...options.env }, encoding: 'utf8' },
  );
  if (result.status !== 0) throw new Error(`wrk failed: ${result.stderr}`);
  const out = result.stdout;
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0);
  const socketErrors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  const requests = Number(/(\d+) requests in/.exec(out)![1]);
  const read = /requests in [\d.]+\w+, ([\d.]+)(B|KB|MB|GB) read/.exec(out)!;
  return {
    requests,
    bytesPerRequest: Math.round((Number(read[1]) * { B: 1, KB: 1024, MB: 1024 ** 2, GB: 1024 ** 3 }[read[2] as 'B']) / Math.max(1, requests)),
    requestsPerSecond: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)![1]),
    p50Ms: toMs(/\s50%\s+(\S+)/.exec(out)![1]!),
    p99Ms: toMs(/\s99%\s+(\S+)/.exec(out)![1]!),
    errors: non2xx + (socketErrors ? socketErrors.slice(1).reduce((a, b) => a + Number(b), 0) : 0),
  };
}

/**
 * The bare `node:http` server (bench/batch-get/ceiling-server.ts) at the pace of a run: pinned like the
 * server, spinning before each answer for what a request of the run cost beyond the bare server's own
 * `ceilingUs`, answering as many bytes, to as many connections. Its p99 is the tail of a server that only
 * costs as much: what a run's latency would be if none of it came from Maqam's code paths but their CPU.
 */
export async function bareServerAt(options: { cpuUs: number; ceilingUs: number; bytes: number; connections: number; seconds: number; warmupSeconds: number; timeoutSeconds?: number }): Promise<WrkResult & { cpuUs: number }> {
  const bodyFile = join(tmpdir(), `maqam-bench-body-${process.pid}.txt`);
  writeFileSync(bodyFile, 'x'.repeat(Math.max(1, options.bytes - 100)));
  const port = 20_000 + Math.floor(Math.random() * 1000);
  const busyUs = Math.max(0, Math.round(options.cpuUs - options.ceilingUs));
  const server = startPinned([process.execPath, join(import.meta.dirname, '../batch-get/ceiling-server.ts')], { ...process.env, BODY_FILE: bodyFile, PORT: String(port), BUSY_US: String(busyUs) });
  try {
    await waitReady(server, () => fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: '{}' }));
    const go = (seconds: number) => wrk({ url: `http://127.0.0.1:${port}/`, script: join(import.meta.dirname, 'post.lua'), seconds, connections: options.connections, ...(options.timeoutSeconds && { timeoutSeconds: options.timeoutSeconds }) });
    go(options.warmupSeconds);
    const before = cpuSeconds(server.pid!);
    const result = go(options.seconds);
    return { ...result, cpuUs: ((cpuSeconds(server.pid!) - before) * 1e6) / result.requests };
  } finally {
    await stop(server);
    rmSync(bodyFile, { force: true });
  }
}

/**
 * The bare server at the pace of a run that cost `cpuUs` a request and read `result`: its own cost at full
 * pace for answers of that size measured first (2 s: `ceilingUs`, the ceiling of a request that answers as
 * much), then paced by spinning for the rest. `timeoutSeconds` is the run's wrk timeout: a request that
 * waits longer is an error, not a latency, in both.
 */
export async function bareServerLike(result: WrkResult, cpuUs: number, connections: number, seconds: number, timeoutSeconds?: number): Promise<WrkResult & { cpuUs: number; ceilingUs: number }> {
  const bytes = result.bytesPerRequest;
  const ceilingUs = (await bareServerAt({ cpuUs: 0, ceilingUs: 0, bytes, connections, seconds: 2, warmupSeconds: 1, timeoutSeconds })).cpuUs;
  return { ...(await bareServerAt({ cpuUs, ceilingUs, bytes, connections, seconds, warmupSeconds: 1, timeoutSeconds })), ceilingUs };
}

/**
 * PostgreSQL runs as operators run it on many nodes: with Redis (BENCH_REDIS_URL, the local one by default;
 * `none` runs without), which lets a node check credentials from memory between writes (README, "Scale-out").
 */
export function scaleOut(dialect: string): { REDIS_URL?: string } {
  const url = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
  return dialect === 'postgres' && url !== 'none' ? { REDIS_URL: url } : {};
}

/** A process on core 0. */
export function startPinned(command: string[], env: Record<string, string | undefined>): ChildProcess {
  return spawn('taskset', ['-c', '0', ...command], { env, stdio: ['ignore', 'ignore', 'inherit'] });
}

export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.on('exit', r));
  child.kill('SIGTERM');
  await exited;
}

/** Polls until `probe` answers 200 (or the child exits); ten minutes at most (a start may rebuild stored data first). */
export async function waitReady(child: ChildProcess, probe: () => Promise<Response>): Promise<void> {
  for (let i = 0; i < 6000; i++) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    try {
      if ((await probe()).status === 200) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('server did not become ready');
}

/**
 * Commits before the song snapshot was removed (bench/README.md at 9b0c7f5, "One table for songs the
 * cache lacks") kept a song snapshot on SQLite, built after the server started: waits
 * until it is (its /metrics gauge is above 0), so no run of such a commit
 * measures the build. At once for a server without that gauge.
 */
export async function waitSongSnapshot(base: string): Promise<number> {
  if (process.env.MAQAM_SONG_SNAPSHOT === 'off') return 0;
  const started = performance.now();
  for (let i = 0; i < 1200; i++) {
    const metrics = await (await fetch(`${base}/metrics`)).text();
    if (!metrics.includes('maqam_song_snapshot_songs')) return 0;
    const songs = Number(/^maqam_song_snapshot_songs (\S+)$/m.exec(metrics)?.[1] ?? 0);
    if (songs > 0) return (performance.now() - started) / 1000;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the song snapshot was not built in 120 s');
}

/** CPU seconds (user + system) the process has used so far. */
export function cpuSeconds(pid: number): number {
  // Fields after the ")" that ends the command name: utime and stime are the 12th and 13th.
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  const ticksPerSecond = 100;
  return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond;
}

/**
 * Bytes the process has had read from storage (not from the page cache) so
 * far. A run that reads the disk measures the disk: some machines page out
 * file pages left unread for a minute or so (DAMON reclaim), whatever the
 * free memory, so a file warmed before the runs can be partly cold again.
 */
export function storageReadBytes(pid: number): number {
  return Number(/^read_bytes:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))![1]);
}

export function memoryOf(pid: number): { rssMb: number; rssAnonMb: number; peakRssMb: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)![1]);
  return { rssMb: Math.round(kb('VmRSS') / 1024), rssAnonMb: Math.round(kb('RssAnon') / 1024), peakRssMb: Math.round(kb('VmHWM') / 1024) };
}

/**
 * Where a process's resident memory is, by kind of mapping (MB), from
 * /proc/PID/smaps: glibc's malloc heap (`[heap]`: SQLite's page cache, the
 * memory of Buffers), anonymous mappings of 64 MB or more (one each: the
 * fragment cache's arena), smaller anonymous ones (V8's heap pages, thread
 * stacks, malloc's other arenas), the node binary, and other files.
 */
export function residentByMapping(pid: number): Record<string, number> {
  const kb: Record<string, number> = {};
  let kind = '';
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const mapping = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (mapping) {
      const [, start, end, name] = mapping;
      const sizeMb = (parseInt(end!, 16) - parseInt(start!, 16)) / 1048576;
      kind = name === '[heap]' ? 'malloc heap'
        : name === '' ? (sizeMb >= 64 ? `anonymous ${Math.round(sizeMb)} MB mapping` : 'other anonymous')
        : name!.endsWith('/bin/node') ? 'node binary' : 'other';
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss) kb[kind] = (kb[kind] ?? 0) + Number(rss[1]);
  }
  return Object.fromEntries(Object.entries(kb).filter(([, value]) => value >= 1024).map(([name, value]) => [name, Math.round(value / 1024)]));
}

/**
 * Reads a database file (and its WAL) once from end to end, so the run
 * measures the server and not the disk: after a seed on a fresh machine a
 * quarter of the 1M catalog's 3.4 GB was not in the page cache, and a first
 * uniform run then read the disk (140 requests/s against 350 once warm).
 * Answers the seconds it took.
 */
export function warmPageCache(path: string): number {
  const started = performance.now();
  const chunk = Buffer.allocUnsafe(8 << 20);
  for (const file of [path, `${path}-wal`]) {
    if (!existsSync(file)) continue;
    const fd = openSync(file, 'r');
    try {
      while (readSync(fd, chunk, 0, chunk.length, null) > 0);
    } finally {
      closeSync(fd);
    }
  }
  return (performance.now() - started) / 1000;
}

/**
 * A server process as a side of a comparison (compare.ts): warmed up by `load`, then measured as its CPU a request
 * (from /proc, over exactly the measured load), the load's p99 and the bytes a request. A cold server can time a few
 * requests out while it warms up; a measured load must answer every one.
 */
export function loadedServerSide(
  label: string, pid: number, load: (subject: string, seconds: number) => WrkResult, seconds: { warmUp: number; measured: number },
): Side {
  return {
    label,
    warmUp: (subject) => void load(subject, seconds.warmUp),
    measure(subject) {
      const before = cpuSeconds(pid);
      const result = load(subject, seconds.measured);
      if (result.errors > 0) throw new Error(`${label}, ${subject}: ${result.errors} errors`);
      return { cpuUs: ((cpuSeconds(pid) - before) * 1e6) / result.requests, p99Ms: result.p99Ms, bytes: result.bytesPerRequest };
    },
  };
}
