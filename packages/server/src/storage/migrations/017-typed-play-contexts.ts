import type { Kysely } from 'kysely';

/** Plays rewritten a batch at a time: bounded memory on a history of millions. */
const BATCH = 1_000;

/**
 * A play's context names catalog resources by typed id (contract section 13:
 * `{ "albumId": { "value": "album-1" } }`), as every other body does; plays
 * kept before held the bare id (`{ "albumId": "album-1" }`). GetHistory lists
 * the context as kept, so the kept ones are rewritten once, here. A search
 * query stays text. Walks the primary key in batches; only contexts that
 * hold a bare id are written.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await rewriteContexts(db, typedContext);
}

/** Back to bare ids, as 016's server reads them. */
export async function down(db: Kysely<any>): Promise<void> {
  await rewriteContexts(db, bareContext);
}

async function rewriteContexts(db: Kysely<any>, rewrite: (context: string) => string): Promise<void> {
  let after: { user_id: string; play_id: string } | undefined;
  for (;;) {
    let query = db.selectFrom('play_history').select(['user_id', 'play_id', 'context']).where('context', 'is not', null);
    if (after !== undefined) {
      const { user_id: userId, play_id: playId } = after;
      query = query.where((eb) => eb.or([eb('user_id', '>', userId), eb.and([eb('user_id', '=', userId), eb('play_id', '>', playId)])]));
    }
    const rows: { user_id: string; play_id: string; context: string }[] = await query.orderBy('user_id').orderBy('play_id').limit(BATCH).execute();
    for (const row of rows) {
      const rewritten = rewrite(row.context);
      if (rewritten !== row.context) {
        await db.updateTable('play_history').set({ context: rewritten }).where('user_id', '=', row.user_id).where('play_id', '=', row.play_id).execute();
      }
    }
    if (rows.length < BATCH) return;
    after = rows[rows.length - 1]!;
  }
}

/** The context with its ids typed; the same text when there is nothing to change. */
const typedContext = (text: string) => mapIds(text, (value) => (typeof value === 'string' ? { value } : undefined));

/** The context with its ids bare; the same text when there is nothing to change. */
const bareContext = (text: string) =>
  mapIds(text, (value) => (value !== null && typeof value === 'object' && typeof (value as { value?: unknown }).value === 'string' ? (value as { value: string }).value : undefined));

/** The context with each id member (all but searchQuery) rewritten where `map` answers something. */
function mapIds(text: string, map: (value: unknown) => unknown): string {
  let context: unknown;
  try {
    context = JSON.parse(text);
  } catch {
    return text;
  }
  if (context === null || typeof context !== 'object') return text;
  let changed = false;
  const mapped = Object.fromEntries(Object.entries(context).map(([name, value]) => {
    const rewritten = name === 'searchQuery' ? undefined : map(value);
    if (rewritten === undefined) return [name, value];
    changed = true;
    return [name, rewritten];
  }));
  return changed ? JSON.stringify(mapped) : text;
}
