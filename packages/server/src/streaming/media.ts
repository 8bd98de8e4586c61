import { spawn } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, rm, stat, statfs } from 'node:fs/promises';
import { join } from 'node:path';
import type { Db } from '../storage/database.ts';
import { PACKAGED_TIERS, type Tier } from './qualities.ts';
import { createStreamingRepo } from './streaming.repo.ts';

export class MediaError extends Error {
  override name = 'MediaError';
}

/** A song's media directory: a hash, so any id is a safe file name. */
export function mediaDirectoryOf(songId: string): string {
  return createHash('sha256').update(songId).digest('hex').slice(0, 32);
}

/**
 * Runs ffmpeg or ffprobe and answers its standard output; a failure is a
 * MediaError with the tool's last line of complaint (never a stack trace).
 */
export function runMediaTool(program: 'ffmpeg' | 'ffprobe', args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const stdout: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', (error: NodeJS.ErrnoException) =>
      reject(error.code === 'ENOENT' ? new MediaError(`${program} is not installed (Debian: apt-get install ffmpeg); it is needed to package media`) : error),
    );
    child.on('exit', (code) =>
      code === 0
        ? resolve(Buffer.concat(stdout).toString('utf8'))
        : reject(new MediaError(`${program} ${program === 'ffprobe' ? 'could not read' : 'could not package'} the file: ${stderr.trim().split('\n').pop() || `exit ${code}`}`)));
  });
}

async function ffmpeg(args: string[]): Promise<void> {
  await runMediaTool('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-nostdin', '-y', ...args]);
}

const LOSSLESS_CODECS = /^(?:flac|alac|wavpack|ape|tta|truehd|mlp|pcm_\w+)$/;

/** What a source is: its audio codec and bit rate (kbps; undefined when ffprobe cannot tell). */
async function probe(file: string): Promise<{ codec: string; bitrateKbps: number | undefined }> {
  const output = await runMediaTool('ffprobe', ['-v', 'error', '-select_streams', 'a:0', '-show_entries', 'stream=codec_name,bit_rate:format=bit_rate', '-of', 'json', file])
    .catch((error: unknown) => {
      if (error instanceof MediaError && !error.message.includes('not installed')) return '{}';
      throw error;
    });
  const parsed = (() => {
    try {
      return JSON.parse(output) as { streams?: { codec_name?: string; bit_rate?: string }[]; format?: { bit_rate?: string } };
    } catch {
      return {};
    }
  })();
  const stream = parsed.streams?.[0];
  if (stream?.codec_name === undefined) throw new MediaError('ffmpeg could not read or encode the file: no audio stream');
  const bitRate = Number(stream.bit_rate ?? parsed.format?.bit_rate);
  return { codec: stream.codec_name, bitrateKbps: Number.isFinite(bitRate) && bitRate > 0 ? bitRate / 1000 : undefined };
}

/**
 * The tiers worth packaging from a source: every one from a lossless source;
 * from a lossy one, never LOSSLESS and no AAC tier above the source's own
 * bit rate (a 32 kbps MP3 gives LOW only: encoding it at 256 kbps adds bytes,
 * not sound). The lowest tier is always made.
 */
export function tiersFor(source: { codec: string; bitrateKbps: number | undefined }): Tier[] {
  if (LOSSLESS_CODECS.test(source.codec)) return [...PACKAGED_TIERS];
  const lossy = PACKAGED_TIERS.filter((tier) => tier.quality !== 'AUDIO_QUALITY_LOSSLESS');
  // 10% headroom: a "128 kbps" MP3 often measures 127.9.
  const kept = lossy.filter((tier, i) => i === 0 || source.bitrateKbps === undefined || tier.bitrateKbps <= source.bitrateKbps * 1.1);
  return kept;
}

