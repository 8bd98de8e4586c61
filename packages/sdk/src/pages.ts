// What the client's resources share: their arguments' checks and their paged lists.
import type { Page } from './types.ts';

/** A caller's mistake in arguments, thrown before any request is sent. */
export function assert(condition: unknown, message: string): asserts condition {
  if (!condition) throw new TypeError(`MaqamClient: ${message}`);
}

/** Every item of a paged list, one page at a time as the loop asks, to the empty token. */
export function pages<Page extends { nextPageToken: string }, Item>(
  list: (pageToken: string | undefined) => Promise<Page>,
  itemsOf: (page: Page) => Item[],
  firstToken?: string,
): AsyncIterable<Item> {
  return {
    async *[Symbol.asyncIterator]() {
      let pageToken = firstToken;
      do {
        const page = await list(pageToken);
        yield* itemsOf(page);
        pageToken = page.nextPageToken || undefined;
      } while (pageToken);
    },
  };
}

/** Every item of a `list*` method's pages, from the page `options.pageToken` names (the first when none). */
export function every<Options extends { pageToken?: string | undefined }, Item>(list: (options: Options) => Promise<Page<Item>>, options: Options): AsyncIterable<Item> {
  return pages((pageToken) => list({ ...options, pageToken }), (page) => page.items, options.pageToken);
}

/** A wire page with its items also under `items`, the name every list of the SDK answers with. */
export function withItems<Answer extends { nextPageToken: string }, Key extends keyof Answer>(answer: Answer, key: Key): Answer & { items: Answer[Key] } {
  return { ...answer, items: answer[key] };
}
