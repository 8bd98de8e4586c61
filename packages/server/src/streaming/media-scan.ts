import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, readdir, readFile, realpath, rename, rm, stat, writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { basename, dirname, extname, join, relative, sep } from 'node:path';
import type { AlbumRecord, ArtistRecord, ImportRecord, LyricsRecord, SongRecord } from '@maqam/contract';
import { parseImportLine } from '../import/import-batch.ts';
import { runImport } from '../import/import.ts';
import type { Storage } from '../storage/storage.ts';
import { genreSlugs } from '../text/genres.ts';
import { addMedia, MediaError, mediaDirectoryOf, runMediaTool } from './media.ts';
import { createStreamingRepo } from './streaming.repo.ts';

/** Audio files by extension: what ffmpeg reads and people keep in music folders. */
const AUDIO = new Set(['.mp3', '.m4a', '.aac', '.mp4', '.flac', '.wav', '.aif', '.aiff', '.ogg', '.oga', '.opus', '.wma', '.wv', '.ape', '.alac']);
/** Cover pictures beside the files, when none is embedded. */
const FOLDER_COVERS = ['cover.jpg', 'cover.jpeg', 'cover.png', 'folder.jpg', 'folder.jpeg', 'folder.png', 'front.jpg', 'front.png'];
/** The largest side of a cover as served. */
const COVER_SIZE = 600;
/** Records written per transaction. */
const BATCH = 2000;

/** What one file's tags say, after reading them with ffprobe. */
export interface ScannedTrack {
  readonly file: string;
  readonly title: string;
  readonly artists: readonly string[];
  readonly album: string;
  readonly albumArtist: string;
  readonly trackNumber: number;
  readonly discNumber: number;
  /** As the catalog takes it, YYYY-MM-DD: a year or a month alone as its first day (`datePrecision` says which). */
  readonly releaseDate: string;
  /** How much of the date the tags gave: `day` (or none at all), else `year` or `month`, and the tag as written. */
  readonly datePrecision: DatePrecision;
  readonly dateTag: string | undefined;
  /** As slugs, the catalog's spelling (text/genres.ts): "Arabic Pop" is arabic-pop. */
  readonly genres: readonly string[];
  readonly isrc: string;
  readonly durationMs: number;
  readonly hasCover: boolean;
  /** Lyrics from a sidecar .lrc (synced) or the file's lyrics tag. */
  readonly lyrics: { lrc: string } | { lines: string[] } | undefined;
}

export interface ScanProblem {
  readonly file: string;
  readonly message: string;
}

/** How much of a release date a file's tags gave. */
export type DatePrecision = 'day' | 'month' | 'year' | 'none';

/**
 * A file whose date tag gives only a year (ID3's TYER, "2015") or a year
 * and month: the catalog's releaseDate is a whole date (YYYY-MM-DD, contract
 * section 9), with no precision beside it, so its songs and album are dated
 * the first day of that year or month. Said, so nobody reads 2015-01-01 as
 * a day the tags gave.
 */
export interface PartialDate {
  readonly file: string;
  /** The tag as written, e.g. "2015". */
  readonly date: string;
  readonly precision: 'year' | 'month';
  /** What the catalog holds for it, e.g. "2015-01-01". */
  readonly releaseDate: string;
}

export interface ScanSummary {
  readonly files: number;
  /** Files whose media was packaged by this scan. */
  readonly packaged: number;
  /** Files already packaged from the same content: left as they were. */
  readonly unchanged: number;
  readonly failed: number;
  /** Records written (upserted by their ids: a rescan writes the same ones again). */
  readonly artists: number;
  readonly albums: number;
  readonly songs: number;
  readonly lyrics: number;
  readonly problems: readonly ScanProblem[];
  /** Files whose date tag gave only a year or a month (PartialDate), in path order. */
  readonly partialDates: readonly PartialDate[];
  /** The ids of what the scan wrote, to use with the API: artists and albums by name, songs by file (relative to the folder). */
  readonly ids: {
    readonly artists: readonly { readonly id: string; readonly name: string }[];
    readonly albums: readonly { readonly id: string; readonly title: string }[];
    readonly songs: readonly { readonly id: string; readonly file: string }[];
  };
}

export interface ScanOptions {
  readonly mediaRoot: string;
  /** Files probed and packaged at once (default: the machine's cores). */
  readonly concurrency?: number;
  /** Called after each file is done (or failed) with the count so far. */
  readonly onProgress?: (done: number, total: number) => void;
}

