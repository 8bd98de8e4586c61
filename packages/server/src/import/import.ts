import type { ImportSummary } from '@maqam/contract';
import { createSongTemplatesRepo } from '../catalog/song-templates.repo.ts';
import { ImportBatch, ImportBatchError, type LineError, type NumberedRecord } from './import-batch.ts';
import { readImportBatches } from './import-reader.ts';
import { createImportRepo, type ImportRepo } from './import.repo.ts';
import type { BatchWrite, ImportProjection } from './projection.ts';
import { writeAlbums } from './kinds/album.ts';
import { writeArtists } from './kinds/artist.ts';
import { writeLyrics } from './kinds/lyrics.ts';
import { writeRelated } from './kinds/related.ts';
import { writeSongs } from './kinds/song.ts';
import { writeShows } from './kinds/show.ts';
import { writeSeasons } from './kinds/season.ts';
import { writeEpisodes } from './kinds/episode.ts';
import { writeMovies } from './kinds/movie.ts';
import { writeSearchTerms } from './search-terms.ts';
import { writeCatalogLanguages } from './catalog-languages.ts';
import { IndexMemo } from '../search/index-memo.ts';
import { lastSegmentId, mergeSegmentsAfter } from '../search/segments.ts';
import type { Database } from '../storage/database.ts';
import { createBulkUpsert, type BulkUpsert } from '../storage/bulk-upsert.ts';
import { buildReadOnlyCatalogIndexes, catalogIsEmpty, dropReadOnlyCatalogIndexes, withSearchItemIndexesRebuilt } from '../storage/catalog-indexes.ts';
import { analyzeTables, type Storage } from '../storage/storage.ts';
import type { Transaction } from 'kysely';
import { BackgroundCheckpoints } from '../storage/background-checkpoints.ts';
import { bumpCatalogVersion } from '../storage/catalog-version.ts';

/**
 * Referenced ids that are neither in the batch nor in the database, with the
 * lines that reference them. Ids an earlier batch of the import wrote
 * (`writtenBefore`) are not looked up: nothing deletes a catalog row (a
 * withdrawal is a flag), so they are there. On the 1M demo import the
 * look-ups of credited artists and albums took 2.8 s of 44 s of statements;
 * its later batches reference only what its first ones wrote.
 */
async function missingReferences(
  repo: ImportRepo,
  table: 'artists' | 'albums' | 'songs' | 'shows' | 'seasons',
  references: Map<string, number[]>,
  inBatch: Set<string>,
  writtenBefore: ReadonlySet<string> | undefined,
): Promise<LineError[]> {
  const wanted = [...references.keys()].filter((id) => !inBatch.has(id) && !writtenBefore?.has(id));
  if (wanted.length === 0) return [];
  const found = await repo.storedIds(table, wanted);
  const errors: LineError[] = [];
  for (const id of wanted) {
    if (found.has(id)) continue;
    for (const line of references.get(id)!) errors.push({ line, message: `references unknown ${table.slice(0, -1)} "${id}"` });
  }
  return errors;
}

/** The batch's references to ids neither it nor the database (nor an earlier batch) has, by line. */
async function referenceErrors(repo: ImportRepo, batch: ImportBatch, written: WrittenKeys | undefined): Promise<LineError[]> {
  return [
    ...(await missingReferences(repo, 'artists', batch.artistRefs, batch.artistIds, written?.artists)),
    ...(await missingReferences(repo, 'albums', batch.albumRefs, batch.albumIds, written?.albums)),
    ...(await missingReferences(repo, 'songs', batch.songRefs, batch.songIds, written?.songs)),
    ...(await missingReferences(repo, 'shows', batch.showRefs, batch.showIds, written?.shows)),
    ...(await missingReferences(repo, 'seasons', batch.seasonRefs, batch.seasonIds, written?.seasons)),
    ...(await episodeShowErrors(repo, batch)),
  ].sort((a, b) => a.line - b.line);
}

