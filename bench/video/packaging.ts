// bench:video-packaging: what `maqam media add-video` costs beyond its encode (issue 54's target: wall time within
// 1.15 times a bare ffmpeg run of the same ladder on this machine).
//
// A 10-minute 1080p source (testsrc2 at 25 fps with its moving sweep and counter, and a beeping sine in stereo AAC;
// made once with ffmpeg's lavfi into bench/.data/video-packaging, a few minutes) is packaged, in alternated rounds, by:
//
//   Maqam   `maqam media add-video movie-sani-al-oud SOURCE` (the CLI as an operator runs it: probe, plan, the one
//           ffmpeg run, then the checks of what ffmpeg wrote: every segment decrypted, its first frame an IDR at the
//           same time in every rendition, ffprobe of each rendition, the playlists, I-frame playlists, the record)
//   bare    ffmpeg with the same encode written out by hand below (BARE_ARGUMENTS): the same three renditions
//           (480p, 720p, 1080p from one decode through split), libx264 veryfast high profile at the same rates,
//           GOP and forced IDR keyframes every 6 s, one AAC track at 128 kbps 48 kHz stereo, 6 s MPEG-TS HLS
//           segments AES-128 encrypted; nothing else. Before the rounds the script checks that this line is the
//           line Maqam's packager builds (packagingArguments), output paths aside, so the two encodes are the same.
//
// Each run is timed by /usr/bin/time: wall seconds, and user + system CPU of the whole process tree (the CLI's node
// and the ffmpeg it waits for); a shim on PATH notes when each side's ffmpeg starts and ends. Verdict: the median of
// the per-round ratios Maqam / bare, with their range; beside it Maqam's wall over its own ffmpeg's, which the
// machine's pace cancels out of (on a machine shared with other work, one encode can take 30% longer than the next).
// Neither side is pinned: ffmpeg's encoders take both cores, as they would on a real host.
//
//   npm run bench:video-packaging                  # 2 rounds of both: 42 minutes on 2026-11-28 (2 cores, loaded), 40 to 50
//   BENCH_ROUNDS=3 npm run bench:video-packaging   # about 70 minutes
//   BENCH_SOURCE_SECONDS=20 BENCH_ROUNDS=1 npm run bench:video-packaging   # a smoke test of the script (a minute)
//
// Run it under `flock /tmp/maqam-cpu.lock`, with nothing else running: both sides take both cores for minutes.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { planLadder } from '@maqam/server';
import { packagingArguments } from '../../packages/server/src/streaming/video-packager.ts';
import { median } from '../lib/compare.ts';
import { seededDatabase } from '../lib/fill.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const DATA = join(ROOT, 'bench/.data/video-packaging');
const RESULTS = join(ROOT, 'bench/results');
const BIN = join(ROOT, 'packages/cli/bin/maqam.js');
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const SOURCE_SECONDS = Number(process.env.BENCH_SOURCE_SECONDS ?? 600);
/** A film of the demo catalog rated for all ages (any film would do: the title only names where the package goes). */
const MOVIE = 'movie-sani-al-oud';
mkdirSync(DATA, { recursive: true });
mkdirSync(RESULTS, { recursive: true });

