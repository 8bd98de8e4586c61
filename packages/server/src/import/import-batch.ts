import type { ErrorObject, ValidateFunction } from 'ajv';
import type { Insertable } from 'kysely';
import { ImportRecord, type LyricsRecord } from '@maqam/contract';
import type { SongRow } from '../catalog/catalog.repo.ts';
import { buildSongTemplate } from '../catalog/song-template.ts';
import { createAjv, withoutUnionBranches } from '../schema-validator.ts';
import type { Database } from '../storage/database.ts';
import { forbiddenCharacterIn } from '../text/forbidden-characters.ts';
import { addReference, lower, type BatchRows, type PrebuiltTemplates, type RecordWithId } from './batch-rows.ts';
import { addAlbum } from './kinds/album.ts';
import { addArtist } from './kinds/artist.ts';
import { addLyrics, checkLyrics } from './kinds/lyrics.ts';
import { addRelated } from './kinds/related.ts';
import { addSong } from './kinds/song.ts';
import { addShow } from './kinds/show.ts';
import { addSeason } from './kinds/season.ts';
import { addEpisode } from './kinds/episode.ts';
import { addMovie } from './kinds/movie.ts';

// Reading an import: a line parsed and checked against the contract, and a batch of records turned into the
// rows it writes (import.ts writes them; import-reader.ts reads a file into batches, on a thread of its own).

/** A record as read, with the line it came from (for error reports). */
export interface NumberedRecord {
  readonly line: number;
  readonly record: ImportRecord;
}

export interface LineError {
  readonly line: number;
  readonly message: string;
}

export class ImportBatchError extends Error {
  override name = 'ImportBatchError';
  readonly errors: readonly LineError[];
  constructor(errors: readonly LineError[]) {
    super(errors.map((e) => `line ${e.line}: ${e.message}`).join('\n'));
    this.errors = errors;
  }
}

const KINDS = ['artist', 'album', 'song', 'related', 'lyrics', 'show', 'season', 'episode', 'movie'];

/** A line that is not a valid record, with every problem found on it (a message each, fit for `line N: ...`). */
export class InvalidRecordError extends Error {
  override name = 'InvalidRecordError';
  readonly problems: readonly string[];
  /** The line's object, when it is one of a known kind: what it declares and references are still noted (ImportBatch.noteRefused). */
  readonly value: { readonly kind: string } & Readonly<Record<string, unknown>> | undefined;
  constructor(problems: readonly string[], value?: { kind: string } & Record<string, unknown>) {
    super(problems.join('; '));
    this.problems = problems;
    this.value = value;
  }
}

/** What one of ajv's errors says of a record, as the import reports it: `song durationMs must be >= 0`. */
function describeSchemaError(kind: string, error: ErrorObject): string {
  const where = error.instancePath ? error.instancePath.slice(1).replace(/\//g, '.') : 'record';
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return `${kind} ${where} needs "${String(params.missingProperty)}"`;
    case 'additionalProperties':
      return `${kind} ${where} has "${String(params.additionalProperty)}", which ${kind} records do not have`;
    case 'enum':
      return `${kind} ${where} must be one of ${(params.allowedValues as unknown[]).map(String).join(', ')}`;
    case 'format':
      return params.format === 'date' ? `${kind} ${where} must be a real calendar date, YYYY-MM-DD` : `${kind} ${where} ${error.message}`;
    default:
      return `${kind} ${where} ${error.message ?? 'is invalid'}`;
  }
}

/**
 * Parses and validates one NDJSON line; throws InvalidRecordError naming
 * every problem of the line at once (every member the schema refuses, every
 * text with a forbidden character), so a file is fixed in one round.
 */
export function parseImportLine(text: string): ImportRecord {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new InvalidRecordError([`not valid JSON (${(error as Error).message})`]);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new InvalidRecordError(['a record must be a JSON object']);
  const kind = (value as { kind?: unknown }).kind;
  if (typeof kind !== 'string' || !KINDS.includes(kind)) throw new InvalidRecordError([`"kind" must be one of ${KINDS.join(', ')}`]);
  // Validate against the one schema of that kind, so the messages name the real problems.
  const branch = validateByKind[kind as ImportRecord['kind']];
  const problems: string[] = [];
  if (!branch(value)) {
    // A failed union (a count given as neither number nor digits) is said once.
    problems.push(...new Set(withoutUnionBranches(branch.errors ?? []).map((error) => describeSchemaError(kind, error))));
  }
  for (const forbidden of forbiddenCharactersOf(value, '')) {
    problems.push(`${kind} ${forbidden.path} holds ${forbidden.character}, a character no text may hold (a control character or a lone surrogate)`);
  }
  if (kind === 'lyrics' && problems.length === 0) {
    try {
      checkLyrics(value as LyricsRecord);
    } catch (error) {
      problems.push((error as Error).message);
    }
  }
  if (problems.length > 0) throw new InvalidRecordError(problems, value as { kind: string } & Record<string, unknown>);
  return value as ImportRecord;
}