/** Episodes that name a show other than their season's (a season of the batch, or as stored). */
async function episodeShowErrors(repo: ImportRepo, batch: ImportBatch): Promise<LineError[]> {
  if (batch.episodeShows.length === 0) return [];
  const showOf = new Map(batch.seasons.map((season) => [season.id, season.show_id]));
  const stored = batch.episodeShows.map((e) => e.seasonId).filter((id) => !showOf.has(id));
  for (const row of await repo.showsOfSeasons(stored)) showOf.set(row.id, row.show_id);
  return batch.episodeShows
    .filter((e) => showOf.has(e.seasonId) && showOf.get(e.seasonId) !== e.showId)
    .map((e) => ({ line: e.line, message: `episode names show "${e.showId}", but season "${e.seasonId}" is of show "${showOf.get(e.seasonId)}"` }));
}

/**
 * What a batch becomes, table by table: a projection per record kind
 * (kinds/), then what is derived from them all. A new kind of record adds
 * its projection here.
 */
const PROJECTIONS: readonly ImportProjection[] = [
  writeArtists, writeAlbums, writeSongs, writeRelated, writeLyrics, writeShows, writeSeasons, writeEpisodes, writeMovies, writeSearchTerms, writeCatalogLanguages,
];

/**
 * The largest merge of search segments an import's batch makes, in live
 * items. A larger one would rewrite items that the import's end rewrites
 * again (in batches of 10,000 records, the 1M demo seed made one merge of
 * about 700,000 items). Smaller merges run: imports of small batches would
 * otherwise leave a search hundreds of segments to read until their end.
 * A batch of DEFAULT_BATCH_SIZE records of the demo catalog is a segment of
 * about 26,000 items, so its seed merges nothing until the end, and a
 * search during it reads one segment per batch written so far.
 */
const LARGEST_MERGE_IN_IMPORT = 100_000;

/** Writes one batch of an import (writeBatch, with the import's merge limit). */
export type ImportBatchWriter = (batch: readonly NumberedRecord[] | ImportBatch, options?: Pick<WriteBatchOptions, 'written'>) => Promise<ImportSummary>;

/** The tables an import writes, whose statistics its end gathers again (PostgreSQL). */
const IMPORTED_TABLES = [
  'artists', 'albums', 'songs', 'song_templates', 'lyrics', 'related_artists', 'song_artists', 'album_artists',
  'shows', 'seasons', 'episodes', 'movies', 'title_songs',
  'search_segments', 'search_items', 'search_doclists', 'search_vocabulary',
] as const;

/**
 * Runs an import of many batches (`write` writes them with the writer it is
 * given) and ends it: the search segments its batches wrote become one
 * (search/search-index.ts mergeSegmentsAfter), in a transaction of its own,
 * the planner's statistics are gathered again (storage.ts analyzeTables),
 * the texts it normalized are forgotten, and on SQLite the WAL is
 * checkpointed (BackgroundCheckpoints). An import cut off before its end
 * leaves the segments as its batches wrote them, which searches read just as
 * correctly, only more slowly.
 */
export async function runImport<T>(storage: Storage, write: (writeBatch: ImportBatchWriter) => Promise<T>): Promise<T> {
  // What the import's batches share: the bulk upsert's compiled statements, and what they read for the index.
  const upsert = createBulkUpsert(storage);
  const memo = new IndexMemo();
  const lastSegment = await lastSegmentId(storage.db, upsert);
  // A load into an empty catalog builds the read-only indexes once, at its end (storage/catalog-indexes.ts).
  const indexesDeferred = await catalogIsEmpty(storage.db);
  if (indexesDeferred) await dropReadOnlyCatalogIndexes(storage);
  const checkpoints = new BackgroundCheckpoints(storage);
  try {
    const result = await write((batch, options = {}) =>
      writeBatch(storage, batch instanceof ImportBatch ? batch : ImportBatch.of(batch), { ...options, upsert, largestMerge: LARGEST_MERGE_IN_IMPORT, memo, checkpoints }));
    await checkpoints.settled();
    if (indexesDeferred) await buildReadOnlyCatalogIndexes(storage, 'wait');
    await storage.db.transaction().execute(async (trx) => {
      const lock = await storage.lockCatalogWrites(trx);
      const merge = () => mergeSegmentsAfter(trx, lock, upsert, lastSegment);
      await (indexesDeferred ? withSearchItemIndexesRebuilt(storage, trx, merge) : merge());
    });
    await analyzeTables(storage, IMPORTED_TABLES);
    checkpoints.afterCommit();
    await checkpoints.settled();
    await checkpoints.end();
    return result;
  } catch (error) {
    // The import's own failure is the one to report. Indexes that cannot be built now are built at the next open.
    if (indexesDeferred) await buildReadOnlyCatalogIndexes(storage, 'wait').catch(() => {});
    await checkpoints.end().catch(() => {});
    throw error;
  }
}

