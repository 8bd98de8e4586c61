import { existsSync, statSync } from 'node:fs';
import { addMedia, addVideo, findVideoTitles, MediaError, scanMusicFolder, type Config, type PackagedVideo } from '@maqam/server';
import { withStorage } from '../context.ts';
import { parsePositiveInteger, progressMeter, UsageError, type Output } from '../output.ts';

const USAGE = 'maqam media add SONG_ID AUDIO_FILE | media add-video MOVIE_OR_EPISODE_ID FILE [--audio LANG=FILE ...] [--subtitles LANG=FILE[:forced] ...] | media scan DIR [--concurrency N]';
/** Problems printed on standard error; --json lists them all. */
const SHOWN_PROBLEMS = 20;

export interface MediaFlags {
  concurrency?: string | undefined;
  audio?: string[] | undefined;
  subtitles?: string[] | undefined;
}

export async function media(config: Config, out: Output, [action, first, second]: (string | undefined)[], flags: MediaFlags = {}): Promise<number> {
  if (action === 'scan') return scan(config, out, first, flags);
  if (action === 'add-video') return addVideoCommand(config, out, first, second, flags);
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

/** "ar=/films/dub.m4a", "en=subs.srt:forced": a language and a file, maybe forced (subtitles only). */
function languageFile(value: string, option: '--audio' | '--subtitles'): { language: string; file: string; forced: boolean } {
  const at = value.indexOf('=');
  const forced = option === '--subtitles' && value.endsWith(':forced');
  const file = value.slice(at + 1, forced ? -':forced'.length : undefined);
  if (at < 1 || file === '') throw new UsageError(`${option} takes LANG=FILE${option === '--subtitles' ? '[:forced]' : ''}, like ${option === '--audio' ? 'en=dub.m4a' : 'ar=film.srt'}; got "${value}"`);
  if (!existsSync(file)) throw new UsageError(`no such file: ${file}`);
  return { language: value.slice(0, at), file, forced };
}

const megabits = (bitsPerSecond: number) => `${(bitsPerSecond / 1_000_000).toFixed(1)} Mb/s`;
const clock = (ms: number) => {
  const seconds = Math.floor(ms / 1000);
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
};

/** What `add-video` prints: the package's record without its key (the key is served only signed, never printed). */
function summary(pkg: PackagedVideo) {
  return {
    kind: pkg.title.kind,
    id: pkg.title.id,
    directory: pkg.directory,
    durationMs: pkg.durationMs,
    renditions: pkg.renditions.map(({ quality, width, height, bandwidth, averageBandwidth, codecs, frameRate }) => ({ quality, width, height, bandwidth, averageBandwidth, codecs, frameRate })),
    audio: pkg.audio.map(({ language, name, isDefault, codecs, channels }) => ({ language, name, isDefault, codecs, channels })),
    subtitles: pkg.subtitles.map(({ language, name, forced }) => ({ language, name, forced })),
  };
}

async function addVideoCommand(config: Config, out: Output, id: string | undefined, file: string | undefined, flags: MediaFlags): Promise<number> {
  if (!id || !file) throw new UsageError('media add-video needs a movie or episode id and a file: maqam media add-video MOVIE_OR_EPISODE_ID FILE [--audio LANG=FILE ...] [--subtitles LANG=FILE[:forced] ...]');
  if (!existsSync(file)) throw new UsageError(`no such file: ${file}`);
  const audio = (flags.audio ?? []).map((value) => languageFile(value, '--audio')).map(({ language, file }) => ({ language, file }));
  const subtitles = (flags.subtitles ?? []).map((value) => languageFile(value, '--subtitles'));
  return withStorage(config, out, async (storage) => {
    const titles = await findVideoTitles(storage.db, id);
    if (titles.length !== 1) {
      out.info(titles.length === 0 ? `maqam: no movie or episode with id "${id}"` : `maqam: "${id}" is the id of a movie and of an episode; give each its own id`);
      return 1;
    }
    const title = titles[0]!;
    try {
      out.info(`packaging ${file} for ${title.kind} ${id} with ffmpeg...`);
      const pkg = await addVideo(storage.db, config.mediaDirectory, title, file, {
        audio,
        subtitles,
        onProgress: ({ encodedMs, durationMs, speed }) =>
          out.progress(encodedMs / durationMs, `${clock(encodedMs)} of ${clock(durationMs)}${speed === undefined ? '' : ` · ${speed.toFixed(2)}x`}`),
      });
      out.done();
      const record = summary(pkg);
      out.record(record, () =>
        [
          `packaged ${title.kind} ${id} (${clock(pkg.durationMs)}) into ${pkg.directory}`,
          ...record.renditions.map((r) => `  ${r.quality.padEnd(21)} ${`${r.width}x${r.height}`.padEnd(9)} ${megabits(r.bandwidth)} peak, ${megabits(r.averageBandwidth)} average  ${r.codecs}`),
          `  audio: ${record.audio.map((a) => `${a.name} (${a.language}${a.isDefault ? ', default' : ''})`).join(', ') || 'none'}`,
          `  subtitles: ${record.subtitles.map((s) => `${s.name} (${s.language}${s.forced ? ', forced' : ''})`).join(', ') || 'none'}`,
        ].join('\n'));
      return 0;
    } catch (error) {
      out.done();
      if (error instanceof MediaError) {
        out.info(`maqam: ${error.message}`);
        return 1;
      }
      throw error;
    }
  });
}