/** Ids that do not change from scan to scan, whatever the file's path: from what the tags name. */
function stableId(kind: 'artist' | 'album' | 'song', ...parts: string[]): string {
  const key = parts.map((part) => part.normalize('NFKC').trim().toLowerCase()).join('\u0000');
  return `${kind}-${createHash('sha256').update(key).digest('base64url').slice(0, 16)}`;
}

/** The album a track is on: its album artist's and its album title's. */
const albumIdOf = (track: ScannedTrack) => stableId('album', track.albumArtist, track.album);

/** The language a name is written in, as far as its script tells: Arabic letters make it Arabic. */
const languageOf = (text: string) => (/[\u0600-\u06FF]/.test(text) ? 'ar' : 'en');

/** "3/12" or "3" to 3; anything else to the fallback. */
function ordinal(value: string | undefined, fallback: number): number {
  const n = Number.parseInt(value ?? '', 10);
  return Number.isInteger(n) && n > 0 && n < 100_000 ? n : fallback;
}

/**
 * A release date as the catalog takes it (YYYY-MM-DD), from "2004", "2004-05"
 * or "2004-05-01T...", with how much of it the tag gave; a year or a month
 * alone is its first day. Unknown: 1970-01-01.
 */
function releaseDateOf(value: string | undefined): { releaseDate: string; precision: DatePrecision } {
  const match = /^(\d{4})(?:-(\d{2}))?(?:-(\d{2}))?/.exec(value?.trim() ?? '');
  if (!match) return { releaseDate: '1970-01-01', precision: 'none' };
  return {
    releaseDate: `${match[1]}-${match[2] ?? '01'}-${match[3] ?? '01'}`,
    precision: match[3] !== undefined ? 'day' : match[2] !== undefined ? 'month' : 'year',
  };
}

/** Multi-valued tags: ffprobe joins repeated Vorbis comments with ";", ID3v2.4 uses "/" or NUL. */
const splitValues = (value: string | undefined) => (value ?? '').split(/\s*[;/\u0000]\s*/).map((v) => v.trim()).filter(Boolean);

/**
 * The artists a credit names: "The Oud Trio feat. عمرو", "A ft. B",
 * "A featuring B", "Title (feat. B)", "A & B" and the Arabic "A و B" (the conjunction
 * standing alone: "عمرو ونانسي" is left whole, since a name may begin with و).
 * A duo that calls itself "Simon & Garfunkel" is split too: tags have no way to
 * tell a duo's name from two credits, and two credits are far more common.
 */
export function splitCredits(credit: string): string[] {
  return credit.split(/\s+(?:feat\.?|ft\.?|featuring|&|و)\s+|\s*\(\s*(?:feat\.?|ft\.?|featuring)\s+|\)\s*$/iu)
    .map((name) => name.trim()).filter(Boolean);
}

/**
 * The scanned folder's boundary: a path is read only if it resolves (links
 * followed, `..` folded) to a regular file inside the folder, and then by its
 * resolved path. A link in a music folder, to a sidecar or a cover, must not
 * publish a file from elsewhere on the machine (GetLyrics served the text
 * of a `.lrc` linked out of the folder).
 */
export type FolderBoundary = (path: string) => Promise<string | undefined>;

export async function folderBoundary(root: string): Promise<FolderBoundary> {
  const inside = (await realpath(root)) + sep;
  return async (path) => {
    const resolved = await realpath(path).catch(() => undefined);
    if (resolved === undefined || !resolved.startsWith(inside)) return undefined;
    return (await stat(resolved).catch(() => null))?.isFile() ? resolved : undefined;
  };
}

/** Audio files under `directory`; links are not followed (to files or folders), so all are inside it. */
async function* audioFiles(directory: string): AsyncGenerator<string> {
  const entries = await readdir(directory, { withFileTypes: true });
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    if (entry.name.startsWith('.')) continue;
    const path = join(directory, entry.name);
    if (entry.isDirectory()) yield* audioFiles(path);
    else if (entry.isFile() && AUDIO.has(extname(entry.name).toLowerCase())) yield path;
  }
}

