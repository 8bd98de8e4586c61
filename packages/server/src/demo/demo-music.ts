import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { knownSongs } from '../import/known-artists.ts';
import { addMedia } from '../streaming/media.ts';
import { createStreamingRepo } from '../streaming/streaming.repo.ts';
import type { Storage } from '../storage/storage.ts';
import { Worker } from 'node:worker_threads';
import { MAQAMAT, planPiece } from './maqam-music.ts';

/**
 * The demo's music: a piece of generated music (maqam-music.ts) for every
 * song of the known artists, so that every album the demo's home shows
 * plays through. The songs of one album share its maqam.
 */

/** The piece a known song plays: its album decides the maqam, its track the rest. */
function pieceOf(song: { albumIndex: number; trackNumber: number }): number {
  return song.albumIndex + MAQAMAT.length * (song.trackNumber - 1);
}

/** The piece a known song plays (the music of a title whose soundtrack lists it); undefined for any other song. */
export function pieceOfSong(songId: string): number | undefined {
  const song = knownSongs().find((known) => known.id === songId);
  return song && pieceOf(song);
}

/** Renders piece `piece` into `file` on a thread of its own (render-piece-worker.ts). */
export async function renderPieceOnThread(piece: number, file: string): Promise<void> {
  const worker = new Worker(new URL('./render-piece-worker.ts', import.meta.url), { workerData: { piece, file } });
  const [code] = (await once(worker, 'exit')) as [number];
  if (code !== 0) throw new Error(`the demo's music could not be rendered (piece ${piece}, exit ${code})`);
}

/** Each known song's length, the length of its piece: the catalog's `durationMs` for it. */
export function demoMusicDurations(): Record<string, number> {
  return Object.fromEntries(knownSongs().map((song) => [song.id, planPiece(pieceOf(song)).durationMs]));
}

/**
 * Renders and packages (every tier) the known songs that have no media yet,
 * one at a time, those of the albums the demo's home shows first (at most
 * `limit` songs): a server's demo does this after it has started listening,
 * so it answers meanwhile. `onReady` is told of each song as it becomes
 * playable, with how many are ready of how many.
 */
export async function packageDemoMusic(
  storage: Storage,
  mediaRoot: string,
  onReady: (songId: string, ready: number, total: number) => void,
  options: { signal?: AbortSignal; limit?: number } = {},
): Promise<void> {
  const { signal, limit = Infinity } = options;
  // The albums the home shows first (a stable sort keeps the catalog's order otherwise); `limit` keeps that many.
  const songs = knownSongs().sort((a, b) => Number(b.newest) - Number(a.newest)).slice(0, limit);
  const media = createStreamingRepo(storage.db);
  const missing: typeof songs = [];
  let ready = 0;
  for (const song of songs) {
    if (await media.hasMedia(song.id)) onReady(song.id, ++ready, songs.length);
    else missing.push(song);
  }
  if (missing.length === 0) return;
  const dir = await mkdtemp(join(tmpdir(), 'maqam-demo-music-'));
  try {
    for (const song of missing) {
      if (signal?.aborted) return;
      const file = join(dir, `${pieceOf(song)}.wav`);
      await renderPieceOnThread(pieceOf(song), file);
      await addMedia(storage.db, mediaRoot, song.id, file);
      await rm(file, { force: true });
      onReady(song.id, ++ready, songs.length);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
