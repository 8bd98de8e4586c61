// bench:video-streaming: what serving a video segment costs the server, against a bare node:http server sending the
// same file's bytes (issue 54's target: CPU a request within 2 times the bare server's, in the same run).
//
// A 60 s 1280x720 testsrc2 clip with a sine (made with ffmpeg's lavfi) is packaged by the server's own packager
// (`addVideo`, as `maqam media add-video` runs it: 480p and 720p, AES-128, 6 s segments) for a film of the demo
// catalog. A user with the stream scope acquires it once (AcquireVideoStream), and the segment is found as hls.js
// finds it: the master playlist, the 720p variant's media playlist, its first segment's signed URL
// (/v1/streaming/video/<media token>/v720/seg00000.ts). That URL is then fetched whole (200) and as a 64 KiB range
// (206), by wrk on core 1 at 16 connections, from servers pinned to core 0, alternated by lib/compare.ts:
//
//   A        the bare file server (bare-file-server.ts: node:http, the same file's bytes read from disk)
//   A again  a second bare file server: the noise band
//   B        `maqam serve` (this tree), and a second `maqam serve`: each a ratio to A
//
// so B / A is Maqam's CPU a request over the bare server's, as the target reads it.
//
//   npm run bench:video-streaming     # BENCH_ROUNDS (6), BENCH_SECONDS (6), BENCH_WARMUP (3), BENCH_CONNECTIONS (16)
//                                     # about 8 minutes; run it under flock /tmp/maqam-cpu.lock
//   npm run bench:video-streaming -- HEAD~1   # also a server of that commit, as one more B: a change to the route, measured
//   BENCH_PROFILE=whole npm run bench:video-streaming   # (or range) each server alone under --cpu-prof: self time by function
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { addVideo, openStorage } from '@maqam/server';
import { alternate, printComparison, treeAt, verdicts, type Side } from '../lib/compare.ts';
import { seededDatabase } from '../lib/fill.ts';
import { serverStarter, streamToken } from './stream-bench.ts';
import { loadedServerSide, stop, waitReady, wrk } from '../lib/load.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const HERE = import.meta.dirname;
const DATA = join(ROOT, 'bench/.data');
const RESULTS = join(ROOT, 'bench/results');
const BIN = join(ROOT, 'packages/cli/bin/maqam.js');
const MEDIA = join(DATA, 'video-streaming-media');
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 6);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
/** A film of the demo catalog rated for all ages. */
const MOVIE = 'movie-sani-al-oud';
mkdirSync(DATA, { recursive: true });
mkdirSync(RESULTS, { recursive: true });

// 1. A catalog with the film, its package, a user whose token has the stream scope.
const url = (await seededDatabase('sqlite', 'video-streaming', 1000, DATA, BIN))!;
rmSync(MEDIA, { recursive: true, force: true });
const clip = join(DATA, 'video-streaming-clip.mp4');
const made = spawnSync('ffmpeg', [
  '-hide_banner', '-loglevel', 'error', '-nostdin', '-y', '-f', 'lavfi', '-i', 'testsrc2=size=1280x720:rate=25:duration=60',
  '-f', 'lavfi', '-i', 'sine=frequency=440:beep_factor=4:duration=60', '-c:v', 'libx264', '-preset', 'veryfast', '-crf', '20', '-c:a', 'aac', '-shortest', clip,
]);
if (made.status !== 0) throw new Error(made.stderr.toString());
const storage = openStorage(url);
const packaged = await addVideo(storage.db, MEDIA, { kind: 'movie', id: MOVIE }, clip);
const accessToken = await streamToken(storage, 'viewer');
await storage.close();
console.log(`packaged ${MOVIE}: ${packaged.renditions.map((r) => `${r.width}x${r.height}`).join(', ')} into ${packaged.directory}`);

const env = {
  ...process.env, DATABASE_URL: url, LOG_LEVEL: 'warn', MAQAM_RATE_LIMIT: '0', MAQAM_MEDIA_DIR: MEDIA, MAQAM_SECRET: 's'.repeat(40),
  PATH: `${join(ROOT, 'node_modules/.bin')}:${process.env.PATH}`,
};
const children: ChildProcess[] = [];
const commit = process.argv[2];
const trees = commit === undefined ? [] : [treeAt(ROOT, commit)];
/** The flags of packages/cli/bin/maqam.js's shebang, for a server started by node itself (to add --cpu-prof). */
const MAQAM_NODE_FLAGS = ['--max-semi-space-size=8', '--initial-old-space-size=64', '--no-allocation-site-pretenuring', '--no-maglev'];

