import type { Kysely } from 'kysely';
import type { Database } from '../storage/database.ts';
import { NormalizedTexts } from './normalized-texts.ts';
import { readCatalogVersion } from '../storage/catalog-version.ts';
import { inChunks } from '../storage/id-chunks.ts';
import type { WrittenItems } from './search-item.ts';

export const textsOf = (json: string) => Object.values(JSON.parse(json) as Record<string, string>);

/** The most entries each of an IndexMemo's maps keeps (names, titles, album popularity). */
const MEMO_ENTRIES = 1_000_000;

/**
 * What an import's batches keep between them so that each need not read it
 * again: the names songs and albums are found by (their artists' names, a
 * song's album title). The 1M demo import read them back in every batch, 7 s
 * of its 137. The memo is right for the catalog version the import's last
 * batch wrote: a write by anyone else (another import, on any node) changes
 * the version, and a batch that rolled back leaves it unknown, so the next
 * batch starts again from the database. The batch's own artists and albums
 * are read again (they may be renamed).
 */
export class IndexMemo {
  /** The texts the import has normalized (kept across batches whatever the catalog version: normalizing is pure). */
  readonly normalizedTexts = new NormalizedTexts();
  readonly artistNames = new Map<string, readonly string[]>();
  readonly albumTitles = new Map<string, readonly string[]>();
  /**
   * The popularity the index holds for albums, as the import's batches wrote
   * or read it. A batch of new songs raises the albums of its songs where
   * they are more popular, which needs each one's indexed popularity: read
   * back from search_items, that was 4.3 s of the 77 s of statements of a 1M
   * demo import (each album gets songs in every batch). Bounded like the
   * texts.
   */
  readonly albumPopularity = new Map<string, number>();
  /** The catalog version the memo holds for; undefined while a batch is written, or after one failed. */
  #version: string | undefined;

  /** Called in the batch's transaction, after the index lock: forgets everything the catalog may have changed since. */
  async check(trx: Kysely<Database>, written: WrittenItems): Promise<void> {
    const version = await readCatalogVersion(trx);
    if (this.#version === undefined || this.#version !== version) {
      this.artistNames.clear();
      this.albumTitles.clear();
      this.albumPopularity.clear();
    }
    this.#version = undefined;
    for (const id of written.artistIds) this.artistNames.delete(id);
    for (const id of written.albumIds) this.albumTitles.delete(id);
  }

  /** The batch that checked the memo committed, writing this catalog version. */
  committed(version: string): void {
    this.#version = version;
  }

  /** The texts of these ids: remembered, or read (and remembered). */
  texts(
    known: Map<string, readonly string[]>,
    ids: ReadonlySet<string>,
    read: (chunk: string[]) => Promise<{ id: string; texts: string }[]>,
  ): Promise<ReadonlyMap<string, readonly string[]>> {
    return recall(known, ids, read, (row) => [row.id, textsOf(row.texts)]);
  }
}

/**
 * `known` with these ids added: those it lacks are read, a chunk at a time,
 * and each row becomes an entry. An id no row answers stays absent. Bounded:
 * with a catalog of millions of albums it starts again rather than keep
 * them all.
 */
export async function recall<V, Row>(
  known: Map<string, V>,
  ids: Iterable<string>,
  read: (chunk: string[]) => Promise<Row[]>,
  entry: (row: Row) => [string, V],
): Promise<Map<string, V>> {
  let missing = [...ids].filter((id) => !known.has(id));
  if (known.size + missing.length > MEMO_ENTRIES) {
    known.clear();
    missing = [...ids];
  }
  for (const row of await inChunks(missing, read)) known.set(...entry(row));
  return known;
}
