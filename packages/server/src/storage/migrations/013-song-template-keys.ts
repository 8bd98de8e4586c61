import { PostgresAdapter, sql, type Kysely } from 'kysely';
import { putSongTemplates } from '../../catalog/song-templates.repo.ts';
import { createBulkUpsert } from '../bulk-upsert.ts';
import type { Database } from '../database.ts';
import { listsOf } from '../storage.ts';

const PAGE = 5000;

/**
 * Song templates keyed by an integer hash of the song id (catalog/song-key.ts),
 * which on SQLite is the rowid: a read is one descent of a B-tree of small
 * inner pages, where the WITHOUT ROWID table keyed by text had inner pages of
 * whole templates, about five a page. Templates of ids whose key another id
 * holds go in `song_template_collisions`. Existing templates are copied, a
 * page at a time.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const blob = postgres ? 'bytea' : 'blob';
  await db.schema.alterTable('song_templates').renameTo('song_templates_by_id').execute();
  await db.schema
    .createTable('song_templates')
    .addColumn('key', postgres ? 'bigint' : 'integer', (c) => c.primaryKey().notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('template', blob, (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('song_template_collisions')
    .addColumn('id', 'text', (c) => c.primaryKey().notNull())
    .addColumn('template', blob, (c) => c.notNull())
    .execute();
  const catalog = db as Kysely<Database>;
  const lists = listsOf(postgres ? 'postgres' : 'sqlite');
  const upsert = createBulkUpsert(catalog);
  let after = '';
  for (;;) {
    const rows: { id: string; template: Uint8Array }[] = await db
      .selectFrom('song_templates_by_id')
      .select(['id', 'template'])
      .where('id', '>', after)
      .orderBy('id')
      .limit(PAGE)
      .execute();
    if (rows.length === 0) break;
    await putSongTemplates(catalog, lists, upsert, rows);
    after = rows[rows.length - 1]!.id;
  }
  await db.schema.dropTable('song_templates_by_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  await db.schema.alterTable('song_templates').renameTo('song_templates_by_key').execute();
  await db.schema
    .createTable('song_templates')
    .addColumn('id', 'text', (c) => c.primaryKey().notNull())
    .addColumn('template', postgres ? 'bytea' : 'blob', (c) => c.notNull())
    .$call((table) => (postgres ? table : table.modifyEnd(sql`without rowid`)))
    .execute();
  await db.insertInto('song_templates').columns(['id', 'template']).expression(db.selectFrom('song_templates_by_key').select(['id', 'template'])).execute();
  await db.insertInto('song_templates').columns(['id', 'template']).expression(db.selectFrom('song_template_collisions').select(['id', 'template'])).execute();
  await db.schema.dropTable('song_templates_by_key').execute();
  await db.schema.dropTable('song_template_collisions').execute();
}
