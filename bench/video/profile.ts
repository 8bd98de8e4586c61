// bench/video/profile.ts: where BatchGetSongs, BatchGetMovies and BatchGetEpisodes spend the server's CPU, on the
// catalog and request streams bench:video writes (run `npm run bench:video` once first; SQLite). For each
// operation, one after another (never two loads at once):
//
// - its fresh Zipf stream on a server started with --cpu-prof: CPU a request, and the profile summed by
//   function (self time) and by source file anywhere on the stack (inclusive time);
// - the same operation's first 100 bodies replayed ("all hits": every id cached after the warm-up) on a
//   server without the profiler, so what a stream costs beyond its hits is the miss path;
// - the fresh Zipf stream again with the fragment cache off (MAQAM_SONG_CACHE_MB=0): every id of every request
//   read and rendered, so (cache off - all hits) / 100 is about what rendering one item costs.
//
//   node bench/video/profile.ts           # BENCH_SECONDS (10), BENCH_WARMUP (15), BENCH_TOP (25)
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { basename, join, resolve } from 'node:path';
import { cpuSeconds, startPinned, stop, waitReady, warmPageCache, wrk } from '../lib/load.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const HERE = import.meta.dirname;
const DATA = join(ROOT, 'bench/.data/video');
const BIN = join(ROOT, 'packages/cli/bin/maqam.js');
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 15);
const TOP = Number(process.env.BENCH_TOP ?? 25);
const EPISODES = Number(process.env.BENCH_EPISODES ?? 100_000);
const MOVIES = Number(process.env.BENCH_MOVIES ?? 100_000);
const DB = join(DATA, 'profile.db');
const URL = `sqlite:${DB}`;
const OPS = [
  { name: 'BatchGetSongs', route: '/v1/music/songs:batchGet', bodies: join(DATA, `bodies-songIdList-${EPISODES}.txt`) },
  { name: 'BatchGetMovies', route: '/v1/video/movies:batchGet', bodies: join(DATA, `bodies-movieIdList-${MOVIES}.txt`) },
  { name: 'BatchGetEpisodes', route: '/v1/video/episodes:batchGet', bodies: join(DATA, `bodies-episodeIdList-${EPISODES}.txt`) },
];
for (const file of [...OPS.map((op) => op.bodies), ...['songs', 'episodes', 'movies'].map((f) => join(DATA, `${f}.ndjson`))]) {
  if (!existsSync(file)) throw new Error(`${file} is missing: run npm run bench:video first (with the same BENCH_EPISODES and BENCH_MOVIES)`);
}

function cli(args: string[]): string {
  const result = spawnSync(process.execPath, [BIN, ...args], { env: { ...process.env, DATABASE_URL: URL, LOG_LEVEL: 'warn' }, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`maqam ${args.join(' ')} failed:\n${result.stderr}`);
  return result.stdout;
}

if (!existsSync(DB)) {
  for (const kind of ['songs', 'episodes', 'movies']) console.log(`${kind}: ${cli(['import', join(DATA, `${kind}.ndjson`), '--json']).trim()}`);
}
const apiKey: string = JSON.parse(cli(['keys', 'create', '--name', `profile-${Date.now()}`, '--json'])).key;
warmPageCache(DB);

// The bin's own Node flags (its shebang), so the profiled server runs as `maqam serve` does.
const shebang = readFileSync(BIN, 'utf8').split('\n')[0]!.split(/\s+/).filter((word) => word.startsWith('--'));
const profiles = join(DATA, 'profiles');

interface ProfileNode { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }
interface Profile { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] }

/**
 * Self time by function, and inclusive time by function of the server's own code (each counted once a sample).
 * Shares are of the busy time (the samples not idle). An await splits a stack: a query's statement (sqlite.ts
 * `all`) is not under the render that awaited it.
 */
function summarize(profile: Profile): { busy: number; self: [string, number][]; inclusive: [string, number][] } {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const nameOf = (frame: ProfileNode['callFrame']) => `${frame.functionName || '(anonymous)'} ${frame.url ? `${basename(frame.url)}:${frame.lineNumber + 1}` : ''}`.trim();
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let busy = 0;
  profile.samples.forEach((id, i) => {
    const us = profile.timeDeltas[i] ?? 0;
    const frame = byId.get(id)!.callFrame;
    if (frame.functionName === '(idle)') return;
    busy += us;
    self.set(nameOf(frame), (self.get(nameOf(frame)) ?? 0) + us);
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const callFrame = byId.get(at)!.callFrame;
      if (callFrame.url.includes('/packages/server/src/')) seen.add(nameOf(callFrame));
    }
    for (const name of seen) inclusive.set(name, (inclusive.get(name) ?? 0) + us);
  });
  const sorted = (map: Map<string, number>) => [...map.entries()].sort((a, b) => b[1] - a[1]);
  return { busy, self: sorted(self), inclusive: sorted(inclusive) };
}