/** The self time of a .cpuprofile in `dir` by function, the top 25, as shares of the busy (not idle) time. */
function printProfile(dir: string): void {
  const profile = JSON.parse(readFileSync(join(dir, readdirSync(dir).find((f) => f.endsWith('.cpuprofile'))!), 'utf8')) as {
    nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[]; samples: number[]; timeDeltas: number[];
  };
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const frame = byId.get(id)!.callFrame;
    const name = `${frame.functionName || '(anonymous)'} ${frame.url.replace(/^.*node_modules\//, '').replace(/^.*\/packages\//, '').replace(/^file:\/\//, '')}${frame.url ? `:${frame.lineNumber + 1}` : ''}`;
    self.set(name, (self.get(name) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  const busy = [...self].filter(([name]) => !name.startsWith('(idle)')).reduce((sum, [, us]) => sum + us, 0);
  for (const [name, us] of [...self].filter(([n]) => !n.startsWith('(idle)')).sort((x, y) => y[1] - x[1]).slice(0, 25)) {
    console.log(`  ${((100 * us) / busy).toFixed(1).padStart(5)}%  ${name}`);
  }
}

/** One process on core 0 at a port of its own. */
const started = serverStarter(env, children);

try {
  // 2. The segment's signed URL, as a player finds it: AcquireVideoStream, the master playlist, the best variant's media playlist.
  const first = await started([BIN, 'serve'], {}, (base) => fetch(`${base}/readyz`));
  const acquired = await fetch(`${first.base}/v1/streaming/video`, {
    method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${accessToken}` },
    body: JSON.stringify({ movieId: { value: MOVIE } }),
  });
  if (!acquired.ok) throw new Error(`AcquireVideoStream: ${acquired.status} ${await acquired.text()}`);
  const master = await (await fetch(first.base + new URL((await acquired.json()).stream.manifestUrl).pathname)).text();
  const variants = master.split('\n').filter((line) => line.startsWith('http') && !line.includes('/iframes.m3u8'));
  const best = variants.find((line) => line.includes('/v720/'));
  if (best === undefined) throw new Error(`no 720p variant in the master playlist:\n${master}`);
  const media = await (await fetch(first.base + new URL(best).pathname)).text();
  const segmentPath = new URL(media.split('\n').find((line) => line.startsWith('http') && line.endsWith('.ts'))!).pathname;
  const whole = await fetch(first.base + segmentPath);
  const size = (await whole.arrayBuffer()).byteLength;
  if (whole.status !== 200) throw new Error(`segment: ${whole.status}`);
  const ranged = await fetch(first.base + segmentPath, { headers: { range: 'bytes=65536-131071' } });
  if (ranged.status !== 206 || (await ranged.arrayBuffer()).byteLength !== 65536) throw new Error(`range: ${ranged.status}`);
  const name = segmentPath.split('/').pop()!;
  const file = join(MEDIA, packaged.directory, 'v720', name);
  if (statSync(file).size !== size) throw new Error(`the served segment is ${size} bytes, its file ${statSync(file).size}`);
  await stop(children.pop()!);

  const SUBJECTS: Record<string, string> = { 'whole segment (200)': '', 'range of 64 KiB (206)': 'bytes=65536-131071' };
  console.log(`segment v720/${name} of ${size.toLocaleString('en')} bytes; ${CONNECTIONS} connections; URL ${segmentPath.length} characters`);
  const side = (label: string, base: string, pid: number): Side => {
    const load = (subject: string, seconds: number) =>
      wrk({ url: `${base}/`, script: join(HERE, 'segment.lua'), seconds, connections: CONNECTIONS, env: { SEGMENT_PATH: segmentPath, RANGE: SUBJECTS[subject]! } });
    return loadedServerSide(label, pid, load, { warmUp: WARMUP_SECONDS, measured: SECONDS });
  };
  const bareSide = async (label: string) => {
    const server = await started([process.execPath, join(HERE, 'bare-file-server.ts')], { FILE: file }, (base) => fetch(base));
    return side(label, server.base, server.pid);
  };
  const maqamSide = async (label: string) => {
    const server = await started([BIN, 'serve'], {}, (base) => fetch(`${base}/readyz`));
    return side(label, server.base, server.pid);
  };
  if (process.env.BENCH_PROFILE) {
    // Each server alone under --cpu-prof and --trace-gc, one subject (BENCH_PROFILE: whole or range): where its CPU
    // goes, and its collections. The bare server a third time with the node flags of maqam.js, and a fourth holding as
    // much live heap as Maqam's (BARE_HEAP_MB): what the collections cost a server of that heap sending the same bytes.
    const subject = process.env.BENCH_PROFILE === 'range' ? 'range of 64 KiB (206)' : 'whole segment (200)';
    const bare = join(HERE, 'bare-file-server.ts');
    let maqamHeapMb = 0;
    const profiled: [string, string[], Record<string, string>][] = [
      ['Maqam', [process.execPath, ...MAQAM_NODE_FLAGS, BIN, 'serve'], {}],
      ['bare node:http', [process.execPath, bare], { FILE: file }],
      ['bare node:http, the node flags of maqam.js', [process.execPath, ...MAQAM_NODE_FLAGS, bare], { FILE: file }],
      ['bare node:http, as much live heap as Maqam', [process.execPath, bare], { FILE: file }],
    ];
    for (const [index, [label, command, extra]] of profiled.entries()) {
      const dir = join(DATA, `video-streaming-profile-${index}`);
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir, { recursive: true });
      const gcLog = join(dir, 'gc.log');
      const port = 19_000 + Math.floor(Math.random() * 1000);
      const heap = index === 3 ? { BARE_HEAP_MB: String(maqamHeapMb) } : {};
      const child = spawn('taskset', ['-c', '0', command[0]!, '--cpu-prof', '--cpu-prof-dir', dir, '--trace-gc', ...command.slice(1)], {
        env: { ...env, ...extra, ...heap, PORT: String(port) }, stdio: ['ignore', openSync(gcLog, 'w'), 'inherit'],
      });
      children.push(child);
      const base = `http://127.0.0.1:${port}`;
      await waitReady(child, () => fetch(label === 'Maqam' ? `${base}/readyz` : base));
      const measured = side(label, base, child.pid!);
      await measured.warmUp!(subject);
      const gcBefore = readFileSync(gcLog, 'utf8').split('\n').length - 1;
      const figures = await measured.measure(subject, 0);
      const gcLines = readFileSync(gcLog, 'utf8').split('\n').slice(gcBefore).filter((line) => / ms: /.test(line));
      await stop(children.pop()!);
      const kinds = new Map<string, { count: number; ms: number }>();
      for (const line of gcLines) {
        const match = / ms: ([A-Za-z-]+(?: \(reduce\))?) [\d.]+ \([\d.]+\) -> ([\d.]+) \([\d.]+\) MB, (?:pooled: [\d.]+ MB, )?([\d.]+) \/ [\d.]+ ms/.exec(line);
        if (!match) continue;
        const kind = kinds.get(match[1]!) ?? { count: 0, ms: 0 };
        kinds.set(match[1]!, { count: kind.count + 1, ms: kind.ms + Number(match[3]) });
        if (index === 0) maqamHeapMb = Math.round(Number(match[2]));
      }
      const reasons = new Map<string, number>();
      for (const line of gcLines) {
        const reason = /\) ([a-z][a-z ]+?)(?:;|$)/.exec(line.split('current mu')[1] ?? '')?.[1];
        if (reason) reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
      }
      console.log(`\n${label}, ${subject}: ${figures.cpuUs!.toFixed(0)} us a request under the profiler${index === 3 ? ` (${maqamHeapMb} MB of live objects)` : ''}`);
      console.log(`  collections in the measured ${SECONDS} s: ${[...kinds].map(([kind, k]) => `${kind} ${k.count} (${k.ms.toFixed(0)} ms)`).join(', ') || 'none'}; why: ${[...reasons].map(([r, n]) => `${r} ${n}`).join(', ') || '-'}${index === 0 ? `; heap after the last: ${maqamHeapMb} MB` : ''}`);
      console.log('  self time by function (of the busy time):');
      printProfile(dir);
    }
    process.exit(0);
  }
  const a = await bareSide('bare node:http');
  const aAgain = await bareSide('bare node:http');
  const b = [await maqamSide('Maqam'), await maqamSide('Maqam again')];
  // A commit given: its server as one more B, so a change to the route is measured against it in the same run.
  for (const tree of trees) {
    const server = await started([join(tree.root, 'packages/cli/bin/maqam.js'), 'serve'], {}, (base) => fetch(`${base}/readyz`));
    b.push(side(`Maqam at ${commit}`, server.base, server.pid));
  }
  const comparison = await alternate({ a, aAgain, b, subjects: Object.keys(SUBJECTS), rounds: ROUNDS });
  const metrics = [
    { key: 'cpuUs', label: 'server CPU us/request' },
    { key: 'p99Ms', label: 'p99 ms', digits: 2 },
    { key: 'bytes', label: 'bytes read a request (heads and bodies)' },
  ];
  printComparison(comparison, metrics, 'Video segments: Maqam (B) against the bare node:http file server (A); target: CPU a request, B / A <= 2');
  const results = {
    bench: 'video-streaming', at: new Date().toISOString(), segment: { path: `v720/${name}`, bytes: size }, connections: CONNECTIONS, seconds: SECONDS, rounds: ROUNDS,
    sides: comparison.sides.map((s) => s.label), subjects: comparison.subjects, figures: comparison.figures, orders: comparison.orders,
    verdicts: verdicts(comparison, metrics).map((v) => ({ subject: v.subject, metric: v.metric.key, side: v.side.label, ratio: v.ratio, band: v.band })),
  };
  const out = join(RESULTS, `video-streaming-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(out, JSON.stringify(results, null, 2));
  console.log(`\nwritten to ${out}`);
} finally {
  for (const child of children) await stop(child);
  for (const tree of trees) tree.remove();
}