/** Members that hold ids, not texts: an id may hold any character (answers escape it as JSON does). */
const ID_MEMBER = /^id$|Ids?$/;

/**
 * The texts of a parsed record holding a forbidden character
 * (text/forbidden-characters.ts), with their paths; ids are not texts.
 */
function* forbiddenCharactersOf(value: unknown, path: string): Generator<{ path: string; character: string }> {
  if (typeof value === 'string') {
    const character = forbiddenCharacterIn(value);
    if (character !== undefined) yield { path: path || 'record', character };
    return;
  }
  if (value === null || typeof value !== 'object') return;
  for (const [key, item] of Object.entries(value)) {
    if (ID_MEMBER.test(key)) continue;
    // Paths as the schema's messages name them: name.en, lines.1.
    yield* forbiddenCharactersOf(item, path ? `${path}.${key}` : key);
  }
}

const validateByKind = Object.fromEntries(
  (ImportRecord as unknown as { anyOf: { properties: { kind: { const: string } } }[] }).anyOf.map((schema) => [
    schema.properties.kind.const,
    createAjv().compile(schema),
  ]),
) as Record<ImportRecord['kind'], ValidateFunction>;

/**
 * How each kind of record adds its rows to a batch: a file per kind (kinds/).
 * A new kind of record is a new file here, with its table's rows in
 * BatchRows and its write (an ImportProjection) in import.ts's list.
 */
const ADD_ROWS: { readonly [K in ImportRecord['kind']]: (rows: BatchRows, line: number, record: Extract<ImportRecord, { kind: K }>) => void } = {
  artist: addArtist,
  album: addAlbum,
  song: addSong,
  lyrics: addLyrics,
  related: addRelated,
  show: addShow,
  season: addSeason,
  episode: addEpisode,
  movie: addMovie,
};

/** The fields of a batch's video records. */
type VideoFields =
  'shows' | 'seasons' | 'episodes' | 'movies' | 'titleSongs' | 'showIds' | 'seasonIds' | 'episodeIds' | 'movieIds' | 'showRefs' | 'seasonRefs' | 'episodeShows';

/** The fields of an ImportBatch, as a reading thread sends them. */
export type ImportBatchData = Pick<
  ImportBatch,
  'artists' | 'albums' | 'songs' | 'related' | 'lyrics' | 'songArtists' | 'albumArtists' | 'songIds' | 'artistIds' | 'albumIds' | 'languages' |
  'songRefs' | 'artistRefs' | 'albumRefs' | 'errors' | 'templates' | VideoFields
> & { readonly size: number };

/**
 * One batch of an import as the rows it writes, built as each record is
 * read: the parsed records are not kept, so a batch holds only what it
 * writes. A record is a tree of objects (its texts, credits, artwork); its
 * rows are mostly strings. Kept until their batch was written, the records
 * of a 40,000-record batch outlived the young-generation collections that
 * ran meanwhile, each of which copies what survives it.
 */
