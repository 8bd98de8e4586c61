import type { Insertable } from 'kysely';
import type { Database } from '../storage/database.ts';

/**
 * The rows a batch of import records becomes, as a record kind's file
 * (kinds/) adds to them: one list per table, the ids the batch writes, the
 * ids its records reference (with the lines that reference them), and the
 * errors found on the way. ImportBatch is the one there is; a kind's file
 * sees only this.
 */
export interface BatchRows {
  readonly artists: Insertable<Database['artists']>[];
  readonly albums: Insertable<Database['albums']>[];
  readonly songs: Insertable<Database['songs']>[];
  readonly related: Map<string, Insertable<Database['related_artists']>>;
  /** Keyed by song: a later lyrics record for a song replaces an earlier one, in a batch as across batches. */
  readonly lyrics: Map<string, Insertable<Database['lyrics']>>;
  readonly songArtists: Insertable<Database['song_artists']>[];
  readonly shows: Insertable<Database['shows']>[];
  readonly seasons: Insertable<Database['seasons']>[];
  readonly episodes: Insertable<Database['episodes']>[];
  readonly movies: Insertable<Database['movies']>[];
  /** The soundtracks of the batch's shows and films (each title's listed whole: its stored rows are replaced). */
  readonly titleSongs: Insertable<Database['title_songs']>[];
  readonly showIds: Set<string>;
  readonly seasonIds: Set<string>;
  readonly episodeIds: Set<string>;
  readonly movieIds: Set<string>;
  readonly showRefs: Map<string, number[]>;
  readonly seasonRefs: Map<string, number[]>;
  /** Episodes that name their show: the line, the season and the show it must belong to (checked when the batch is written). */
  readonly episodeShows: { readonly line: number; readonly seasonId: string; readonly showId: string }[];
  readonly albumArtists: Insertable<Database['album_artists']>[];
  readonly songIds: Set<string>;
  readonly artistIds: Set<string>;
  readonly albumIds: Set<string>;
  readonly songRefs: Map<string, number[]>;
  readonly artistRefs: Map<string, number[]>;
  readonly albumRefs: Map<string, number[]>;
  readonly errors: { line: number; message: string }[];
  /** The languages the batch's texts are written in. */
  readonly languages: Set<string>;
  /** The songs' templates, if the batch was read with them built (ImportBatch.buildTemplates). */
  readonly templates: PrebuiltTemplates | undefined;
  /** The rows' updated_at. */
  readonly now: number;
  /** Notes an id of the batch; the second record of one id is an error of its line. */
  noteId(kind: RecordWithId, id: string, line: number): void;
  /** Notes the languages of a localized text (the catalog's languages, for locale negotiation). */
  noteLanguages(map: Record<string, string>, original: string): void;
}

/** The kinds of record that declare an id of their own. */
export type RecordWithId = 'artist' | 'album' | 'song' | 'show' | 'season' | 'episode' | 'movie';

/** A batch's song templates built with it (ImportBatch.templates): song i's are bytes[ends[i - 1], ends[i]). */
export interface PrebuiltTemplates {
  readonly bytes: Uint8Array;
  readonly ends: Uint32Array;
  readonly hasLyrics: Uint8Array;
}

export const lower = (tag: string) => tag.toLowerCase();
export function texts(map: Record<string, string>): string {
  return JSON.stringify(Object.fromEntries(Object.entries(map).map(([tag, text]) => [lower(tag), text])));
}
/** Keeps exactly the Image members, so the stored JSON can be spliced into responses as is. */
export function images(list: readonly { url: string; width: number; height: number }[]): string {
  return JSON.stringify(list.map(({ url, width, height }) => ({ url, width, height })));
}

export function addReference(map: Map<string, number[]>, id: string, line: number): void {
  const lines = map.get(id);
  if (lines) lines.push(line);
  else map.set(id, [line]);
}
