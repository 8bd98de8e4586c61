import type { Kysely, Selectable } from 'kysely';
import type { BulkUpsert } from '../storage/bulk-upsert.ts';
import type { Database, EpisodesTable, MoviesTable } from '../storage/database.ts';

/** The tables whose rows keep their answers as templates. */
export type TemplatedTable = 'movies' | 'episodes';
/** A row of one of them, whole. */
export type TemplatedRow = Selectable<MoviesTable> | Selectable<EpisodesTable>;

/** What rewrites films' and episodes' templates (title-templates.format.ts), in the caller's transaction. */
export function createTitleTemplatesRepo(trx: Kysely<Database>, upsert: BulkUpsert) {
  return {
    async count(table: TemplatedTable): Promise<number> {
      const { total } = await trx.selectFrom(table).select((eb) => eb.fn.countAll<number | string>().as('total')).executeTakeFirstOrThrow();
      return Number(total);
    },

    /** The next `limit` rows of the table, whole, in id order after `after`. */
    rowsAfter(table: TemplatedTable, after: string, limit: number): Promise<TemplatedRow[]> {
      return trx.selectFrom(table).selectAll().where('id', '>', after).orderBy('id').limit(limit).execute();
    },

    /** These rows of the table, whole. */
    rowsByIds(table: TemplatedTable, ids: readonly string[]): Promise<TemplatedRow[]> {
      return trx.selectFrom(table).selectAll().where('id', 'in', ids).execute();
    },

    /** Writes these rows of the table back, whole (their templates changed). */
    async write(table: TemplatedTable, rows: TemplatedRow[]): Promise<void> {
      await upsert(trx, table, ['id'], rows as never);
    },
  };
}

export type TitleTemplatesRepo = ReturnType<typeof createTitleTemplatesRepo>;
