// bench/streaming: what serving an HLS segment costs the server, a whole segment (200) and a range of it (206),
// as a player fetches them with a signed media URL: two builds compared by bench/lib/compare.ts, beside a bare
// node:http server sending the same bytes from the same file.
//
// A 60 s tone packaged by `addMedia` (about 190 KB a 6 s segment at HIGH), acquired once by a user with the
// stream scope; every server reads the same database and media with the same MAQAM_SECRET, so the one signed
// segment URL opens the same file on each. Sides, pinned to core 0 and loaded in turn by wrk on core 1:
// A (the first commit), A again, B (the second commit, or this tree) and the bare file server
// (bare-file-server.ts). The verdict is the median of the per-round ratios of server CPU a request.
//
//   npm run bench:streaming -- HEAD~1            # this tree (B) against HEAD~1 (A)
//   npm run bench:streaming -- HEAD~1 HEAD       # HEAD against HEAD~1
//   (BENCH_ROUNDS 6, BENCH_SECONDS 6, BENCH_WARMUP 3, BENCH_CONNECTIONS 16)
import { spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { addMedia, openStorage } from '@maqam/server';
import { mediaDirectoryOf } from '../../packages/server/src/streaming/media.ts';
import { alternate, printComparison, treeAt, type Side } from '../lib/compare.ts';
import { seededDatabase } from '../lib/fill.ts';
import { serverStarter, streamToken } from './stream-bench.ts';
import { loadedServerSide, stop, wrk } from '../lib/load.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const HERE = import.meta.dirname;
const DATA = join(ROOT, 'bench/.data');
const BIN = join(ROOT, 'packages/cli/bin/maqam.js');
const MEDIA = join(DATA, 'streaming-media');
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 6);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
const [commitA, commitB] = process.argv.slice(2);
if (commitA === undefined) {
  process.stderr.write('usage: npm run bench:streaming -- <commit A> [<commit B>]   (B: this tree unless given)\n');
  process.exit(2);
}
mkdirSync(DATA, { recursive: true });

// 1. A catalog, a song with media, a user whose token has the stream scope.
const url = (await seededDatabase('sqlite', 'streaming', 1000, DATA, BIN))!;
rmSync(MEDIA, { recursive: true, force: true });
const tone = join(DATA, 'streaming-tone.wav');
const made = spawnSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', '-f', 'lavfi', '-i', 'sine=frequency=440:duration=60', '-ac', '2', tone]);
if (made.status !== 0) throw new Error(made.stderr.toString());
const storage = openStorage(url);
await addMedia(storage.db, MEDIA, 'song-1', tone);
const accessToken = await streamToken(storage, 'listener');
await storage.close();

const env = {
  ...process.env, DATABASE_URL: url, LOG_LEVEL: 'warn', MAQAM_RATE_LIMIT: '0', MAQAM_MEDIA_DIR: MEDIA, MAQAM_SECRET: 's'.repeat(40),
  PATH: `${join(ROOT, 'node_modules/.bin')}:${process.env.PATH}`,
};
const children: ChildProcess[] = [];
const trees = [treeAt(ROOT, commitA), ...(commitB === undefined ? [] : [treeAt(ROOT, commitB)])];

/** One process on core 0 at a port of its own. */
const started = serverStarter(env, children);

try {
  // 2. The stream, acquired once from a server of this tree: a segment's signed path, and its file.
  const first = await started([BIN, 'serve'], {}, (base) => fetch(`${base}/readyz`));
  const acquired = await fetch(`${first.base}/v1/streaming/music`, {
    method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${accessToken}` },
    body: JSON.stringify({ songId: { value: 'song-1' }, maxQuality: 'AUDIO_QUALITY_HIGH' }),
  });
  if (!acquired.ok) throw new Error(`AcquireMusicStream: ${acquired.status} ${await acquired.text()}`);
  const manifest = new URL((await acquired.json()).stream.manifestUrl).pathname;
  const playlist = await (await fetch(first.base + manifest)).text();
  const segmentPath = new URL(playlist.split('\n').find((line) => line.startsWith('http'))!).pathname;
  const whole = await fetch(first.base + segmentPath);
  const size = (await whole.arrayBuffer()).byteLength;
  if (whole.status !== 200) throw new Error(`segment: ${whole.status}`);
  // The file itself, for the bare server.
  const name = segmentPath.split('/').pop()!;
  const file = join(MEDIA, mediaDirectoryOf('song-1'), 'AUDIO_QUALITY_HIGH', name);
  await stop(children.pop()!);

  const SUBJECTS: Record<string, string> = { 'whole segment (200)': '', 'range of 64 KiB (206)': 'bytes=65536-131071' };
  console.log(`segment ${name} of ${size.toLocaleString('en')} bytes; ${CONNECTIONS} connections`);
  const side = (label: string, base: string, pid: number): Side => {
    const load = (subject: string, seconds: number) =>
      wrk({ url: `${base}/`, script: join(HERE, 'segment.lua'), seconds, connections: CONNECTIONS, env: { SEGMENT_PATH: segmentPath, RANGE: SUBJECTS[subject]! } });
    return loadedServerSide(label, pid, load, { warmUp: WARMUP_SECONDS, measured: SECONDS });
  };
  const maqam = async (label: string, root: string) => {
    const server = await started([join(root, 'packages/cli/bin/maqam.js'), 'serve'], {}, (base) => fetch(`${base}/readyz`));
    return side(label, server.base, server.pid);
  };
  const a = await maqam(commitA, trees[0]!.root);
  const aAgain = await maqam(commitA, trees[0]!.root);
  const b = await maqam(commitB ?? 'this tree', trees[1]?.root ?? ROOT);
  const bareServer = await started([process.execPath, join(HERE, 'bare-file-server.ts')], { FILE: file }, (base) => fetch(base));
  const bare = side('bare node:http', bareServer.base, bareServer.pid);
  const comparison = await alternate({ a, aAgain, b: [b, bare], subjects: Object.keys(SUBJECTS), rounds: ROUNDS });
  printComparison(comparison, [
    { key: 'cpuUs', label: 'server CPU us/request' },
    { key: 'p99Ms', label: 'p99 ms', digits: 2 },
    { key: 'bytes', label: 'bytes read a request (heads and bodies)' },
  ], `HLS segments, B: ${b.label} against A: ${a.label}`);
} finally {
  for (const child of children) await stop(child);
  for (const tree of trees) tree.remove();
}
