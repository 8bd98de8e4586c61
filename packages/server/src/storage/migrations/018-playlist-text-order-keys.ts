import { PostgresAdapter, sql, type Kysely } from 'kysely';

/** Entries rewritten a batch at a time: bounded memory on any number of playlists. */
const BATCH = 1_000;
const DIGITS = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const WHOLE_DIGITS = 9;
/** Where the keys go: after the middle of the nine digits' range (playlists/order-keys.ts FIRST_WHOLE), so entries put first take whole steps too. */
const FIRST_WHOLE = 2 ** 52;
/** 016's gap between entries renumbered (its order-keys.ts), for going down. */
const RENUMBERED_GAP = 1 << 20;

/**
 * A playlist entry's order key becomes text compared by its bytes (base-62
 * digits: a whole part of nine, then a fraction as long as it needs), so
 * that there is always room between two keys and a playlist is never
 * renumbered: a page token's key stays a place in the playlist whatever
 * happens after it (contract section 14; renumbering made a token whose
 * entry had moved a 400). Each integer key k becomes FIRST_WHOLE + k written
 * in nine digits, the same order; `renumbered_version` goes, as nothing
 * renumbers.
 * Copies what it needs: it imports nothing from the live code.
 */
export async function up(db: Kysely<any>): Promise<void> {
  // PostgreSQL orders text by its collation's rules unless told its bytes.
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  // SQLite runs a migration outside a transaction: one cut off while it rewrote the keys left its column behind.
  if (!postgres && (await sql<{ name: string }>`pragma table_info(playlist_items)`.execute(db)).rows.some((column) => column.name === 'order_text')) {
    await db.schema.alterTable('playlist_items').dropColumn('order_text').execute();
  }
  await db.schema.alterTable('playlist_items').addColumn('order_text', postgres ? sql`text collate "C"` : 'text').execute();
  await rewrite(db, 'order_text', (row) => wholeKey(FIRST_WHOLE + Number(row.order_key)));
  await swapOrderColumn(db, 'order_text');
  await db.schema.alterTable('playlists').dropColumn('renumbered_version').execute();
}

/** Back to integer keys: each playlist's entries numbered by their rank, as 016 renumbered them. */
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('playlists').addColumn('renumbered_version', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('playlist_items').addColumn('order_number', 'bigint').execute();
  const ranks = db.selectFrom('playlist_items')
    .select(['playlist_id', 'item_id', sql<number>`row_number() over (partition by playlist_id order by order_key, item_id)`.as('rank')])
    .as('ranked');
  await db.updateTable('playlist_items').from(ranks)
    .set({ order_number: sql`ranked.rank * ${RENUMBERED_GAP}` })
    .whereRef('playlist_items.playlist_id', '=', 'ranked.playlist_id')
    .whereRef('playlist_items.item_id', '=', 'ranked.item_id')
    .execute();
  await swapOrderColumn(db, 'order_number');
}

/** Sets `column` of every entry from its row, walking the primary key in batches. */
async function rewrite(db: Kysely<any>, column: string, value: (row: { playlist_id: string; item_id: string; order_key: unknown }) => string): Promise<void> {
  let after: { playlist_id: string; item_id: string } | undefined;
  for (;;) {
    let query = db.selectFrom('playlist_items').select(['playlist_id', 'item_id', 'order_key']);
    if (after !== undefined) {
      const { playlist_id: playlistId, item_id: itemId } = after;
      query = query.where((eb) => eb.or([eb('playlist_id', '>', playlistId), eb.and([eb('playlist_id', '=', playlistId), eb('item_id', '>', itemId)])]));
    }
    const rows: { playlist_id: string; item_id: string; order_key: unknown }[] = await query.orderBy('playlist_id').orderBy('item_id').limit(BATCH).execute();
    for (const row of rows) {
      await db.updateTable('playlist_items').set({ [column]: value(row) }).where('playlist_id', '=', row.playlist_id).where('item_id', '=', row.item_id).execute();
    }
    if (rows.length < BATCH) return;
    after = rows[rows.length - 1]!;
  }
}

/** `column` (filled) takes the place of order_key, with the index of the playlist's order over it. */
async function swapOrderColumn(db: Kysely<any>, column: string): Promise<void> {
  await db.schema.dropIndex('playlist_items_in_order').execute();
  await db.schema.alterTable('playlist_items').dropColumn('order_key').execute();
  await db.schema.alterTable('playlist_items').renameColumn(column, 'order_key').execute();
  // 016's index: the playlist's order and its keyset pages, read from it alone.
  await db.schema.createIndex('playlist_items_in_order').on('playlist_items')
    .columns(['playlist_id', 'order_key', 'item_id', 'song_id', 'added_at', 'placed_version']).execute();
}

/** A whole number in nine base-62 digits. */
function wholeKey(whole: number): string {
  let key = '';
  for (let rest = whole, i = 0; i < WHOLE_DIGITS; i++, rest = Math.floor(rest / 62)) key = DIGITS[rest % 62]! + key;
  return key;
}
