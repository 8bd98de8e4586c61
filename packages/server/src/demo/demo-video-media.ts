import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addVideo, type PackagedVideo, type VideoPackagingProgress, type VideoTitle } from '../streaming/video-packager.ts';
import { createVideoStreamingRepo } from '../streaming/video-streaming.repo.ts';
import { bumpCatalogVersion } from '../storage/catalog-version.ts';
import type { Storage } from '../storage/storage.ts';
import { NO_CAP } from '../video/age-rating.ts';
import { rewriteTitleTemplates } from '../video/title-templates.format.ts';
import { createVideoRepo } from '../video/video.repo.ts';
import { MAQAMAT } from './maqam-music.ts';
import { pieceOfSong } from './demo-music.ts';
import { makeClip, type ClipTitle } from './demo-video-clip.ts';
import { arabicNumber, spokenLines, type ClipLanguage, type ClipScript } from './demo-video-script.ts';

/**
 * The demo's video: its showcase (what the demo app's Watch home features,
 * in its order, served in /demo/config.json) and a clip for a bounded set
 * of those titles (demo-video-clip.ts), packaged by `addVideo` as `maqam
 * media add-video` packages any film: both voices as audio languages (the
 * title's original language the default), both subtitle languages, SD and
 * HD. A server's demo does this after it has started listening, as it does
 * the music (demo-music.ts).
 */

/** The curated shows the Watch home features, in its order: the first is its spotlight (demo-video.ts has them). */
export const DEMO_FEATURED_SHOWS: readonly string[] = [
  'show-beit-al-karma', 'show-diwaniyat-bu-saleh', 'show-thill-al-madina', 'show-ala-darb-al-qawafil', 'show-hikayat-al-tarab', 'show-fariq-al-fanous',
];

/** The curated films the Watch home features, in its order. */
export const DEMO_FEATURED_MOVIES: readonly string[] = [
  'movie-najmat-al-sabah', 'movie-sutouh-al-qahira', 'movie-akhir-qitar-ila-aswan', 'movie-rimal-al-rub-al-khali', 'movie-sani-al-oud',
  'movie-the-pearl-diver', 'movie-al-sikka-al-tawila', 'movie-layl-al-hamra', 'movie-fanous-jeddi',
];

/** The title whose Arabic subtitles reach the packager in Windows-1256, as an Arabic SRT made on Windows would: the demo plays that path too. */
export const WINDOWS_1256_SUBTITLED = 'movie-sutouh-al-qahira';

type Texts = Readonly<Partial<Record<string, string>>>;
const parseTexts = (json: string | null): Texts => (json === null ? {} : (JSON.parse(json) as Texts));
/** A text in both of the clip's languages, each falling back on the other. */
const both = (texts: Texts): Record<ClipLanguage, string> => ({ ar: texts.ar ?? texts.en ?? '', en: texts.en ?? texts.ar ?? '' });
/** A line said whole: it ends as a sentence ends. */
const sentence = (text: string) => (/[.!?؟]$/u.test(text) ? text : `${text}.`);

/**
 * The titles the demo gives video, in the order they are packaged: the
 * first episode of each featured show, then each featured film, as the
 * Watch home shows them (its spotlight first). A title not in the catalog
 * is left out.
 */
export async function demoVideoTitles(storage: Storage): Promise<VideoTitle[]> {
  const repo = createVideoRepo(storage);
  const firstSeasons = new Map((await repo.seasonsOfShows(DEMO_FEATURED_SHOWS, NO_CAP)).filter((season) => Number(season.season_number) === 1)
    .map((season) => [season.show_id, season.id]));
  const episodes: VideoTitle[] = [];
  for (const showId of DEMO_FEATURED_SHOWS) {
    const seasonId = firstSeasons.get(showId);
    const [first] = seasonId === undefined ? [] : await repo.seasonEpisodes(seasonId, NO_CAP, null, 1);
    if (first !== undefined) episodes.push({ kind: 'episode', id: first.id });
  }
  const movies = new Set((await repo.moviesByIds(DEMO_FEATURED_MOVIES, NO_CAP)).map((row) => row.id));
  return [...episodes, ...DEMO_FEATURED_MOVIES.filter((id) => movies.has(id)).map((id): VideoTitle => ({ kind: 'movie', id }))];
}

/** The music under a title: the first song of its soundtrack that is a known artist's, else a piece its id picks. */
async function pieceFor(storage: Storage, kind: 'show' | 'movie', id: string): Promise<number> {
  const soundtrack = await createVideoRepo(storage).soundtrack(kind, id, null, 20);
  for (const song of soundtrack) {
    const piece = pieceOfSong(song.id);
    if (piece !== undefined) return piece;
  }
  return createHash('sha256').update(id).digest().readUInt16BE(0) % (MAQAMAT.length * 8);
}