/** A summary of nothing written yet. */
export function emptyImportSummary(): ImportSummary {
  return { artists: 0, albums: 0, songs: 0, related: 0, lyrics: 0, shows: 0, seasons: 0, episodes: 0, movies: 0 };
}

/** Adds a batch's counts to an import's summary. */
export function addToSummary(summary: ImportSummary, counts: ImportSummary): void {
  for (const kind of Object.keys(summary) as (keyof ImportSummary)[]) summary[kind] += counts[kind];
}

/** Keys of the records an import has written so far, so a record repeated across batches is counted once. */
export interface WrittenKeys {
  readonly artists: Set<string>;
  readonly albums: Set<string>;
  readonly songs: Set<string>;
  readonly related: Set<string>;
  readonly lyrics: Set<string>;
  readonly shows: Set<string>;
  readonly seasons: Set<string>;
  readonly episodes: Set<string>;
  readonly movies: Set<string>;
}

export function noWrittenKeys(): WrittenKeys {
  return {
    artists: new Set(), albums: new Set(), songs: new Set(), related: new Set(), lyrics: new Set(),
    shows: new Set(), seasons: new Set(), episodes: new Set(), movies: new Set(),
  };
}

/** How many of `keys` are new to `seen` (adding them); without `seen`, all of them. */
function countNew(keys: Iterable<string>, seen: Set<string> | undefined): number {
  let count = 0;
  for (const key of keys) {
    if (seen === undefined) {
      count++;
    } else {
      // One lookup: the set grew exactly when the key is new (these sets hold millions of keys).
      const size = seen.size;
      if (seen.add(key).size > size) count++;
    }
  }
  return count;
}

export interface WriteBatchOptions {
  /** The import's bulk upsert (its statements are compiled once an import). */
  upsert: BulkUpsert;
  /** Keys written by earlier batches of the same import, so the summary counts each record once. */
  written?: WrittenKeys;
  /** The largest merge of search segments the batch makes, in live items (default: any). */
  largestMerge?: number;
  /** What the import's earlier batches read for the index. */
  memo?: IndexMemo;
  /** The import's WAL checkpoints. */
  checkpoints?: BackgroundCheckpoints;
}

/**
 * Writes one batch in one transaction: every record, or (on any bad
 * reference or database error) none. Upserts by id, so re-running an import
 * converges. References must name records of this batch or of the database:
 * a file lists what is referenced before what references it. Bumps the
 * catalog version so servers drop stale renderings.
 */