export class ImportBatch implements BatchRows {
  #size = 0;
  readonly artists: Insertable<Database['artists']>[] = [];
  readonly albums: Insertable<Database['albums']>[] = [];
  readonly songs: Insertable<Database['songs']>[] = [];
  readonly related = new Map<string, Insertable<Database['related_artists']>>();
  /** Keyed by song: a later lyrics record for a song replaces an earlier one, in a batch as across batches. */
  readonly lyrics = new Map<string, Insertable<Database['lyrics']>>();
  readonly songArtists: Insertable<Database['song_artists']>[] = [];
  readonly albumArtists: Insertable<Database['album_artists']>[] = [];
  readonly shows: Insertable<Database['shows']>[] = [];
  readonly seasons: Insertable<Database['seasons']>[] = [];
  readonly episodes: Insertable<Database['episodes']>[] = [];
  readonly movies: Insertable<Database['movies']>[] = [];
  readonly titleSongs: Insertable<Database['title_songs']>[] = [];
  readonly showIds = new Set<string>();
  readonly seasonIds = new Set<string>();
  readonly episodeIds = new Set<string>();
  readonly movieIds = new Set<string>();
  readonly showRefs = new Map<string, number[]>();
  readonly seasonRefs = new Map<string, number[]>();
  readonly episodeShows: { readonly line: number; readonly seasonId: string; readonly showId: string }[] = [];
  readonly songIds = new Set<string>();
  readonly artistIds = new Set<string>();
  readonly albumIds = new Set<string>();
  readonly languages = new Set<string>();
  /** Referenced ids, with the lines that reference them. */
  readonly songRefs = new Map<string, number[]>();
  readonly artistRefs = new Map<string, number[]>();
  readonly albumRefs = new Map<string, number[]>();
  /** Ids repeated in the batch and artists related to themselves, reported when the batch is written. */
  readonly errors: LineError[] = [];
  /** The line each id first appeared on, by kind. */
  readonly #seenIds: Record<RecordWithId, Map<string, number>> = {
    artist: new Map(), album: new Map(), song: new Map(), show: new Map(), season: new Map(), episode: new Map(), movie: new Map(),
  };
  /** The rows' updated_at. */
  readonly now: number;
  /**
   * The songs' templates, built by the reader thread that read the batch (`buildTemplates`),
   * one a song in `songs` order, each for the hasLyrics it assumed: whether
   * the batch has the song's lyrics. The write uses those whose assumption
   * held (it also finds lyrics already in the catalog) and builds the rest.
   */
  templates: PrebuiltTemplates | undefined;

  constructor(now = Date.now()) {
    this.now = now;
  }

  /** Records added (lines that parsed). */
  get size(): number {
    return this.#size;
  }

  /** What a thread sends of a batch it read (`toData`): structured clone keeps the Maps and Sets. */
  toData(): ImportBatchData {
    const { artists, albums, songs, related, lyrics, songArtists, albumArtists, songIds, artistIds, albumIds, languages, songRefs, artistRefs, albumRefs, errors, templates } = this;
    const { shows, seasons, episodes, movies, titleSongs, showIds, seasonIds, episodeIds, movieIds, showRefs, seasonRefs, episodeShows } = this;
    return {
      size: this.#size, artists, albums, songs, related, lyrics, songArtists, albumArtists, songIds, artistIds, albumIds, languages, songRefs, artistRefs, albumRefs, errors, templates,
      shows, seasons, episodes, movies, titleSongs, showIds, seasonIds, episodeIds, movieIds, showRefs, seasonRefs, episodeShows,
    };
  }

  /** The batch a thread read, from what it sent. */
  static fromData(data: ImportBatchData): ImportBatch {
    const { size, ...fields } = data;
    const batch = Object.assign(new ImportBatch(), fields);
    batch.#size = size;
    return batch;
  }

  /** Builds the songs' templates now (see `templates`): a reading thread does, so the writing one need not. */
  buildTemplates(): void {
    const parts: Buffer[] = [];
    const ends = new Uint32Array(this.songs.length);
    const hasLyrics = new Uint8Array(this.songs.length);
    let end = 0;
    this.songs.forEach((song, i) => {
      if (song.withdrawn !== 1) {
        hasLyrics[i] = this.lyrics.has(song.id) ? 1 : 0;
        const template = buildSongTemplate({ ...(song as SongRow), has_lyrics: hasLyrics[i]! });
        parts.push(template);
        end += template.length;
      }
      ends[i] = end;
    });
    this.templates = { bytes: Buffer.concat(parts, end), ends, hasLyrics };
  }

  static of(records: readonly NumberedRecord[], now?: number): ImportBatch {
    const batch = new ImportBatch(now);
    for (const { line, record } of records) batch.add(line, record);
    return batch;
  }

  noteLanguages(map: Record<string, string>, original: string): void {
    for (const tag of Object.keys(map)) this.languages.add(lower(tag));
    this.languages.add(lower(original));
  }

  /**
   * A line that did not pass, as far as it can be read: the batch is not
   * written, but the id it declares is known (lines that reference it are
   * told of their own problems, not that it is unknown) and the ids it
   * references are checked with the others, so one pass names them all.
   */
  noteRefused(line: number, value: { readonly kind: string } & Readonly<Record<string, unknown>>): void {
    const text = (member: string) => (typeof value[member] === 'string' && value[member] !== '' ? [value[member]] : []);
    const texts = (member: string) => (Array.isArray(value[member]) ? (value[member] as unknown[]).filter((id): id is string => typeof id === 'string' && id !== '') : []);
    const declared = {
      artist: this.artistIds, album: this.albumIds, song: this.songIds, show: this.showIds, season: this.seasonIds, episode: this.episodeIds, movie: this.movieIds,
    }[value.kind];
    for (const id of text('id')) declared?.add(id);
    for (const id of [...texts('artistIds'), ...text('artistId'), ...text('relatedId')]) addReference(this.artistRefs, id, line);
    for (const id of text('albumId')) addReference(this.albumRefs, id, line);
    for (const id of [...text('songId'), ...texts('soundtrack')]) addReference(this.songRefs, id, line);
    // An episode's show is checked through its season; a season's directly.
    if (value.kind === 'season') for (const id of text('showId')) addReference(this.showRefs, id, line);
    for (const id of text('seasonId')) addReference(this.seasonRefs, id, line);
  }

  noteId(kind: RecordWithId, id: string, line: number): void {
    const seen = this.#seenIds[kind];
    const first = seen.get(id);
    if (first !== undefined) this.errors.push({ line, message: `${kind} "${id}" already appears on line ${first} of this batch` });
    else seen.set(id, line);
  }

  /** A record parseImportLine accepted, from line `line`: its rows, by its kind's file (kinds/). */
  add(line: number, record: ImportRecord): void {
    this.#size++;
    (ADD_ROWS[record.kind] as (rows: BatchRows, line: number, record: ImportRecord) => void)(this, line, record);
  }
}

