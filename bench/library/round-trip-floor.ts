// bench/library/round-trip-floor.ts: what an awaited round trip to another process costs a server's CPU,
// with nothing else in the request: the floor under "PostgreSQL within 1.5 times SQLite" for a read on one
// connection, where PostgreSQL's answer waits on two round trips (the read, and Redis's shared write
// version) that SQLite's does not.
//
// A bare node:http server pinned to core 0 answers 2 KB after K round trips, one after another, of 64 bytes
// to an echo server on core 1 (K = 0 to 3; wrk on core 1, one connection, as bench:library's one-connection
// runs). Servers of each K are loaded in turn, BENCH_ROUNDS rounds; the server's CPU a request from /proc.
//
//   node bench/library/round-trip-floor.ts      (BENCH_SECONDS 5, BENCH_ROUNDS 3)
import { fork, spawnSync, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cpuSeconds, stop, wrk } from '../lib/load.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const TRIPS = [0, 1, 2, 3];

const role = process.argv[2];
if (role === 'echo') {
  const echo = net.createServer((socket) => {
    socket.setNoDelay(true);
    socket.on('data', (data) => socket.write(data));
    socket.on('error', () => {}); // a server of a round, stopped: its socket resets
  });
  echo.listen(0, '127.0.0.1', () => process.send!((echo.address() as net.AddressInfo).port));
} else if (role === 'server') {
  const trips = Number(process.argv[3]);
  const socket = net.connect(Number(process.argv[4]), '127.0.0.1');
  socket.setNoDelay(true);
  const waiting: (() => void)[] = [];
  socket.on('data', () => waiting.shift()?.());
  const roundTrip = () => new Promise<void>((resolve) => {
    waiting.push(resolve);
    socket.write('x'.repeat(64));
  });
  const body = Buffer.alloc(2048, 'a');
  const server = http.createServer(async (_request, response) => {
    for (let i = 0; i < trips; i++) await roundTrip();
    response.end(body);
  });
  server.listen(0, '127.0.0.1', () => process.send!((server.address() as net.AddressInfo).port));
} else {
  const started = <T>(child: ChildProcess) => new Promise<T>((resolve) => child.once('message', (message) => resolve(message as T)));
  /** This script in a child of the given role, pinned to `core`. */
  const pinned = (core: number, args: string[]) => {
    // V8's flags as packages/cli/bin/maqam.js starts the server with.
    const execArgv = ['--max-semi-space-size=8', '--initial-old-space-size=64', '--no-allocation-site-pretenuring', '--no-maglev'];
    const child = fork(import.meta.filename, args, { execArgv, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    if (spawnSync('taskset', ['-pc', String(core), String(child.pid)], { stdio: 'ignore' }).status !== 0) throw new Error('taskset could not pin the child (util-linux)');
    return child;
  };
  const echo = pinned(1, ['echo']);
  const echoPort = await started<number>(echo);
  const script = join(tmpdir(), 'maqam-round-trip-floor.lua');
  writeFileSync(script, 'function request() return wrk.format("GET", "/") end\n');
  const cpu: Record<number, number[]> = {};
  for (let round = 0; round < ROUNDS; round++) {
    for (const trips of TRIPS) {
      const server = pinned(0, ['server', String(trips), String(echoPort)]);
      const port = await started<number>(server);
      const url = `http://127.0.0.1:${port}/`;
      wrk({ url, script, seconds: 1, connections: 1 });
      const before = cpuSeconds(server.pid!);
      const result = wrk({ url, script, seconds: SECONDS, connections: 1 });
      (cpu[trips] ??= []).push(((cpuSeconds(server.pid!) - before) * 1e6) / result.requests);
      await stop(server);
    }
  }
  await stop(echo);
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  console.log('| awaited round trips | server CPU us/request: median (rounds) | above none |');
  console.log('|---:|---:|---:|');
  for (const trips of TRIPS) {
    const values = cpu[trips]!;
    console.log(`| ${trips} | ${median(values).toFixed(0)} (${values.map((v) => v.toFixed(0)).join(', ')}) | ${(median(values) - median(cpu[0]!)).toFixed(0)} |`);
  }
}
