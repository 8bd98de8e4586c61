import { sql } from 'kysely';
import type { Storage } from '../storage/storage.ts';
import { popularityOf, type SearchKind } from './search-index.ts';

/** A segment of the index (search/doclist.ts) as a search sees it. */
export interface SegmentInfo {
  readonly id: number;
  readonly size: number;
  readonly deleted: Uint8Array | null;
}

/** An indexed item and its number in its segment. */
export interface ItemRow {
  readonly number: number;
  readonly kind: SearchKind;
  readonly id: string;
  readonly popularity: number;
}

export function createSearchRepo(storage: Storage) {
  const { db } = storage;
  const itemOf = (row: { number: number | string; kind: SearchKind; item_id: string; popularity: number | string }): ItemRow =>
    ({ number: Number(row.number), kind: row.kind, id: row.item_id, popularity: popularityOf(row.popularity) });

  return {
    async vocabulary(): Promise<{ word: string; keys: string }[]> {
      return db.selectFrom('search_vocabulary').select(['word', 'keys']).execute();
    },

    /** The index's segments, oldest first. */
    async segments(): Promise<SegmentInfo[]> {
      const rows = await db.selectFrom('search_segments').select(['id', 'size', 'deleted']).orderBy('id').execute();
      return rows.map((row) => ({ id: Number(row.id), size: Number(row.size), deleted: row.deleted }));
    },

    /** The stored postings of these words in these chunks of segments (a word without postings in a chunk has no row). */
    async chunks(chunks: readonly { segment: number; chunk: number }[], words: readonly string[]): Promise<{ segment: number; chunk: number; word: string; offsets: Uint8Array }[]> {
      if (chunks.length === 0 || words.length === 0) return [];
      const rows = await db.selectFrom('search_doclists').select(['segment', 'chunk', 'word', 'offsets'])
        .where((eb) => eb.or(chunks.map(({ segment, chunk }) => eb.and([eb('segment', '=', segment), eb('chunk', '=', chunk)]))))
        .where('word', 'in', [...words]).execute();
      return rows.map((row) => ({ segment: Number(row.segment), chunk: Number(row.chunk), word: row.word, offsets: row.offsets }));
    },

    /** The items with these numbers, by segment. */
    async items(numbers: ReadonlyMap<number, readonly number[]>): Promise<(ItemRow & { segment: number })[]> {
      const wanted = [...numbers].filter(([, list]) => list.length > 0);
      if (wanted.length === 0) return [];
      const rows = await db.selectFrom('search_items').select(['segment', 'number', 'kind', 'item_id', 'popularity'])
        .where((eb) => eb.or(wanted.map(([segment, list]) => eb.and([eb('segment', '=', segment), eb('number', 'in', [...list])]))))
        .execute();
      return rows.map((row) => ({ ...itemOf(row), segment: Number(row.segment) }));
    },

    /**
     * In each segment, the first number whose item comes after `after` in
     * walk order (the segment's size when none does): the first item of the
     * same popularity and a greater (id, kind), else the first of the next
     * popularity below. Seeks in search_items_walk, one statement for all.
     */
    async firstAfter(segments: readonly number[], after: readonly [popularity: number, id: string, kind: string]): Promise<Map<number, number>> {
      if (segments.length === 0) return new Map();
      const [popularity, id, kind] = after;
      const text = (column: string) => sql.raw(storage.dialect === 'postgres' ? `${column} collate "C"` : column);
      const { rows } = await sql<{ segment: number | string; first: number | string }>`
        select s.id as segment, coalesce(
          (select i.number from search_items i where i.segment = s.id and i.popularity = ${popularity}
             and (${text('i.item_id')}, ${text('i.kind')}) > (${id}, ${kind})
           order by ${text('i.item_id')}, ${text('i.kind')} limit 1),
          (select i.number from search_items i where i.segment = s.id
             and i.popularity = (select max(j.popularity) from search_items j where j.segment = s.id and j.popularity < ${popularity})
           order by ${text('i.item_id')}, ${text('i.kind')} limit 1),
          s.size) as first
        from search_segments s where s.id in (${sql.join(segments)})`.execute(db);
      return new Map(rows.map((row) => [Number(row.segment), Number(row.first)]));
    },
  };
}

export type SearchRepo = ReturnType<typeof createSearchRepo>;
