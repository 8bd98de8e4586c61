import { spawn } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { mkdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Db } from '../storage/database.ts';
import { PACKAGED_TIERS, type Tier } from './qualities.ts';

export class MediaError extends Error {
  override name = 'MediaError';
}

/** A song's media directory: a hash, so any id is a safe file name. */
export function mediaDirectoryOf(songId: string): string {
  return createHash('sha256').update(songId).digest('hex').slice(0, 32);
}

function ffmpeg(args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-nostdin', '-y', ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', (error: NodeJS.ErrnoException) =>
      reject(error.code === 'ENOENT' ? new MediaError('ffmpeg is not installed (Debian: apt-get install ffmpeg); it is needed to package media') : error),
    );
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new MediaError(`ffmpeg could not read or encode the file: ${stderr.trim().split('\n').pop() ?? `exit ${code}`}`))));
  });
}

/**
 * Packages any audio file ffmpeg can read into HLS (6 s MPEG-TS segments) at
 * every tier, writes it under the media directory and records it. Each tier
 * is encoded into a fresh directory and renamed into place, so a failure
 * leaves the previous media untouched.
 */
export async function addMedia(db: Db, mediaRoot: string, songId: string, file: string): Promise<Tier[]> {
  const song = await db.selectFrom('songs').select('id').where('id', '=', songId).executeTakeFirst();
  if (!song) throw new MediaError(`no song with id "${songId}"`);
  const songDirectory = mediaDirectoryOf(songId);
  await mkdir(join(mediaRoot, songDirectory), { recursive: true });
  const staged: { tier: Tier; temp: string; final: string }[] = [];
  try {
    for (const tier of PACKAGED_TIERS) {
      const temp = join(mediaRoot, songDirectory, `.${tier.quality}-${randomUUID()}`);
      await mkdir(temp);
      staged.push({ tier, temp, final: join(mediaRoot, songDirectory, tier.quality) });
      await ffmpeg([
        '-i', file, '-vn', '-ac', '2', '-c:a', 'aac', '-b:a', `${tier.bitrateKbps}k`,
        '-f', 'hls', '-hls_time', '6', '-hls_playlist_type', 'vod', '-hls_segment_type', 'mpegts',
        '-hls_segment_filename', join(temp, 'seg%03d.ts'), join(temp, 'index.m3u8'),
      ]);
    }
    for (const { final, temp } of staged) {
      await rm(final, { recursive: true, force: true });
      await rename(temp, final);
    }
  } finally {
    for (const { temp } of staged) await rm(temp, { recursive: true, force: true });
  }
  const now = Date.now();
  for (const tier of PACKAGED_TIERS) {
    await db
      .insertInto('song_media')
      .values({ song_id: songId, quality: tier.quality, codec: tier.codec, bitrate_kbps: tier.bitrateKbps, directory: join(songDirectory, tier.quality), created_at: now })
      .onConflict((oc) => oc.columns(['song_id', 'quality']).doUpdateSet((eb) => ({
        codec: eb.ref('excluded.codec'), bitrate_kbps: eb.ref('excluded.bitrate_kbps'), directory: eb.ref('excluded.directory'), created_at: eb.ref('excluded.created_at'),
      })))
      .execute();
  }
  return [...PACKAGED_TIERS];
}
