import { existsSync, statSync } from 'node:fs';
import { addMedia, MediaError, scanMusicFolder, type Config } from '@maqam/server';
import { withStorage } from '../context.ts';
import { parsePositiveInteger, progressMeter, UsageError, type Output } from '../output.ts';

const USAGE = 'maqam media add SONG_ID AUDIO_FILE | media scan DIR [--concurrency N]';
/** Problems printed on standard error; --json lists them all. */
const SHOWN_PROBLEMS = 20;

export async function media(config: Config, out: Output, [action, first, second]: (string | undefined)[], flags: { concurrency?: string } = {}): Promise<number> {
  if (action === 'scan') return scan(config, out, first, flags);
  const [songId, file] = [first, second];
  if (action !== 'add' || !songId || !file) throw new UsageError(USAGE);
  if (!existsSync(file)) throw new UsageError(`no such file: ${file}`);
  return withStorage(config, out, async (storage) => {
    try {
      out.info(`packaging ${file} for ${songId} with ffmpeg...`);
      const tiers = await addMedia(storage.db, config.mediaDirectory, songId, file);
      const record = { songId, qualities: tiers.map((t) => ({ label: t.quality, bitrateKbps: t.bitrateKbps, codec: t.codec })) };
      out.record(record, () => `packaged ${songId}: ${tiers.map((t) => `${t.quality} (${t.bitrateKbps} kbps ${t.codec})`).join(', ')}`);
      return 0;
    } catch (error) {
      if (error instanceof MediaError) {
        out.info(`maqam: ${error.message}`);
        return 1;
      }
      throw error;
    }
  });
}

/** Ids printed of each kind; the rest are counted (--json lists them all). */
const SHOWN_IDS = 50;
const listed = (lines: readonly string[]) =>
  lines.length > SHOWN_IDS ? [...lines.slice(0, SHOWN_IDS), `... and ${lines.length - SHOWN_IDS} more (--json lists them all)`] : lines;

async function scan(config: Config, out: Output, directory: string | undefined, flags: { concurrency?: string }): Promise<number> {
  if (!directory) throw new UsageError('media scan needs a folder: maqam media scan DIR');
  if (!existsSync(directory) || !statSync(directory).isDirectory()) throw new UsageError(`no such folder: ${directory}`);
  const concurrency = flags.concurrency === undefined ? undefined : parsePositiveInteger(flags.concurrency, '--concurrency');
  const meter = progressMeter('steps');
  return withStorage(config, out, async (storage) => {
    out.info(`scanning ${directory} (tags with ffprobe, media with ffmpeg)...`);
    const summary = await scanMusicFolder(storage, directory, {
      mediaRoot: config.mediaDirectory,
      ...(concurrency === undefined ? {} : { concurrency }),
      onProgress: (done, total) => out.progress(done / total, meter(done, done / total)),
    });
    out.done();
    for (const problem of summary.problems.slice(0, SHOWN_PROBLEMS)) out.info(`${problem.file}: ${problem.message}`);
    if (summary.problems.length > SHOWN_PROBLEMS) out.info(`... and ${summary.problems.length - SHOWN_PROBLEMS} more`);
    const [partial] = summary.partialDates;
    if (partial !== undefined) {
      // The catalog's releaseDate is a whole date: a year alone is stored as its January 1st, which must not pass for a day the tags gave.
      const count = summary.partialDates.length;
      out.info(
        `${count === 1 ? '1 file gives' : `${count} files give`} only a year or a month as its date (${partial.file}: ${partial.date}); ` +
          `the catalog takes whole dates, so ${count === 1 ? 'it is' : 'they are'} dated the first day of it (${partial.releaseDate})` +
          `${count > 1 ? '; --json lists them' : ''}`,
      );
    }
    out.record(summary, () => {
      // The ids to use with the API, a line each: albums and artists, then songs by file (--json lists them all).
      const { artists, albums, songs } = summary.ids;
      const lines = [
        ...listed(albums.map((album) => `album  ${album.id}  ${album.title}`)),
        ...listed(artists.map((artist) => `artist ${artist.id}  ${artist.name}`)),
        ...listed(songs.map((song) => `song   ${song.id}  ${song.file}`)),
        `scanned ${summary.files} files: ${summary.packaged} packaged, ${summary.unchanged} unchanged, ${summary.failed} failed; ` +
          `wrote ${summary.artists} artists, ${summary.albums} albums, ${summary.songs} songs, ${summary.lyrics} lyrics`,
      ];
      return lines.join('\n');
    });
    return summary.failed > 0 ? 1 : 0;
  });
}