async function writeBatch(storage: Storage, batch: ImportBatch, options: WriteBatchOptions): Promise<ImportSummary> {
  const { written, largestMerge, memo, checkpoints, upsert } = options;
  const { artists, albums, songs, related, lyrics } = batch;
  if (batch.errors.length > 0) {
    // Not written; its references are checked all the same, so that one pass over a file names all its problems.
    const unknown = await referenceErrors(createImportRepo(storage.db, storage), batch, written);
    throw new ImportBatchError([...batch.errors, ...unknown].sort((a, b) => a.line - b.line));
  }

  await checkpoints?.beforeWrite(batch.size);
  const catalogVersion = await storage.db.transaction().execute(async (trx: Transaction<Database>) => {
    const lock = await storage.lockCatalogWrites(trx);
    const repo = createImportRepo(trx, storage);
    const unknown = await referenceErrors(repo, batch, written);
    if (unknown.length > 0) throw new ImportBatchError(unknown);

    const replacedSongs = new Map((await repo.storedAlbumsOfSongs([...batch.songIds])).map((row) => [row.id, row.album_id]));
    const write: BatchWrite = {
      trx, lock, rows: batch, replacedSongs, upsert, repo, templates: createSongTemplatesRepo(trx, storage, upsert), largestMerge, memo,
    };
    for (const project of PROJECTIONS) await project(write);
    // Last: caches of catalog data drop what they hold once they see it (storage/catalog-version.ts).
    return bumpCatalogVersion(trx);
  });
  memo?.committed(catalogVersion);
  checkpoints?.afterCommit();
  // Nodes that share a Redis drop what they rendered now rather than at their next poll.
  await storage.catalogChanges.announce();
  // Counted after the commit: a batch that was not written counts nothing.
  return {
    artists: countNew(artists.map((r) => r.id), written?.artists),
    albums: countNew(albums.map((r) => r.id), written?.albums),
    songs: countNew(songs.map((r) => r.id), written?.songs),
    related: countNew(related.keys(), written?.related),
    lyrics: countNew(lyrics.keys(), written?.lyrics),
    shows: countNew(batch.showIds, written?.shows),
    seasons: countNew(batch.seasonIds, written?.seasons),
    episodes: countNew(batch.episodeIds, written?.episodes),
    movies: countNew(batch.movieIds, written?.movies),
  };
}

export interface ImportProgress {
  readonly bytesRead: number;
  readonly linesRead: number;
}

export interface ImportOutcome {
  readonly summary: ImportSummary;
  readonly errors: readonly LineError[];
}

/**
 * Records a batch holds by default. A batch costs statements and reads of
 * its own besides its records, and its search segment is merged later:
 * `bench/.scratch`-style imports of the 200,000-song demo file took 58.7 s
 * in batches of 2,000, 43.3 s of 10,000 and 30.6 s of 40,000; seeding 1M
 * songs took 289 s in batches of 10,000, 222 s of 40,000 and 233 s of
 * 100,000. A bad line keeps its whole batch out (`--batch-size` makes
 * batches smaller for a file that has many).
 */
export const DEFAULT_BATCH_SIZE = 40_000;

export interface ImportFileOptions {
  /** Records a batch (default DEFAULT_BATCH_SIZE). */
  batchSize?: number;
  onProgress?: (progress: ImportProgress) => void;
  /** Read the file on a thread of its own (import-reader.ts); by default, a file of READER_THREAD_BYTES or more. */
  readerThread?: boolean;
}

/**
 * Streams an NDJSON file into the catalog in batched transactions, as one
 * import (runImport). A batch with a bad line is written not at all and its
 * errors are reported; the other batches are written (upserts make a
 * corrected re-run converge).
 */
export function importNdjsonFile(storage: Storage, path: string, options: ImportFileOptions = {}): Promise<ImportOutcome> {
  return runImport(storage, (writeBatch) => importLines(writeBatch, path, options));
}

async function importLines(writeBatch: ImportBatchWriter, path: string, options: ImportFileOptions): Promise<ImportOutcome> {
  const summary = emptyImportSummary();
  // The summary counts distinct records: one written in two batches (or twice in a file) is one.
  const written = noWrittenKeys();
  const errors: LineError[] = [];
  for await (const read of readImportBatches(path, options.batchSize ?? DEFAULT_BATCH_SIZE, options.readerThread)) {
    if (read.batch !== null) {
      try {
        addToSummary(summary, await writeBatch(read.batch, { written }));
      } catch (error) {
        if (!(error instanceof ImportBatchError)) throw error;
        errors.push(...error.errors);
      }
    }
    options.onProgress?.({ bytesRead: read.bytesRead, linesRead: read.linesRead });
  }
  return { summary, errors };
}
