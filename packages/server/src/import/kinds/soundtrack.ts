import type { Insertable, Kysely } from 'kysely';
import type { BulkUpsert } from '../../storage/bulk-upsert.ts';
import type { Database } from '../../storage/database.ts';
import { inChunks } from '../../storage/id-chunks.ts';
import { addReference, type BatchRows } from '../batch-rows.ts';

/** A show's or film's soundtrack: a row a listed song, in order (a song listed twice is kept where it first appears). */
export function addSoundtrack(rows: BatchRows, line: number, kind: 'show' | 'movie', titleId: string, songIds: readonly string[] | undefined): void {
  const listed = new Set<string>();
  for (const songId of songIds ?? []) {
    if (listed.has(songId)) continue;
    listed.add(songId);
    addReference(rows.songRefs, songId, line);
    rows.titleSongs.push({ title_kind: kind, title_id: titleId, position: listed.size, song_id: songId });
  }
}

/** Replaces the soundtracks of these titles with the batch's rows of them: a record lists its title's songs whole. */
export async function writeSoundtracks(
  trx: Kysely<Database>,
  upsert: BulkUpsert,
  kind: 'show' | 'movie',
  titleIds: ReadonlySet<string>,
  titleSongs: readonly Insertable<Database['title_songs']>[],
): Promise<void> {
  await inChunks([...titleIds], async (chunk) => {
    await trx.deleteFrom('title_songs').where('title_kind', '=', kind).where('title_id', 'in', chunk).execute();
  });
  await upsert(trx, 'title_songs', ['title_kind', 'title_id', 'position'], titleSongs.filter((row) => row.title_kind === kind));
}

/** Audio and subtitle languages as stored: a JSON array of lower-cased BCP 47 tags, each once. */
export function languageList(tags: readonly string[]): string {
  return JSON.stringify([...new Set(tags.map((tag) => tag.toLowerCase()))]);
}