/** Reads one file's tags (format and stream tags, any case) and its sidecar lyrics, if that is inside the folder. */
export async function readTrack(file: string, boundary: FolderBoundary): Promise<ScannedTrack> {
  const output = await runMediaTool('ffprobe', ['-v', 'error', '-show_format', '-show_streams', '-of', 'json', file]);
  const probed = JSON.parse(output) as {
    format?: { duration?: string; tags?: Record<string, string> };
    streams?: { codec_type?: string; disposition?: { attached_pic?: number }; tags?: Record<string, string> }[];
  };
  const audio = probed.streams?.find((stream) => stream.codec_type === 'audio');
  if (!audio) throw new MediaError('no audio stream');
  const tags = new Map<string, string>();
  for (const source of [audio.tags, probed.format?.tags]) {
    for (const [key, value] of Object.entries(source ?? {})) tags.set(key.toLowerCase().replace(/[\s_-]/g, ''), value);
  }
  const tag = (...names: string[]) => names.map((name) => tags.get(name)).find((value) => value !== undefined && value.trim() !== '')?.trim();
  const fileTitle = basename(file, extname(file)).replace(/^\d+[\s.-]+/, '');
  const artists = [...new Set(splitValues(tag('artist', 'artists', 'performer', 'albumartist')).flatMap(splitCredits))];
  const albumArtist = tag('albumartist', 'album artist') ?? artists[0] ?? 'Unknown artist';
  const sidecar = await boundary(join(dirname(file), `${basename(file, extname(file))}.lrc`));
  const lrc = sidecar === undefined ? undefined : await readFile(sidecar, 'utf8').catch(() => undefined);
  const lyricsTag = tag('lyrics', 'unsyncedlyrics', ...[...tags.keys()].filter((key) => key.startsWith('lyrics')));
  const duration = Number(probed.format?.duration);
  const dateTag = tag('date', 'year', 'originaldate', 'releasedate');
  const { releaseDate, precision } = releaseDateOf(dateTag);
  return {
    file,
    title: tag('title') ?? fileTitle,
    artists: artists.length > 0 ? artists : [albumArtist],
    album: tag('album') ?? basename(dirname(file)),
    albumArtist,
    trackNumber: ordinal(tag('track', 'tracknumber'), 1),
    discNumber: ordinal(tag('disc', 'discnumber'), 1),
    releaseDate,
    datePrecision: precision,
    dateTag,
    genres: genreSlugs(splitValues(tag('genre'))),
    isrc: (tag('isrc', 'tsrc') ?? '').toUpperCase().replace(/[^A-Z0-9]/g, '').slice(0, 12),
    durationMs: Number.isFinite(duration) && duration > 0 ? Math.round(duration * 1000) : 1,
    hasCover: probed.streams?.some((stream) => stream.disposition?.attached_pic === 1) ?? false,
    lyrics: lrc !== undefined && lrc.trim() !== ''
      ? { lrc }
      : lyricsTag !== undefined
        ? /^\s*\[\d+:\d{2}/.test(lyricsTag) ? { lrc: lyricsTag } : { lines: lyricsTag.split(/\r?\n/) }
        : undefined,
  };
}

/**
 * The catalog records of a set of tracks: artists, albums (with their
 * covers' URLs), songs, lyrics, each checked as the importer checks a line;
 * a track whose records do not pass is reported and left out.
 */
export function scanRecords(
  tracks: readonly ScannedTrack[],
  coverOf: (albumId: string) => string | undefined,
  problems: ScanProblem[],
): { records: ImportRecord[]; songIds: Map<string, string> } {
  const artists = new Map<string, ArtistRecord>();
  const albums = new Map<string, AlbumRecord>();
  const songs = new Map<string, SongRecord>();
  const lyrics: LyricsRecord[] = [];
  const songIds = new Map<string, string>();
  const valid = <T extends ImportRecord>(record: T): T => parseImportLine(JSON.stringify(record)) as T;
  const artistId = (name: string) => {
    const id = stableId('artist', name);
    if (!artists.has(id)) {
      artists.set(id, valid({
        kind: 'artist', id, name: { [languageOf(name)]: name }, originalLanguage: languageOf(name), genres: [], followerCount: '0',
        monthlyListeners: '0', isVerified: false, socialLinks: [], artwork: [], nationality: '',
      } as ArtistRecord));
    }
    return id;
  };
  for (const track of tracks) {
    try {
      addTrack(track);
    } catch (error) {
      problems.push({ file: track.file, message: `its tags do not make a catalog record: ${(error as Error).message}` });
    }
  }
  function addTrack(track: ScannedTrack): void {
    const albumId = albumIdOf(track);
    if (!albums.has(albumId)) {
      const cover = coverOf(albumId);
      albums.set(albumId, valid({
        kind: 'album', id: albumId, title: { [languageOf(track.album)]: track.album }, originalLanguage: languageOf(track.album),
        artistIds: [artistId(track.albumArtist)], releaseDate: track.releaseDate, genres: [...track.genres],
        artwork: cover === undefined ? [] : [{ url: cover, width: COVER_SIZE, height: COVER_SIZE }],
      } as AlbumRecord));
    }
    const id = track.isrc !== '' ? stableId('song', 'isrc', track.isrc) : stableId('song', albumId, String(track.discNumber), String(track.trackNumber), track.title);
    const song = valid({
      kind: 'song', id, title: { [languageOf(track.title)]: track.title }, originalLanguage: languageOf(track.title),
      artistIds: [...new Set(track.artists.map(artistId))], albumId, durationMs: Math.min(track.durationMs, 2_147_483_647),
      trackNumber: track.trackNumber, discNumber: track.discNumber, releaseDate: track.releaseDate, genres: [...track.genres],
      // A song shows its album's cover, as players do.
      isExplicit: false, isrc: track.isrc, popularity: 0, artwork: albums.get(albumId)!.artwork, previewUrl: '',
    } as SongRecord);
    const words = track.lyrics ? valid({ kind: 'lyrics', songId: id, language: languageOf(track.title), ...track.lyrics } as LyricsRecord) : undefined;
    songs.set(id, song);
    songIds.set(track.file, id);
    if (words) lyrics.push(words);
  }
  return { records: [...artists.values(), ...albums.values(), ...songs.values(), ...lyrics], songIds };
}

/** The file a scanned cover is kept in, under the media root (a hash: any id is a safe name). */
export function coverFileOf(mediaRoot: string, albumId: string): string {
  return join(mediaRoot, 'artwork', 'albums', `${mediaDirectoryOf(albumId)}.jpg`);
}

async function sha256Of(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** Runs `work` over `items`, at most `limit` at a time. */
async function inParallel<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) await work(items[next++]!);
  }));
}