/** ffmpeg's encoder and HLS muxer settings of a tier, writing into `directory`. */
function encoderArgs(tier: Tier, directory: string): string[] {
  const hls = ['-f', 'hls', '-hls_time', '6', '-hls_playlist_type', 'vod'];
  if (tier.container === 'mpegts') {
    return ['-c:a', tier.codec, '-b:a', `${tier.bitrateKbps}k`, ...hls, '-hls_segment_type', 'mpegts', '-hls_segment_filename', join(directory, 'seg%03d.ts')];
  }
  // FLAC at CD resolution. ffmpeg 5 still calls FLAC in MP4 experimental
  // (6.0 dropped the flag); the format is specified and browsers play it.
  return [
    '-c:a', tier.codec, '-sample_fmt', 's16', '-ar', '44100', '-strict', '-2',
    ...hls, '-hls_segment_type', 'fmp4', '-hls_fmp4_init_filename', 'init.mp4', '-hls_segment_filename', join(directory, 'seg%03d.m4s'),
  ];
}

/**
 * Checks what ffmpeg wrote into `directory`: a playlist that ends, and every
 * file it names not empty. ffmpeg's HLS muxer exits 0 on a full disk, having
 * written empty files (seen with Debian's ffmpeg 5.1), so its exit code alone
 * would publish silence.
 */
async function checkPackage(directory: string): Promise<void> {
  const playlist = await readFile(join(directory, 'index.m3u8'), 'utf8').catch(() => '');
  const files = [...playlist.matchAll(/^(?!#)(\S+)$|URI="([^"]+)"/gm)].map((match) => match[1] ?? match[2]!);
  const sizes = await Promise.all(files.map((file) => stat(join(directory, file)).then((stats) => stats.size, () => 0)));
  if (playlist.includes('#EXT-X-ENDLIST') && files.length > 0 && sizes.every((size) => size > 0)) return;
  const { bavail, bsize } = await statfs(directory);
  throw new MediaError(bavail * bsize < 1024 * 1024
    ? `ffmpeg could not package the file: no space left on device (the media directory's disk is full)`
    : 'ffmpeg could not package the file: it wrote an incomplete package');
}

/**
 * Packages any audio file ffmpeg can read into HLS (6 s segments) at the
 * tiers its quality allows (AAC in MPEG-TS at 64, 128 and 256 kbps; FLAC in
 * fragmented MP4 from lossless sources only; see `tiersFor`),
 * writes it under the media directory and records it. Each tier is encoded
 * into a fresh directory, checked, recorded, and only then renamed into
 * place (its directory's name does not change), so a failure (a full disk
 * included) leaves the previous media and its records untouched.
 */
export async function addMedia(db: Db, mediaRoot: string, songId: string, file: string): Promise<Tier[]> {
  const media = createStreamingRepo(db);
  if (!(await media.songExists(songId))) throw new MediaError(`no song with id "${songId}"`);
  const tiers = tiersFor(await probe(file));
  const songDirectory = mediaDirectoryOf(songId);
  await mkdir(join(mediaRoot, songDirectory), { recursive: true });
  const staged: { tier: Tier; temp: string; final: string }[] = [];
  try {
    for (const tier of tiers) {
      const temp = join(mediaRoot, songDirectory, `.${tier.quality}-${randomUUID()}`);
      await mkdir(temp);
      staged.push({ tier, temp, final: join(mediaRoot, songDirectory, tier.quality) });
      await ffmpeg(['-i', file, '-vn', '-ac', '2', ...encoderArgs(tier, temp), join(temp, 'index.m3u8')]);
      await checkPackage(temp);
    }
    const now = Date.now();
    await media.recordMedia(songId, tiers.map((tier) => ({
      quality: tier.quality, codec: tier.codec, bitrate_kbps: tier.bitrateKbps, directory: join(songDirectory, tier.quality), created_at: now,
    })));
    for (const { final, temp } of staged) {
      await rm(final, { recursive: true, force: true });
      await rename(temp, final);
    }
    // Tiers an earlier, better source had and this one does not: they would no longer be this recording.
    for (const tier of PACKAGED_TIERS) {
      if (!tiers.includes(tier)) await rm(join(mediaRoot, songDirectory, tier.quality), { recursive: true, force: true });
    }
  } finally {
    for (const { temp } of staged) await rm(temp, { recursive: true, force: true });
  }
  return tiers;
}