/** What a title's clip shows and says, from its record; undefined when the catalog has no such title. */
export async function clipTitleOf(storage: Storage, title: VideoTitle): Promise<ClipTitle | undefined> {
  const repo = createVideoRepo(storage);
  const arabicSubtitles = title.id === WINDOWS_1256_SUBTITLED ? 'windows-1256' : 'utf-8';
  if (title.kind === 'movie') {
    const [movie] = await repo.moviesByIds([title.id], NO_CAP);
    if (movie === undefined) return undefined;
    const name = both(parseTexts(movie.title_i18n));
    const description = both(parseTexts(movie.description_i18n));
    const year = Number(movie.release_date.slice(0, 4));
    return {
      heading: name,
      subheading: { ar: `فيلم · ${arabicNumber(year)}`, en: `A film · ${year}` },
      parts: [{ ar: [sentence(name.ar)], en: [sentence(name.en)] }, { ar: spokenLines(description.ar), en: spokenLines(description.en) }],
      art: { id: movie.id, name: name.en, genres: JSON.parse(movie.genres) as string[], family: movie.id },
      piece: await pieceFor(storage, 'movie', movie.id),
      arabicSubtitles,
    };
  }
  const [episode] = await repo.episodesByIds([title.id], NO_CAP);
  if (episode === undefined) return undefined;
  const [show] = await repo.showsByIds([episode.show_id], NO_CAP);
  const [season] = await repo.seasonsByIds([episode.season_id], NO_CAP);
  if (show === undefined || season === undefined) return undefined;
  const showName = both(parseTexts(show.title_i18n));
  const episodeName = both(parseTexts(episode.title_i18n));
  const seasonName = both(parseTexts(season.title_i18n));
  const description = both(parseTexts(episode.description_i18n));
  return {
    heading: showName,
    subheading: { ar: `${seasonName.ar} · ${episodeName.ar}`, en: `${seasonName.en} · ${episodeName.en}` },
    parts: [
      { ar: [sentence(`${showName.ar}: ${episodeName.ar}`)], en: [sentence(`${showName.en}: ${episodeName.en}`)] },
      { ar: spokenLines(description.ar), en: spokenLines(description.en) },
    ],
    // The episode's still, as the catalog draws it: its show's colours, its own layout.
    art: { id: episode.id, name: episodeName.en, genres: JSON.parse(show.genres) as string[], family: show.id },
    piece: await pieceFor(storage, 'show', show.id),
    arabicSubtitles,
  };
}

export interface DemoVideoOptions {
  readonly signal?: AbortSignal;
  /** Clips exactly this long (tests); else 30 s to a minute each, as long as their words take. */
  readonly seconds?: number;
  /** Make the clips at a lower CPU priority (the packaging's own encode keeps the server's). */
  readonly background?: boolean;
  readonly onProgress?: (progress: VideoPackagingProgress) => void;
}

/** A packaged demo title: its package's record, and what its clip says when. */
export interface PackagedDemoTitle {
  readonly packaged: PackagedVideo;
  readonly script: ClipScript;
}

/** Makes `title`'s clip in a folder of its own under `workDir` and packages it (replacing any package it had). */
export async function packageDemoTitle(storage: Storage, mediaRoot: string, title: VideoTitle, workDir: string, options: DemoVideoOptions = {}): Promise<PackagedDemoTitle> {
  const clipTitle = await clipTitleOf(storage, title);
  if (clipTitle === undefined) throw new Error(`the demo catalog has no ${title.kind} ${title.id}`);
  const dir = await mkdtemp(join(workDir, 'clip-'));
  try {
    const clip = await makeClip(clipTitle, dir, options);
    options.signal?.throwIfAborted();
    const packaged = await addVideo(storage.db, mediaRoot, title, clip.picture, {
      audio: [{ language: 'ar', file: clip.audio.ar }, { language: 'en', file: clip.audio.en }],
      subtitles: [{ language: 'ar', file: clip.subtitles.ar }, { language: 'en', file: clip.subtitles.en }],
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    });
    await catalogLengthOfClip(storage, title, packaged.durationMs);
    return { packaged, script: clip.script };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * The title's length in the catalog becomes its clip's: the catalog says an
 * episode lasts 40 minutes, its demo clip under one, and continue watching
 * judges reports by the catalog's length (5 % to start, 90 % or the credits
 * to finish), so no report of the clip would ever enter or finish it. As the
 * demo's songs take their generated music's length. The catalog version
 * changes with it, so every node drops what it rendered of the title.
 */
async function catalogLengthOfClip(storage: Storage, title: VideoTitle, durationMs: number): Promise<void> {
  await storage.db.transaction().execute(async (trx) => {
    await storage.lockCatalogWrites(trx);
    const table = title.kind === 'movie' ? 'movies' : 'episodes';
    await trx.updateTable(table).set({ duration_ms: durationMs, credits_start_ms: null }).where('id', '=', title.id).execute();
    await rewriteTitleTemplates(trx, storage, table, [title.id]);
    await bumpCatalogVersion(trx);
  });
  await storage.catalogChanges.announce();
}

/**
 * Makes and packages the clips of the demo's titles (demoVideoTitles, at
 * most `limit` of them) that have no video yet, one at a time in the Watch
 * home's order. `onReady` is told of each title as it becomes playable,
 * with how many are ready of how many.
 */
export async function packageDemoVideo(
  storage: Storage,
  mediaRoot: string,
  onReady: (title: VideoTitle, ready: number, total: number) => void,
  options: DemoVideoOptions & { limit?: number } = {},
): Promise<void> {
  const { signal, limit = Infinity } = options;
  const titles = (await demoVideoTitles(storage)).slice(0, limit);
  const packages = createVideoStreamingRepo(storage.db);
  const missing: VideoTitle[] = [];
  let ready = 0;
  for (const title of titles) {
    if ((await packages.packageOf(title.kind, title.id)) !== undefined) onReady(title, ++ready, titles.length);
    else missing.push(title);
  }
  if (missing.length === 0) return;
  const workDir = await mkdtemp(join(tmpdir(), 'maqam-demo-video-'));
  try {
    for (const title of missing) {
      if (signal?.aborted) return;
      await packageDemoTitle(storage, mediaRoot, title, workDir, options);
      onReady(title, ++ready, titles.length);
    }
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}
