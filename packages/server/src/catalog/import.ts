import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { ValidateFunction } from 'ajv';
import { createAjv } from '../http/validation.ts';
import { randomUUID } from 'node:crypto';
import { ImportRecord, type AlbumRecord, type ArtistRecord, type ImportSummary, type RelatedRecord, type SongRecord } from '@maqam/contract';
import type { Database } from '../storage/database.ts';
import { createBulkUpsert, type BulkUpsert } from '../storage/bulk-upsert.ts';
import type { Storage } from '../storage/storage.ts';
import type { Insertable, Kysely, Transaction } from 'kysely';

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

const KINDS = ['artist', 'album', 'song', 'related'];

/** Parses and validates one NDJSON line; throws a message fit for `line N: ...`. */
export function parseImportLine(text: string): ImportRecord {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(`not valid JSON (${(error as Error).message})`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new Error('a record must be a JSON object');
  const kind = (value as { kind?: unknown }).kind;
  if (typeof kind !== 'string' || !KINDS.includes(kind)) throw new Error(`"kind" must be one of ${KINDS.join(', ')}`);
  // Validate against the one schema of that kind, so the message names the real problem.
  const branch = validateByKind[kind as ImportRecord['kind']];
  if (!branch(value)) {
    const [first] = branch.errors ?? [];
    const where = first?.instancePath ? first.instancePath.slice(1).replace(/\//g, '.') : 'record';
    const what = first?.keyword === 'required' ? `needs "${(first.params as { missingProperty: string }).missingProperty}"` : (first?.message ?? 'is invalid');
    throw new Error(`${kind} ${where} ${what}`);
  }
  return value as ImportRecord;
}

const validateByKind = Object.fromEntries(
  (ImportRecord as unknown as { anyOf: { properties: { kind: { const: string } } }[] }).anyOf.map((schema) => [
    schema.properties.kind.const,
    createAjv().compile(schema),
  ]),
) as Record<ImportRecord['kind'], ValidateFunction>;

const lower = (tag: string) => tag.toLowerCase();
function texts(map: Record<string, string>): string {
  return JSON.stringify(Object.fromEntries(Object.entries(map).map(([tag, text]) => [lower(tag), text])));
}
/** Keeps exactly the Image members, so the stored JSON can be spliced into responses as is. */
function images(list: readonly { url: string; width: number; height: number }[]): string {
  return JSON.stringify(list.map(({ url, width, height }) => ({ url, width, height })));
}

/** Referenced ids that are neither in the batch nor in the database, with the lines that reference them. */
async function missingReferences(
  trx: Kysely<Database>,
  storage: Storage,
  table: 'artists' | 'albums',
  references: Map<string, number[]>,
  inBatch: Set<string>,
): Promise<LineError[]> {
  const wanted = [...references.keys()].filter((id) => !inBatch.has(id));
  if (wanted.length === 0) return [];
  const found = new Set<string>();
  for (let i = 0; i < wanted.length; i += 5000) {
    const rows = await trx.selectFrom(table).select('id').where('id', 'in', storage.idList(wanted.slice(i, i + 5000))).execute();
    for (const row of rows) found.add(row.id);
  }
  const errors: LineError[] = [];
  for (const id of wanted) {
    if (found.has(id)) continue;
    for (const line of references.get(id)!) errors.push({ line, message: `references unknown ${table.slice(0, -1)} "${id}"` });
  }
  return errors;
}

function addReference(map: Map<string, number[]>, id: string, line: number): void {
  const lines = map.get(id);
  if (lines) lines.push(line);
  else map.set(id, [line]);
}

/** One bulk upsert (and its compiled statements) per database. */
const upserts = new WeakMap<Storage, BulkUpsert>();

/**
 * Writes one batch in one transaction: every record, or (on any bad
 * reference or database error) none. Upserts by id, so re-running an import
 * converges. References must name records of this batch or of the database:
 * a file lists what is referenced before what references it. Bumps the
 * catalog version so servers drop stale renderings.
 */
/** Keys of the records an import has written so far, so a record repeated across batches is counted once. */
export interface WrittenKeys {
  readonly artists: Set<string>;
  readonly albums: Set<string>;
  readonly songs: Set<string>;
  readonly related: Set<string>;
}

export function noWrittenKeys(): WrittenKeys {
  return { artists: new Set(), albums: new Set(), songs: new Set(), related: new Set() };
}

/** How many of `keys` are new to `seen` (adding them); without `seen`, all of them. */
function countNew(keys: Iterable<string>, seen: Set<string> | undefined): number {
  let count = 0;
  for (const key of keys) {
    if (seen === undefined || !seen.has(key)) count++;
    seen?.add(key);
  }
  return count;
}

export async function writeBatch(storage: Storage, batch: readonly NumberedRecord[], now = Date.now(), written?: WrittenKeys): Promise<ImportSummary> {
  let upsert = upserts.get(storage);
  if (upsert === undefined) upserts.set(storage, (upsert = createBulkUpsert(storage.db)));
  const artists: Insertable<Database['artists']>[] = [];
  const albums: Insertable<Database['albums']>[] = [];
  const songs: Insertable<Database['songs']>[] = [];
  const related = new Map<string, Insertable<Database['related_artists']>>();
  const languages = new Set<string>();
  const artistIds = new Set<string>();
  const albumIds = new Set<string>();
  const artistRefs = new Map<string, number[]>();
  const albumRefs = new Map<string, number[]>();
  const seenIds = new Map<string, number>();
  const duplicateErrors: LineError[] = [];

  const noteLanguages = (map: Record<string, string>, original: string) => {
    for (const tag of Object.keys(map)) languages.add(lower(tag));
    languages.add(lower(original));
  };
  const noteId = (kind: string, id: string, line: number) => {
    const key = `${kind}\u0000${id}`;
    const first = seenIds.get(key);
    if (first !== undefined) duplicateErrors.push({ line, message: `${kind} "${id}" already appears on line ${first} of this batch` });
    else seenIds.set(key, line);
  };

  for (const { line, record } of batch) {
    switch (record.kind) {
      case 'artist': {
        const r: ArtistRecord = record;
        noteId('artist', r.id, line);
        noteLanguages(r.name, r.originalLanguage);
        if (r.bio) noteLanguages(r.bio, r.originalLanguage);
        artistIds.add(r.id);
        artists.push({
          id: r.id,
          name_i18n: texts(r.name),
          original_language: lower(r.originalLanguage),
          bio_i18n: r.bio ? texts(r.bio) : null,
          genres: JSON.stringify(r.genres),
          follower_count: String(r.followerCount),
          monthly_listeners: String(r.monthlyListeners),
          is_verified: r.isVerified ? 1 : 0,
          social_links: JSON.stringify(r.socialLinks.map(({ platform, url }) => ({ platform, url }))),
          artwork: images(r.artwork),
          nationality: r.nationality,
          updated_at: now,
        });
        break;
      }
      case 'album': {
        const r: AlbumRecord = record;
        noteId('album', r.id, line);
        noteLanguages(r.title, r.originalLanguage);
        albumIds.add(r.id);
        for (const id of r.artistIds) addReference(artistRefs, id, line);
        albums.push({
          id: r.id,
          title_i18n: texts(r.title),
          original_language: lower(r.originalLanguage),
          artist_ids: JSON.stringify(r.artistIds),
          release_date: r.releaseDate,
          artwork: images(r.artwork),
          updated_at: now,
        });
        break;
      }
      case 'song': {
        const r: SongRecord = record;
        noteId('song', r.id, line);
        noteLanguages(r.title, r.originalLanguage);
        addReference(albumRefs, r.albumId, line);
        for (const artistId of r.artistIds) addReference(artistRefs, artistId, line);
        songs.push({
          id: r.id,
          title_i18n: texts(r.title),
          original_language: lower(r.originalLanguage),
          album_id: r.albumId,
          artist_ids: JSON.stringify(r.artistIds),
          duration_ms: r.durationMs,
          track_number: r.trackNumber,
          disc_number: r.discNumber,
          release_date: r.releaseDate,
          genres: JSON.stringify(r.genres),
          is_explicit: r.isExplicit ? 1 : 0,
          isrc: r.isrc,
          has_lyrics: r.hasLyrics ? 1 : 0,
          popularity: r.popularity,
          artwork: images(r.artwork),
          preview_url: r.previewUrl,
          withdrawn: r.withdrawn ? 1 : 0,
          updated_at: now,
        });
        break;
      }
      case 'related': {
        const r: RelatedRecord = record;
        addReference(artistRefs, r.artistId, line);
        addReference(artistRefs, r.relatedId, line);
        if (r.artistId === r.relatedId) duplicateErrors.push({ line, message: 'an artist cannot be related to itself' });
        related.set(`${r.artistId}\u0000${r.relatedId}`, { artist_id: r.artistId, related_id: r.relatedId, score: r.score });
        break;
      }
    }
  }
  if (duplicateErrors.length > 0) throw new ImportBatchError(duplicateErrors);

  await storage.db.transaction().execute(async (trx: Transaction<Database>) => {
    const referenceErrors = [
      ...(await missingReferences(trx, storage, 'artists', artistRefs, artistIds)),
      ...(await missingReferences(trx, storage, 'albums', albumRefs, albumIds)),
    ];
    if (referenceErrors.length > 0) throw new ImportBatchError(referenceErrors.sort((a, b) => a.line - b.line));

    await upsert(trx, 'artists', ['id'], artists);
    await upsert(trx, 'albums', ['id'], albums);
    await upsert(trx, 'songs', ['id'], songs);
    await upsert(trx, 'related_artists', ['artist_id', 'related_id'], [...related.values()]);
    await upsert(trx, 'catalog_languages', ['tag'], [...languages].map((tag) => ({ tag })));
    await upsert(trx, 'settings', ['key'], [{ key: 'catalog_version', value: randomUUID() }]);
  });
  // Counted after the commit: a batch that was not written counts nothing.
  return {
    artists: countNew(artists.map((r) => r.id), written?.artists),
    albums: countNew(albums.map((r) => r.id), written?.albums),
    songs: countNew(songs.map((r) => r.id), written?.songs),
    related: countNew(related.keys(), written?.related),
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
 * Streams an NDJSON file into the catalog in batched transactions. A batch
 * with a bad line is written not at all and its errors are reported; the
 * other batches are written (upserts make a corrected re-run converge).
 */
export async function importNdjsonFile(
  storage: Storage,
  path: string,
  options: { batchSize?: number; onProgress?: (progress: ImportProgress) => void } = {},
): Promise<ImportOutcome> {
  const batchSize = options.batchSize ?? 2000;
  const summary: ImportSummary = { artists: 0, albums: 0, songs: 0, related: 0 };
  // The summary counts distinct records: one written in two batches (or twice in a file) is one.
  const written = noWrittenKeys();
  const errors: LineError[] = [];
  const stream = createReadStream(path);
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  let batch: NumberedRecord[] = [];
  let batchErrors: LineError[] = [];
  let lineNumber = 0;

  const flush = async () => {
    if (batchErrors.length === 0 && batch.length > 0) {
      try {
        const counts = await writeBatch(storage, batch, Date.now(), written);
        summary.artists += counts.artists;
        summary.albums += counts.albums;
        summary.songs += counts.songs;
        summary.related += counts.related;
      } catch (error) {
        if (!(error instanceof ImportBatchError)) throw error;
        errors.push(...error.errors);
      }
    } else {
      errors.push(...batchErrors);
    }
    batch = [];
    batchErrors = [];
    options.onProgress?.({ bytesRead: stream.bytesRead, linesRead: lineNumber });
  };

  for await (const text of lines) {
    lineNumber++;
    if (text.trim() === '') continue;
    try {
      batch.push({ line: lineNumber, record: parseImportLine(text) });
    } catch (error) {
      batchErrors.push({ line: lineNumber, message: (error as Error).message });
    }
    if (batch.length + batchErrors.length >= batchSize) await flush();
  }
  await flush();
  return { summary, errors };
}
