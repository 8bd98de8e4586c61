import { sql, type ExpressionBuilder, type Expression, type SqlBool } from 'kysely';
import type { Database } from '../storage/database.ts';
import type { Storage } from '../storage/storage.ts';
import type { SearchKind } from './search-index.ts';

/** A posting found by a walk: the item and its popularity. */
export interface WalkRow {
  kind: SearchKind;
  item_id: string;
  popularity: number | string;
}

export interface Walk {
  /** The posting word walked, most popular first. */
  readonly word: string;
  readonly kinds: readonly SearchKind[];
  /** Every other query word: the item must have a posting of one of these words for each. */
  readonly others: readonly (readonly string[])[];
  /** Items whose whole name is this posting word are left out (they rank above). */
  readonly notWholeName?: string;
  /** Items that have, for every query word, a posting of one of these words are left out (they rank above). */
  readonly notAll?: readonly (readonly string[])[];
  /** Keyset: only items after (popularity, id, kind) in the walk's order. */
  readonly after?: readonly [popularity: number, id: string, kind: string];
  /** Only postings at least this popular (the page is already full of more popular ones). */
  readonly minPopularity?: number;
  readonly limit: number;
}

export function createSearchRepo(storage: Storage) {
  const { db } = storage;
  // Ids tie-break in byte order on both dialects (PostgreSQL's default collation would sort them otherwise).
  const byteOrder = storage.dialect === 'postgres' ? (column: string) => sql.raw(`${column} collate "C"`) : (column: string) => sql.raw(column);

  const hasPosting = (eb: ExpressionBuilder<Database & { p: Database['search_postings'] }, 'p'>, words: readonly string[]): Expression<SqlBool> =>
    eb.exists(
      eb.selectFrom('search_postings as x').select('x.item_id')
        .whereRef('x.kind', '=', 'p.kind').whereRef('x.item_id', '=', 'p.item_id')
        .where('x.word', 'in', [...words]),
    );

  return {
    async vocabulary(): Promise<{ word: string; keys: string; max_popularity: number | string }[]> {
      return db.selectFrom('search_vocabulary').select(['word', 'keys', 'max_popularity']).execute();
    },

    /** How many postings a word has, counted up to `cap` (to pick the rarest query word to walk). */
    async postingCount(word: string, cap: number): Promise<number> {
      const row = await db
        .selectFrom((eb) => eb.selectFrom('search_postings').select('item_id').where('word', '=', word).limit(cap).as('capped'))
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    },

    /** The popularity of a word's `nth` most popular posting, or undefined when it has fewer. */
    async popularityAt(word: string, nth: number): Promise<number | undefined> {
      const row = await db.selectFrom('search_postings').select('popularity').where('word', '=', word)
        .orderBy('popularity', 'desc').limit(1).offset(nth - 1).executeTakeFirst();
      return row === undefined ? undefined : Number(row.popularity);
    },

    /**
     * The postings of one word, most popular first (then id, then kind, in
     * byte order), of items that also match every other query word and do
     * not rank in a better tier: an index walk that stops at `limit`.
     */
    async walk(walk: Walk): Promise<WalkRow[]> {
      let query = db
        .selectFrom('search_postings as p')
        .select(['p.kind', 'p.item_id', 'p.popularity'])
        .where('p.word', '=', walk.word)
        .where('p.kind', 'in', [...walk.kinds]);
      if (walk.minPopularity !== undefined) query = query.where('p.popularity', '>=', walk.minPopularity);
      for (const words of walk.others) query = query.where((eb) => hasPosting(eb, words));
      if (walk.notWholeName !== undefined) {
        const whole = walk.notWholeName;
        query = query.where((eb) => eb.not(hasPosting(eb, [whole])));
      }
      if (walk.notAll !== undefined && walk.notAll.length > 0) {
        const groups = walk.notAll;
        query = query.where((eb) => eb.not(eb.and(groups.map((words) => hasPosting(eb, words)))));
      }
      if (walk.after !== undefined) {
        const [popularity, id, kind] = walk.after;
        query = query.where((eb) =>
          eb.or([
            eb('p.popularity', '<', popularity),
            eb.and([
              eb('p.popularity', '=', popularity),
              eb.or([
                eb(sql`${byteOrder('p.item_id')}`, '>', id),
                eb.and([eb('p.item_id', '=', id), eb(sql`${byteOrder('p.kind')}`, '>', kind)]),
              ]),
            ]),
          ]),
        );
      }
      return query
        .orderBy('p.popularity', 'desc')
        .orderBy(byteOrder('p.item_id'))
        .orderBy(byteOrder('p.kind'))
        .limit(walk.limit)
        .execute() as Promise<WalkRow[]>;
    },
  };
}

export type SearchRepo = ReturnType<typeof createSearchRepo>;
