import { CompiledQuery, sql, type Kysely } from 'kysely';
import type { Database } from '../storage/database.ts';
import type { Storage } from '../storage/storage.ts';
import { popularityOf, type SearchKind } from './search-item.ts';

/** A segment of the index (search/doclist.ts) as a search sees it. */
export interface SegmentInfo {
  readonly id: number;
  readonly size: number;
  /** How many of its items are deleted: it only grows, so it names the content of the deleted bitmap. */
  readonly deletedCount: number;
}

/** An indexed item and its number in its segment. */
export interface ItemRow {
  readonly number: number;
  readonly kind: SearchKind;
  readonly id: string;
  readonly popularity: number;
}

// The per-search statements, written once per dialect and bound with lists as single values: Kysely would
// build and compile each (with a parameter per chunk and item) on every search. On SQLite, CROSS JOIN keeps
// the lists outermost, so each (segment, chunk, word) is one primary-key seek.
const SEGMENTS = CompiledQuery.raw('select id, size, deleted_count from search_segments order by id', []);
const CHUNKS_SQLITE = `select d.segment, d.chunk, d.word, d.offsets
  from json_each(?) c cross join json_each(?) w cross join search_doclists d
  where d.segment = c.value ->> 0 and d.chunk = c.value ->> 1 and d.word = w.value`;
const CHUNKS_POSTGRES = `select d.segment, d.chunk, d.word, d.offsets
  from unnest($1::int[], $2::int[]) c(segment, chunk) cross join unnest($3::text[]) w(word)
  join search_doclists d on d.segment = c.segment and d.chunk = c.chunk and d.word = w.word`;
const ITEMS_SQLITE = `select i.segment, i.number, i.kind, i.item_id, i.popularity
  from json_each(?) c cross join search_items i where i.segment = c.value ->> 0 and i.number = c.value ->> 1`;
const ITEMS_POSTGRES = `select i.segment, i.number, i.kind, i.item_id, i.popularity
  from unnest($1::int[], $2::int[]) c(segment, number) join search_items i on i.segment = c.segment and i.number = c.number`;

export function createSearchRepo(storage: Storage) {
  const on = (db: Kysely<Database>) => searchReads(storage, db);
  return {
    ...on(storage.db),
    /**
     * Runs a search's reads in one snapshot of the index. Its statements
     * read the segment list, then deleted bitmaps, postings and items: read
     * one by one while an import commits (a new segment, earlier copies
     * marked deleted, segments merged), they mixed two states of the index,
     * and a search for titles being imported again answered nothing
     * (test/video/video-concurrency.test.ts, on PostgreSQL).
     */
    snapshot<T>(work: (reads: SearchReads) => Promise<T>): Promise<T> {
      const transaction = storage.db.transaction();
      return (storage.dialect === 'postgres' ? transaction.setIsolationLevel('repeatable read').setAccessMode('read only') : transaction)
        .execute((trx) => work(on(trx)));
    },
  };
}

export type SearchReads = ReturnType<typeof searchReads>;

function searchReads(storage: Storage, db: Kysely<Database>) {
  const postgres = storage.dialect === 'postgres';
  const itemOf = (row: { number: number | string; kind: SearchKind; item_id: string; popularity: number | string }): ItemRow =>
    ({ number: Number(row.number), kind: row.kind, id: row.item_id, popularity: popularityOf(row.popularity) });

  return {
    async vocabulary(): Promise<{ word: string; keys: string }[]> {
      return db.selectFrom('search_vocabulary').select(['word', 'keys']).execute();
    },

    /** The index's segments, oldest first. */
    async segments(): Promise<SegmentInfo[]> {
      const { rows } = await db.executeQuery<{ id: number | string; size: number | string; deleted_count: number | string }>(SEGMENTS);
      return rows.map((row) => ({ id: Number(row.id), size: Number(row.size), deletedCount: Number(row.deleted_count) }));
    },

    /** These segments' deleted bitmaps, with the count each was written with. */
    async deleted(segments: readonly number[]): Promise<{ id: number; count: number; deleted: Uint8Array | null }[]> {
      if (segments.length === 0) return [];
      const rows = await db.selectFrom('search_segments').select(['id', 'deleted_count', 'deleted']).where('id', 'in', [...segments]).execute();
      return rows.map((row) => ({ id: Number(row.id), count: Number(row.deleted_count), deleted: row.deleted }));
    },

    /** The stored postings of these words in these chunks of segments (a word without postings in a chunk has no row). */
    async chunks(chunks: readonly { segment: number; chunk: number }[], words: readonly string[]): Promise<{ segment: number; chunk: number; word: string; offsets: Uint8Array }[]> {
      if (chunks.length === 0 || words.length === 0) return [];
      const { rows } = await db.executeQuery<{ segment: number | string; chunk: number | string; word: string; offsets: Uint8Array }>(postgres
        ? CompiledQuery.raw(CHUNKS_POSTGRES, [chunks.map((c) => c.segment), chunks.map((c) => c.chunk), words])
        : CompiledQuery.raw(CHUNKS_SQLITE, [JSON.stringify(chunks.map((c) => [c.segment, c.chunk])), JSON.stringify(words)]));
      return rows.map((row) => ({ segment: Number(row.segment), chunk: Number(row.chunk), word: row.word, offsets: row.offsets }));
    },

    /** The items with these numbers, by segment. */
    async items(numbers: ReadonlyMap<number, readonly number[]>): Promise<(ItemRow & { segment: number })[]> {
      const pairs = [...numbers].flatMap(([segment, list]) => list.map((number) => [segment, number] as const));
      if (pairs.length === 0) return [];
      const { rows } = await db.executeQuery<{ segment: number | string; number: number | string; kind: SearchKind; item_id: string; popularity: number | string }>(postgres
        ? CompiledQuery.raw(ITEMS_POSTGRES, [pairs.map((p) => p[0]), pairs.map((p) => p[1])])
        : CompiledQuery.raw(ITEMS_SQLITE, [JSON.stringify(pairs)]));
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
      const text = (column: string) => storage.inByteOrder(column);
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