// 1. The source: made once, kept (bench/.data is ignored by git).
const source = join(DATA, `source-1080p-${SOURCE_SECONDS}s.mp4`);
if (!existsSync(source)) {
  console.log(`making the ${SOURCE_SECONDS} s 1080p source (${source}) with ffmpeg...`);
  const partial = `${source}.partial.mp4`;
  const made = spawnSync('ffmpeg', [
    '-hide_banner', '-loglevel', 'error', '-nostdin', '-y',
    '-f', 'lavfi', '-i', `testsrc2=size=1920x1080:rate=25:duration=${SOURCE_SECONDS}`,
    '-f', 'lavfi', '-i', `sine=frequency=440:beep_factor=4:duration=${SOURCE_SECONDS}`,
    '-c:v', 'libx264', '-preset', 'veryfast', '-crf', '20', '-g', '50', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-b:a', '192k', '-ac', '2', '-shortest', partial,
  ], { stdio: ['ignore', 'inherit', 'inherit'] });
  if (made.status !== 0) throw new Error('ffmpeg could not make the source');
  renameSync(partial, source);
}
const probed = JSON.parse(spawnSync('ffprobe', ['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'stream=width,height,avg_frame_rate,duration', '-of', 'json', source], { encoding: 'utf8' }).stdout)
  .streams[0] as { width: number; height: number; avg_frame_rate: string; duration: string };
const [numerator, denominator] = probed.avg_frame_rate.split('/').map(Number);
const frameRate = numerator! / denominator!;
const durationMs = Math.round(Number(probed.duration) * 1000);
console.log(`source: ${probed.width}x${probed.height}, ${frameRate} fps, ${(durationMs / 1000).toFixed(3)} s, ${(statSync(source).size / 1e6).toFixed(1)} MB`);

// 2. The bare encode, by hand: what Maqam's packager asks of ffmpeg for this source (video-packager.ts).
const SEGMENT_SECONDS = 6;
const GOP = 2 * Math.ceil(SEGMENT_SECONDS * frameRate);
const LADDER = [
  { folder: 'v480', width: 854, height: 480, kbps: 1400 },
  { folder: 'v720', width: 1280, height: 720, kbps: 2800 },
  { folder: 'v1080', width: 1920, height: 1080, kbps: 5000 },
];
const hls = (keyInfo: string, directory: string) => [
  '-avoid_negative_ts', 'disabled', '-hls_ts_options', 'avoid_negative_ts=disabled',
  '-f', 'hls', '-hls_time', String(SEGMENT_SECONDS), '-hls_playlist_type', 'vod', '-hls_segment_type', 'mpegts',
  '-hls_key_info_file', keyInfo, '-hls_segment_filename', join(directory, 'seg%05d.ts'), join(directory, 'index.m3u8'),
];
function BARE_ARGUMENTS(out: string, keyInfo: string): string[] {
  return [
    '-i', source,
    '-filter_complex', [
      `[0:v:0]split=3[s0][s1][s2]`,
      ...LADDER.map((step, i) => `[s${i}]scale=${step.width}:${step.height}:flags=bicubic,setsar=1,format=yuv420p[v${i}]`),
    ].join(';'),
    ...LADDER.flatMap((step, i) => [
      '-map', `[v${i}]`, '-c:v', 'libx264', '-preset', 'veryfast', '-profile:v', 'high',
      '-b:v', `${step.kbps}k`, '-maxrate', `${step.kbps * 1.5}k`, '-bufsize', `${step.kbps * 2}k`,
      '-g', String(GOP), '-keyint_min', String(GOP), '-sc_threshold', '0', '-force_key_frames', `expr:gte(t,n_forced*${SEGMENT_SECONDS})`, '-forced-idr', '1',
      '-an', '-sn', '-dn', '-map_metadata', '-1', '-max_muxing_queue_size', '4096',
      ...hls(keyInfo, join(out, step.folder)),
    ]),
    '-map', '0:a:0', '-c:a', 'aac', '-b:a', '128k', '-ac', '2', '-ar', '48000', '-af', 'apad', '-t', (durationMs / 1000).toFixed(3),
    '-vn', '-sn', '-dn', '-map_metadata', '-1', '-max_muxing_queue_size', '4096',
    ...hls(keyInfo, join(out, 'a-ar')),
  ];
}
// The same line as the packager's, or the comparison is of two different encodes.
{
  const video = planLadder({ width: probed.width, height: probed.height });
  const audio = [{ language: 'ar', folder: 'a-ar', name: 'العربية', isDefault: true, input: 0, stream: 0, file: source }];
  const maqams = packagingArguments({ file: source, frameRate, durationMs, interlaced: false }, video, audio, { directory: '/OUT', keyInfoFile: '/KEYINFO' });
  const bare = BARE_ARGUMENTS('/OUT', '/KEYINFO');
  if (JSON.stringify(maqams) !== JSON.stringify(bare)) {
    console.error(`the bare line is not Maqam's:\n  Maqam: ${maqams.join(' ')}\n  bare:  ${bare.join(' ')}`);
    process.exit(1);
  }
}

// 3. A catalog holding the film (the demo's, 1,000 songs: a second).
const url = (await seededDatabase('sqlite', 'video-packaging', 1000, DATA, BIN))!;

interface Run { side: string; round: number; wallSeconds: number; ffmpegSeconds: number; cpuSeconds: number; userSeconds: number; systemSeconds: number; bytes: number }

// Both sides find ffmpeg on PATH through a shim that notes when the real one starts and ends: a run's wall seconds
// less its ffmpeg's are what Maqam adds beyond the encode (probe, checks, playlists, record), free of how fast the
// machine encoded that time.
const realFfmpeg = spawnSync('sh', ['-c', 'command -v ffmpeg'], { encoding: 'utf8' }).stdout.trim();
const shimDirectory = join(DATA, 'shim');
const ffmpegTimes = join(DATA, 'ffmpeg-times.txt');
mkdirSync(shimDirectory, { recursive: true });
writeFileSync(join(shimDirectory, 'ffmpeg'), `#!/bin/sh\necho "start $(date +%s.%N)" >> "${ffmpegTimes}"\n"${realFfmpeg}" "$@"\nrc=$?\necho "end $(date +%s.%N)" >> "${ffmpegTimes}"\nexit $rc\n`, { mode: 0o755 });
const shimmed = { ...process.env, PATH: `${shimDirectory}:${process.env.PATH}` };

/** The seconds the one ffmpeg of a run took, by the shim's notes. */
function ffmpegSeconds(): number {
  const notes = readFileSync(ffmpegTimes, 'utf8').trim().split('\n').map((line) => line.split(' '));
  if (notes.length !== 2 || notes[0]![0] !== 'start' || notes[1]![0] !== 'end') throw new Error(`one ffmpeg run expected: ${JSON.stringify(notes)}`);
  return Number(notes[1]![1]) - Number(notes[0]![1]);
}

/** Wall seconds and user + system CPU of a command and every process it waited for, by GNU time. */
function timed(command: string[], env: NodeJS.ProcessEnv): { wallSeconds: number; ffmpegSeconds: number; userSeconds: number; systemSeconds: number } {
  const timeFile = join(DATA, 'time.txt');
  rmSync(ffmpegTimes, { force: true });
  const run = spawnSync('/usr/bin/time', ['-f', '%e %U %S', '-o', timeFile, ...command], { env, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8', maxBuffer: 64 << 20 });
  if (run.status !== 0) throw new Error(`${command.slice(0, 3).join(' ')} failed (${run.status}): ${run.stderr.slice(-2000)}`);
  const [wall, user, system] = readFileSync(timeFile, 'utf8').trim().split('\n').pop()!.split(' ').map(Number);
  return { wallSeconds: wall!, ffmpegSeconds: ffmpegSeconds(), userSeconds: user!, systemSeconds: system! };
}

function bytesUnder(directory: string): number {
  let total = 0;
  for (const entry of readdirSync(directory, { withFileTypes: true, recursive: true })) if (entry.isFile()) total += statSync(join(entry.parentPath, entry.name)).size;
  return total;
}

const media = join(DATA, 'media');
const bareOut = join(DATA, 'bare');
const sides: Record<string, (round: number) => Run> = {
  maqam(round) {
    rmSync(media, { recursive: true, force: true });
    const env = { ...shimmed, DATABASE_URL: url, MAQAM_MEDIA_DIR: media, LOG_LEVEL: 'warn' };
    const time = timed([process.execPath, BIN, 'media', 'add-video', MOVIE, source], env);
    return { side: 'maqam', round, ...time, cpuSeconds: time.userSeconds + time.systemSeconds, bytes: bytesUnder(media) };
  },
  bare(round) {
    rmSync(bareOut, { recursive: true, force: true });
    for (const folder of [...LADDER.map((step) => step.folder), 'a-ar']) mkdirSync(join(bareOut, folder), { recursive: true });
    writeFileSync(join(DATA, 'key'), randomBytes(16));
    writeFileSync(join(DATA, 'keyinfo'), `key\n${join(DATA, 'key')}\n${randomBytes(16).toString('hex')}\n`);
    const time = timed(['ffmpeg', '-hide_banner', '-loglevel', 'error', '-nostdin', '-nostats', '-y', ...BARE_ARGUMENTS(bareOut, join(DATA, 'keyinfo'))], shimmed);
    return { side: 'bare', round, ...time, cpuSeconds: time.userSeconds + time.systemSeconds, bytes: bytesUnder(bareOut) };
  },
};

// 4. The rounds: Maqam then bare, then bare then Maqam, and so on.
const runs: Run[] = [];
const started = Date.now();
for (let round = 1; round <= ROUNDS; round++) {
  for (const side of round % 2 === 1 ? ['maqam', 'bare'] : ['bare', 'maqam']) {
    const run = sides[side]!(round);
    runs.push(run);
    console.log(`  round ${round}, ${side}: ${run.wallSeconds.toFixed(1)} s wall (its ffmpeg ${run.ffmpegSeconds.toFixed(1)} s), ${run.cpuSeconds.toFixed(1)} s CPU (user ${run.userSeconds.toFixed(1)}, system ${run.systemSeconds.toFixed(1)}), ${(run.bytes / 1e6).toFixed(1)} MB written`);
  }
}
rmSync(media, { recursive: true, force: true });
rmSync(bareOut, { recursive: true, force: true });

const of = (side: string, round: number) => runs.find((run) => run.side === side && run.round === round)!;
const rounds = Array.from({ length: ROUNDS }, (_, i) => i + 1);
const wallRatios = rounds.map((round) => of('maqam', round).wallSeconds / of('bare', round).wallSeconds);
const cpuRatios = rounds.map((round) => of('maqam', round).cpuSeconds / of('bare', round).cpuSeconds);
/** Maqam's wall seconds over its own ffmpeg's: the encode's pace cancels out. */
const ownRatios = rounds.map((round) => of('maqam', round).wallSeconds / of('maqam', round).ffmpegSeconds);
const spread = (values: number[]) => `${Math.min(...values).toFixed(3)} to ${Math.max(...values).toFixed(3)}`;
console.log(`\nPackaging ${(durationMs / 1000).toFixed(0)} s of ${probed.width}x${probed.height}: Maqam (maqam media add-video) against bare ffmpeg of the same ladder, ${ROUNDS} alternated rounds\n`);
console.log('| round | Maqam wall s (its ffmpeg) | bare wall s (its ffmpeg) | wall Maqam / bare | Maqam beyond its ffmpeg | Maqam CPU s | bare CPU s | CPU Maqam / bare |');
console.log('|---:|---:|---:|---:|---:|---:|---:|---:|');
for (const [i, round] of rounds.entries()) {
  const [m, b] = [of('maqam', round), of('bare', round)];
  console.log(`| ${round} | ${m.wallSeconds.toFixed(1)} (${m.ffmpegSeconds.toFixed(1)}) | ${b.wallSeconds.toFixed(1)} (${b.ffmpegSeconds.toFixed(1)}) | ${wallRatios[i]!.toFixed(3)} | ${(m.wallSeconds - m.ffmpegSeconds).toFixed(1)} s, x ${ownRatios[i]!.toFixed(3)} | ${m.cpuSeconds.toFixed(1)} | ${b.cpuSeconds.toFixed(1)} | ${cpuRatios[i]!.toFixed(3)} |`);
}
console.log(`\nwall Maqam / bare: median **${median(wallRatios).toFixed(3)}** (${spread(wallRatios)}); target <= 1.15: ${median(wallRatios) <= 1.15 ? 'met' : 'missed'}`);
console.log(`CPU (user + system, process tree) Maqam / bare: median **${median(cpuRatios).toFixed(3)}** (${spread(cpuRatios)})`);
console.log(`Maqam's wall over its own ffmpeg's (what it adds beyond the encode): median **${median(ownRatios).toFixed(3)}** (${spread(ownRatios)})`);
const bareWalls = runs.filter((run) => run.side === 'bare').map((run) => run.wallSeconds);
console.log(`bare runs' own spread: ${Math.min(...bareWalls).toFixed(1)} to ${Math.max(...bareWalls).toFixed(1)} s wall; ${((Date.now() - started) / 60000).toFixed(1)} minutes in all`);

const results = { bench: 'video-packaging', at: new Date().toISOString(), source: { file: source, ...probed, frameRate, durationMs }, rounds: ROUNDS, runs, wallRatios, cpuRatios, ownRatios, wallRatio: median(wallRatios), cpuRatio: median(cpuRatios), ownRatio: median(ownRatios) };
const out = join(RESULTS, `video-packaging-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
writeFileSync(out, JSON.stringify(results, null, 2));
console.log(`\nwritten to ${out}`);
