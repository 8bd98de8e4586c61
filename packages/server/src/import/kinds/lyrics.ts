import type { LyricsRecord } from '@maqam/contract';
import { LrcError, parseLrc } from '../../catalog/lrc.ts';
import { addReference, lower, type BatchRows } from '../batch-rows.ts';
import type { ImportProjection } from '../projection.ts';
import { writeTemplatesOf } from './song.ts';

/** The synced lines of the lyrics records parseImportLine checked, so a batch's write does not parse them again. */
const parsedLrc = new WeakMap<LyricsRecord, ReturnType<typeof parseLrc>>();

/** Exactly one of `lines` and `lrc`, and an `lrc` that parses (its errors name the LRC line). */
export function checkLyrics(record: LyricsRecord): void {
  if ((record.lines === undefined) === (record.lrc === undefined)) throw new Error('lyrics needs exactly one of "lines" and "lrc"');
  if (record.lrc !== undefined) {
    try {
      parsedLrc.set(record, parseLrc(record.lrc));
    } catch (error) {
      if (error instanceof LrcError) throw new Error(`lyrics ${error.message}`);
      throw error;
    }
  }
}

/** The stored form of a lyrics record: the JSON the API answers, ready to splice. */
function lyricsColumns(record: LyricsRecord): { lines: string; synced_lines: string | null } {
  if (record.lrc === undefined) return { lines: JSON.stringify(record.lines), synced_lines: null };
  const synced = parsedLrc.get(record) ?? parseLrc(record.lrc);
  return {
    lines: JSON.stringify(synced.map((line) => line.text)),
    synced_lines: JSON.stringify(synced.map((line) => ({ text: line.text, startTimeMs: String(line.startTimeMs) }))),
  };
}

/** A lyrics record: its song's lyrics row (a later one for the same song replaces it). */
export function addLyrics(rows: BatchRows, line: number, r: LyricsRecord): void {
  addReference(rows.songRefs, r.songId, line);
  rows.lyrics.set(r.songId, { song_id: r.songId, language: lower(r.language), ...lyricsColumns(r), updated_at: rows.now });
}

/** Writes the batch's lyrics; songs of earlier batches that gain lyrics now say so (their flag and template). */
export const writeLyrics: ImportProjection = async ({ trx, upsert, repo, templates, rows }) => {
  await upsert(trx, 'lyrics', ['song_id'], [...rows.lyrics.values()]);
  const earlierSongs = [...rows.lyrics.keys()].filter((id) => !rows.songIds.has(id));
  if (earlierSongs.length === 0) return;
  await repo.markHavingLyrics(earlierSongs);
  // Their answers now say hasLyrics: true.
  await writeTemplatesOf(templates, await templates.storedSongs(earlierSongs));
};
