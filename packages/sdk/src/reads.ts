// What the catalog's resources (catalog.ts for music, video.ts) share: items
// read by id, one or any number at a time, and one page of a list. Written
// once, so each kind of item costs the bundle a path and a name.
import { jsonCalls, requestJson, type CallContext, type PageOptions, type Transport } from './request.ts';
import { assert, withItems } from './pages.ts';

const BATCH_SIZE = 100;

/** A path segment from an id the caller gave: checked, then percent-encoded. */
export function pathId(value: string): string {
  assert(typeof value === 'string' && value !== '', 'ids must be non-empty strings');
  return encodeURIComponent(value);
}

/**
 * The reads of the catalog's resources over one transport. `batchConcurrency`
 * is read at each batch, so the client's options may be given after this is made.
 */
export function catalogReads(transport: Transport, batchConcurrency: () => number) {
  const { get } = jsonCalls(transport);

  /**
   * Any number of ids through a Batch* operation: chunks of 100 with bounded
   * concurrency, answered as one Map in the order the ids were given
   * (duplicates once).
   */
  async function batchGet<Result>(path: string, member: string, ids: readonly string[], context: CallContext): Promise<Map<string, Result>> {
    assert(Array.isArray(ids) && ids.every((id) => typeof id === 'string' && id !== ''), 'ids must be non-empty strings');
    const unique = [...new Set(ids)];
    const chunks: string[][] = [];
    for (let i = 0; i < unique.length; i += BATCH_SIZE) chunks.push(unique.slice(i, i + BATCH_SIZE));
    const answers: Record<string, Result>[] = new Array(chunks.length);
    // The first chunk that fails fails the batch: the chunks still in flight are cancelled, none more is sent.
    const failed = new AbortController();
    const signal = context.signal ? AbortSignal.any([context.signal, failed.signal]) : failed.signal;
    let next = 0;
    const worker = async () => {
      while (next < chunks.length && !signal.aborted) {
        const index = next++;
        // A batch read changes nothing on the server: safe to repeat after a network failure.
        const body = { [member]: chunks[index]!.map((value) => ({ value })) };
        answers[index] = (await requestJson<{ results: Record<string, Result> }>(transport, {
          method: 'POST', path, body, idempotent: true, context: { ...context, signal },
        })).results;
      }
    };
    const workers = Array.from({ length: Math.min(batchConcurrency(), chunks.length) }, () =>
      worker().catch((error: unknown) => {
        failed.abort(error);
        throw error;
      }));
    await Promise.all(workers);
    const merged = new Map<string, Result>();
    chunks.forEach((chunk, index) => {
      for (const id of chunk) merged.set(id, answers[index]![id]!);
    });
    return merged;
  }

  return {
    get,

    /**
     * GetX and BatchGetX of one kind of item: `path` is its collection
     * (`/v1/music/songs`), `member` its name in the answers (`song`, and
     * `songIdList` in a batch's body). A resource states its `get`'s type
     * where it hands it out (`as (songId: string, ...) => Promise<Song>`):
     * inferred through `Item`, the declarations would spell out a Song's
     * every field instead of naming it.
     */
    item: <Item, Result>(path: string, member: string) => ({
      get: async (id: string, context: CallContext = {}): Promise<Item> =>
        (await get<Record<string, Item>>(`${path}/${pathId(id)}`, context))[member]!,
      batchGet: (ids: readonly string[], context: CallContext = {}): Promise<Map<string, Result>> =>
        batchGet<Result>(`${path}:batchGet`, `${member}IdList`, ids, context),
    }),

    /** One page of a list (`page_size`, `page_token` and `query`), its wire items also under `items`. */
    page: async <Answer extends { nextPageToken: string }, Key extends keyof Answer>(
      path: string, key: Key, options: PageOptions, query: Record<string, string | undefined> = {},
    ): Promise<Answer & { items: Answer[Key] }> =>
      withItems(await get<Answer>(path, options, { ...query, page_size: options.pageSize, page_token: options.pageToken }), key),
  };
}