const load = (bodies: string, route: string, seconds: number, base: string) =>
  wrk({ url: `${base}/`, script: join(HERE, 'requests.lua'), seconds, connections: 32, env: { BODIES_FILE: bodies, ROUTE: route, API_KEY: apiKey } });

async function serverRun(op: (typeof OPS)[number], bodies: string, options: { profileDir?: string; env?: Record<string, string> } = {}): Promise<number> {
  const { profileDir } = options;
  const port = 19_000 + Math.floor(Math.random() * 1000);
  const base = `http://127.0.0.1:${port}`;
  const flags = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
  const server = startPinned([process.execPath, ...shebang, ...flags, BIN, 'serve'], { ...process.env, DATABASE_URL: URL, LOG_LEVEL: 'warn', MAQAM_RATE_LIMIT: '0', PORT: String(port), ...options.env });
  try {
    await waitReady(server, () => fetch(`${base}/healthz`));
    load(bodies, op.route, WARMUP, base);
    const before = cpuSeconds(server.pid!);
    const result = load(bodies, op.route, SECONDS, base);
    if (result.errors > 0) throw new Error(`${op.name}: ${result.errors} errors`);
    return ((cpuSeconds(server.pid!) - before) * 1e6) / result.requests;
  } finally {
    await stop(server);
  }
}

const lines: string[] = [
  '| operation | fresh Zipf (profiled) | all hits | cache off (every id rendered) | (cache off - all hits) / 100 ids |',
  '|---|---:|---:|---:|---:|',
];
const details: string[] = [];
for (const op of OPS) {
  const dir = join(profiles, op.name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const zipfUs = await serverRun(op, op.bodies, { profileDir: dir });
  const hits = join(DATA, `hits-${op.name}.txt`);
  writeFileSync(hits, `${readFileSync(op.bodies, 'utf8').split('\n').slice(0, 100).join('\n')}\n`);
  const hitsUs = await serverRun(op, hits);
  const cacheOffUs = await serverRun(op, op.bodies, { env: { MAQAM_SONG_CACHE_MB: '0' } });
  const row = `| ${op.name} | ${zipfUs.toFixed(0)} | ${hitsUs.toFixed(0)} | ${cacheOffUs.toFixed(0)} | ${((cacheOffUs - hitsUs) / 100).toFixed(1)} |`;
  lines.push(row);
  console.log(`server CPU us a request: ${row}`);
  const file = readdirSync(dir).find((name) => name.endsWith('.cpuprofile'))!;
  const { busy, self, inclusive } = summarize(JSON.parse(readFileSync(join(dir, file), 'utf8')) as Profile);
  const pct = (us: number) => `${((100 * us) / busy).toFixed(1)}%`;
  const from = details.length;
  details.push(`\n## ${op.name}, fresh Zipf: ${zipfUs.toFixed(0)} us a request\n`);
  details.push(`Profile: ${join(dir, file)}: ${(busy / 1e6).toFixed(1)} s busy (start, warm-up and the measured run); shares of the busy time.\n`);
  details.push('| server function (inclusive) | share |', '|---|---:|');
  for (const [name, us] of inclusive.slice(0, TOP)) details.push(`| ${name} | ${pct(us)} |`);
  details.push('', '| function (self) | share |', '|---|---:|');
  for (const [name, us] of self.slice(0, TOP)) details.push(`| ${name} | ${pct(us)} |`);
  console.log(details.slice(from).join('\n'));
}
console.log(`\nserver CPU us a request, ${SECONDS} s a run after ${WARMUP} s of warm-up, 32 connections, one server a run:\n\n${lines.join('\n')}`);
writeFileSync(join(profiles, 'summary.md'), `${lines.join('\n')}\n${details.join('\n')}\n`);
console.log(`\nwritten to ${join(profiles, 'summary.md')}`);
