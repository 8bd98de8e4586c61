import type { Kysely, Selectable } from 'kysely';
import { createBulkUpsert } from '../storage/bulk-upsert.ts';
import type { Database, EpisodesTable, MoviesTable } from '../storage/database.ts';
import type { Storage } from '../storage/storage.ts';
import { RebuildCount, rebuildInPages, type StoredFormat } from '../storage/stored-formats.ts';
import { episodeTemplate, movieTemplate, TITLE_TEMPLATE_FORMAT } from './render.ts';
import { createTitleTemplatesRepo, type TemplatedRow, type TemplatedTable, type TitleTemplatesRepo } from './title-templates.repo.ts';

/**
 * Writes the templates of these films or episodes again from what their rows
 * hold now. The import writes a title's template with its row; anything else
 * that changes such a row calls this in the same transaction, after.
 */
export async function rewriteTitleTemplates(trx: Kysely<Database>, storage: Pick<Storage, 'dialect'>, table: TemplatedTable, ids: readonly string[]): Promise<void> {
  const templates = createTitleTemplatesRepo(trx, createBulkUpsert(storage));
  await writeTemplatesOf(templates, table, await templates.rowsByIds(table, ids));
}

/** The rows with their templates built again from what they hold. */
async function writeTemplatesOf(templates: TitleTemplatesRepo, table: TemplatedTable, rows: readonly TemplatedRow[]): Promise<void> {
  const build = table === 'movies'
    ? (row: TemplatedRow) => movieTemplate(row as Selectable<MoviesTable>)
    : (row: TemplatedRow) => episodeTemplate(row as Selectable<EpisodesTable>);
  await templates.write(table, rows.map((row) => ({ ...row, template: build(row).build(TITLE_TEMPLATE_FORMAT) })));
}

/** Titles a transaction: each commits its page, so a rebuild cut off keeps what it wrote. */
const PAGE = 2000;

/**
 * Films' and episodes' templates (title-template.ts) as a stored format: a
 * database whose templates are of another version, or that never recorded
 * one, has them all written again from the rows, a page at a time
 * (rebuildInPages).
 */
export const titleTemplatesFormat: StoredFormat = {
  name: 'video-title-templates',
  version: TITLE_TEMPLATE_FORMAT,
  async rebuild(storage, progress) {
    const { db } = storage;
    const upsert = createBulkUpsert(storage);
    const repo = createTitleTemplatesRepo(db, upsert);
    const total = (await repo.count('movies')) + (await repo.count('episodes'));
    const count = new RebuildCount(total, progress);
    for (const table of ['movies', 'episodes'] as const) {
      await rebuildInPages(storage, async (trx, _lock, after) => {
        const templates = createTitleTemplatesRepo(trx, upsert);
        const rows = await templates.rowsAfter(table, after, PAGE);
        await writeTemplatesOf(templates, table, rows);
        return rows.map((row) => row.id);
      }, count.written);
    }
    return count.done;
  },
};
