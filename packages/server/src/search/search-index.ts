import type { Insertable, Kysely } from 'kysely';
import type { Database } from '../storage/database.ts';
import type { BulkUpsert } from '../storage/bulk-upsert.ts';
import type { Storage } from '../storage/storage.ts';
import { searchTerms } from '../text/normalize.ts';

export type SearchKind = 'song' | 'album' | 'artist';

/** An item as the index sees it: its names or titles in every language. */
export interface IndexedItem {
  readonly kind: SearchKind;
  readonly id: string;
  readonly texts: readonly string[];
  /** Withdrawn items leave the index. */
  readonly withdrawn: boolean;
}

/** The posting word of a whole name: '=' and its search words. */
export function wholeNameWord(words: readonly string[]): string {
  return `=${words.join(' ')}`;
}

/**
 * Rewrites the search postings of these items (their old postings go first:
 * a title may have changed) and adds their words to the vocabulary. Runs in
 * the caller's transaction, so a search never sees half a batch.
 */
export async function writeSearchIndex(trx: Kysely<Database>, storage: Storage, upsert: BulkUpsert, items: readonly IndexedItem[]): Promise<void> {
  for (const kind of ['song', 'album', 'artist'] as const) {
    const ids = items.filter((item) => item.kind === kind).map((item) => item.id);
    for (let i = 0; i < ids.length; i += 5000) {
      await trx.deleteFrom('search_postings').where('kind', '=', kind).where('item_id', 'in', storage.idList(ids.slice(i, i + 5000))).execute();
    }
  }
  const { postings, vocabulary } = searchRows(items);
  await upsert(trx, 'search_postings', ['word', 'kind', 'item_id'], postings);
  await upsert(trx, 'search_vocabulary', ['word'], vocabulary);
}

/** The postings and vocabulary rows of these items. */
export function searchRows(items: readonly IndexedItem[]): {
  postings: Insertable<Database['search_postings']>[];
  vocabulary: Insertable<Database['search_vocabulary']>[];
} {
  const postings = new Map<string, Insertable<Database['search_postings']>>();
  const vocabulary = new Map<string, string>();
  for (const item of items) {
    if (item.withdrawn) continue;
    for (const text of item.texts) {
      const terms = searchTerms(text);
      if (terms.length === 0) continue;
      const add = (word: string) => postings.set(`${word}\u0000${item.kind}\u0000${item.id}`, { word, kind: item.kind, item_id: item.id });
      add(wholeNameWord(terms.map((term) => term.word)));
      for (const term of terms) {
        add(term.word);
        vocabulary.set(term.word, term.keys.join(' '));
      }
    }
  }
  return { postings: [...postings.values()], vocabulary: [...vocabulary].map(([word, keys]) => ({ word, keys })) };
}