/**
 * `maqam media scan`: the self-hosted music server workflow. Walks a folder
 * of audio files, reads their tags with ffprobe, writes artists, albums,
 * songs and lyrics (ids derived from the tags, so a rescan updates rather
 * than duplicates), keeps album covers (embedded or cover.jpg), and
 * packages each file's media, skipping files already packaged from the same
 * content. A file that cannot be read is reported and the scan goes on.
 */
export async function scanMusicFolder(storage: Storage, root: string, options: ScanOptions): Promise<ScanSummary> {
  const boundary = await folderBoundary(root);
  const files: string[] = [];
  for await (const file of audioFiles(root)) files.push(file);
  const concurrency = Math.max(1, options.concurrency ?? availableParallelism());
  const problems: ScanProblem[] = [];
  // A file ffmpeg cannot read, whose tags do not parse, or that the file system refuses is that file's
  // problem; anything else (the database gone, say) stops the scan.
  const fail = (file: string, error: unknown) => {
    const fileSystem = error instanceof Error && typeof (error as NodeJS.ErrnoException).code === 'string' && /^E[A-Z]+$/.test((error as NodeJS.ErrnoException).code!);
    if (!(error instanceof MediaError) && !(error instanceof SyntaxError) && !fileSystem) throw error;
    problems.push({ file, message: (error as Error).message });
  };
  let done = 0;
  const tick = () => options.onProgress?.(++done, files.length * 2);

  // 1. Tags, in parallel.
  const tracks: ScannedTrack[] = [];
  await inParallel(files, concurrency, async (file) => {
    try {
      tracks.push(await readTrack(file, boundary));
    } catch (error) {
      fail(file, error);
      tick(); // it will not be packaged either
    }
    tick();
  });
  tracks.sort((a, b) => (a.file < b.file ? -1 : 1));

  // 2. Covers: the first embedded picture of an album's files, else a cover file in its folder.
  const covers = new Map<string, string>();
  /** A folder's cover file, looked for once a folder. */
  const folderCovers = new Map<string, Promise<string | undefined>>();
  const folderCoverOf = (folder: string) => {
    let found = folderCovers.get(folder);
    if (found === undefined) {
      found = Promise.all(FOLDER_COVERS.map((name) => boundary(join(folder, name))))
        .then((paths) => paths.find((path) => path !== undefined));
      folderCovers.set(folder, found);
    }
    return found;
  };
  for (const track of tracks) {
    const albumId = albumIdOf(track);
    if (covers.has(albumId)) continue;
    const folderCover = track.hasCover ? undefined : await folderCoverOf(dirname(track.file));
    if (!track.hasCover && !folderCover) continue;
    const target = coverFileOf(options.mediaRoot, albumId);
    await mkdir(dirname(target), { recursive: true });
    const temp = `${target}.${process.pid}.tmp.jpg`;
    try {
      const source = track.hasCover ? ['-i', track.file, '-map', '0:v:0'] : ['-i', folderCover!];
      await runMediaTool('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-nostdin', '-y', ...source, '-frames:v', '1',
        '-vf', `scale=${COVER_SIZE}:${COVER_SIZE}:force_original_aspect_ratio=increase,crop=${COVER_SIZE}:${COVER_SIZE}`, '-q:v', '3', temp]);
      await rename(temp, target);
      covers.set(albumId, `/artwork/albums/${encodeURIComponent(albumId)}.jpg`);
    } catch (error) {
      await rm(temp, { force: true });
      fail(track.file, error);
    }
  }

  // 3. The catalog, in batches of records in dependency order (each batch one transaction).
  const { records, songIds } = scanRecords(tracks, (albumId) => covers.get(albumId), problems);
  const counts = { artists: 0, albums: 0, songs: 0, lyrics: 0 };
  await runImport(storage, async (writeBatch) => {
    for (let i = 0; i < records.length; i += BATCH) {
      const written = await writeBatch(records.slice(i, i + BATCH).map((record, j) => ({ line: i + j + 1, record })));
      counts.artists += written.artists;
      counts.albums += written.albums;
      counts.songs += written.songs;
      counts.lyrics += written.lyrics;
    }
  });

  // 4. Media, songs in parallel; a file packaged before from the same bytes is left alone. A song's files one
  // after another, in path order (the last is the song's media): two files of one recording (a FLAC and an MP3
  // with one ISRC) are one song, and packaged at once they replaced each other's directories and, on PostgreSQL,
  // deadlocked recording its qualities.
  let packaged = 0;
  let unchanged = 0;
  const media = createStreamingRepo(storage.db);
  const inPathOrder = (a: { file: string }, b: { file: string }) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0);
  const filesOfSong = new Map<string, ScannedTrack[]>();
  for (const track of tracks) {
    const songId = songIds.get(track.file);
    if (songId === undefined) tick(); // its records were refused above
    else filesOfSong.set(songId, [...(filesOfSong.get(songId) ?? []), track]);
  }
  await inParallel([...filesOfSong], concurrency, async ([songId, files]) => {
    for (const track of files.sort(inPathOrder)) await packageFile(songId, track);
  });
  async function packageFile(songId: string, track: ScannedTrack): Promise<void> {
    const marker = join(options.mediaRoot, mediaDirectoryOf(songId), 'source.sha256');
    try {
      const digest = await sha256Of(track.file);
      if ((await media.hasMedia(songId)) && (await readFile(marker, 'utf8').catch(() => '')) === digest) {
        unchanged++;
      } else {
        await addMedia(storage.db, options.mediaRoot, songId, track.file);
        await writeFile(marker, digest);
        packaged++;
      }
    } catch (error) {
      fail(track.file, error);
    }
    tick();
  }

  // Reported by their path in the folder, in path order.
  const reported = problems.map((problem) => ({ file: relative(root, problem.file), message: problem.message })).sort(inPathOrder);
  const partialDates = tracks.flatMap((track): PartialDate[] => (
    songIds.has(track.file) && (track.datePrecision === 'year' || track.datePrecision === 'month')
      ? [{ file: relative(root, track.file), date: track.dateTag!, precision: track.datePrecision, releaseDate: track.releaseDate }]
      : []
  )).sort(inPathOrder);
  const textOf = (texts: Record<string, string>) => Object.values(texts)[0] ?? '';
  const ids = {
    artists: records.flatMap((record) => (record.kind === 'artist' ? [{ id: record.id, name: textOf(record.name) }] : [])),
    albums: records.flatMap((record) => (record.kind === 'album' ? [{ id: record.id, title: textOf(record.title) }] : [])),
    songs: [...songIds].map(([file, id]) => ({ id, file: relative(root, file) })),
  };
  return {
    files: files.length, packaged, unchanged, failed: new Set(reported.map((p) => p.file)).size, ...counts, problems: reported, partialDates, ids,
  };
}
