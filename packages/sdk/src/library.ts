import type { Change, ContinueWatchingItem, FollowedArtist, GetContinueWatchingResponse, HistoryEntry, Play, ProgressReport, SavedItem, User } from './types.ts';
import { jsonCalls, type BatchItemError, type CallContext, type PageOptions, type Transport } from './request.ts';
import { assert, every, pages } from './pages.ts';
import type * as wire from '@maqam/contract';

/**
 * Everything a user has put into Maqam, as one document: their profile,
 * saved songs and albums, followed artists, whole listening history,
 * playlists with every entry, and viewing positions, each item by id and by
 * title in the language asked for (the GDPR's rights of access and
 * portability).
 *
 * @example
 * const data: UserExport = await maqam.library.exportMyData();
 * console.log(`${data.plays.length} plays, ${data.playlists.length} playlists`);
 */
export type UserExport = wire.UserExport;

/**
 * Songs and albums to save, remove or check: 1 to 100 ids in all.
 *
 * @example
 * const items: LibraryItems = { songs: ['song-1', 'song-2'], albums: ['album-1'] };
 */
export interface LibraryItems {
  songs?: readonly string[] | undefined;
  albums?: readonly string[] | undefined;
}

/**
 * Films and episodes to hide from continue watching: 1 to 100 ids in all.
 *
 * @example
 * const titles: LibraryTitles = { movies: ['movie-1'], episodes: ['episode-7'] };
 */
export interface LibraryTitles {
  movies?: readonly string[] | undefined;
  episodes?: readonly string[] | undefined;
}

/**
 * What saving one item answered: when it was first saved, or why it was not (`ERROR_CODE_NOT_FOUND`).
 *
 * @example
 * const result: SaveResult = (await maqam.library.save({ songs: ['song-1'] })).songs.get('song-1')!;
 * if (result.error) showToast(result.error.message);
 */
export type SaveResult = { readonly savedAt: string; readonly error?: undefined } | { readonly savedAt?: undefined; readonly error: BatchItemError };

/**
 * What following one artist answered.
 *
 * @example
 * const result: FollowResult = (await maqam.library.follow(['artist-1'])).get('artist-1')!;
 */
export type FollowResult = { readonly followedAt: string; readonly error?: undefined } | { readonly followedAt?: undefined; readonly error: BatchItemError };

/**
 * What reporting one play answered: whether it counts (30 s, or half of a
 * song shorter than a minute), or why it was refused.
 *
 * @example
 * const result: PlayResult = (await maqam.history.report([play])).get(play.playId)!;
 */
export type PlayResult = { readonly counted: boolean; readonly error?: undefined } | { readonly counted?: undefined; readonly error: BatchItemError };

/**
 * What one progress report answered: the title's resume point after it (0:
 * none) and whether the title is finished, or why the report was refused.
 *
 * @example
 * const [result]: ProgressResult[] = await maqam.library.progress.report([report]);
 * if (result?.finished) showNextEpisode();
 */
export type ProgressResult =
  | { readonly positionMs: number; readonly finished: boolean; readonly error?: undefined }
  | { readonly positionMs?: undefined; readonly finished?: undefined; readonly error: BatchItemError };

const MAX_IDS = 100;

function idList(ids: readonly string[] | undefined, what: string): { value: string }[] {
  if (ids === undefined) return [];
  assert(Array.isArray(ids) && ids.every((id) => typeof id === 'string' && id !== ''), `${what} must be non-empty strings`);
  return ids.map((value) => ({ value }));
}

/** A body of typed id lists named after the kinds (`songs` -> `songIdList`), 1 to 100 ids in all. */
function idLists(items: object, kinds: readonly string[]): Record<string, { value: string }[]> {
  assert(items && typeof items === 'object', `give { ${kinds.join(', ')} }`);
  const body: Record<string, { value: string }[]> = {};
  let count = 0;
  for (const kind of kinds) count += (body[`${kind.slice(0, -1)}IdList`] = idList((items as Record<string, readonly string[] | undefined>)[kind], kind)).length;
  assert(count >= 1 && count <= MAX_IDS, `give 1 to ${MAX_IDS} ids in all`);
  return body;
}

const itemsBody = (items: LibraryItems) => idLists(items, ['songs', 'albums']);

/** FollowArtists' and its siblings' body: 1 to 100 artist ids. */
function artistsBody(artistIds: readonly string[]): { artistIdList: { value: string }[] } {
  const body = { artistIdList: idList(artistIds, 'artistIds') };
  assert(body.artistIdList.length >= 1 && body.artistIdList.length <= MAX_IDS, `give 1 to ${MAX_IDS} artist ids`);
  return body;
}

const asMap = <V>(record: Record<string, V>) => new Map(Object.entries(record));

/**
 * A user's library changes since a cursor, in commit order: iterate it to
 * catch up, then keep `cursor` (it moves as each page is read) for the next
 * sync. Without a cursor, the first sync only marks now.
 *
 * @example
 * const feed = maqam.library.changes({ cursor: localStorage.getItem('cursor') ?? undefined });
 * for await (const change of feed) apply(change);
 * localStorage.setItem('cursor', feed.cursor!);
 */
export interface ChangeFeed extends AsyncIterable<Change> {
  /** Where the next sync starts: the cursor after the last page read (undefined until one is). */
  readonly cursor: string | undefined;
}

export function createLibrary(transport: Transport) {
  // Its POSTs carry an Idempotency-Key, the same on every retry, so a retry cannot apply twice.
  const { get, post } = jsonCalls(transport);
  const listContinueWatching = (options: PageOptions = {}) =>
    get<GetContinueWatchingResponse>('/v1/library/continue-watching', options, { page_size: options.pageSize, page_token: options.pageToken });
  const listPage = (options: PageOptions & { types?: readonly ('song' | 'album')[] | undefined } = {}) =>
    get<{ items: SavedItem[]; nextPageToken: string }>('/v1/library/saved', options, {
      types: options.types?.join(','), page_size: options.pageSize, page_token: options.pageToken,
    });
  return {
    /**
     * Saves songs and albums (1 to 100 ids in all). Saving again keeps the
     * first `savedAt`; an unknown or withdrawn id answers an error and is
     * not saved. Safe to retry: the SDK sends an Idempotency-Key.
     *
     * @example
     * const { songs } = await maqam.library.save({ songs: ['song-1'] });
     * heart.classList.toggle('on', songs.get('song-1')?.savedAt !== undefined);
     */
    save: async (items: LibraryItems, context: CallContext = {}): Promise<{ songs: Map<string, SaveResult>; albums: Map<string, SaveResult> }> => {
      const answer = await post<{ songs: Record<string, SaveResult>; albums: Record<string, SaveResult> }>('/v1/library/saved:batchAdd', itemsBody(items), context);
      return { songs: asMap(answer.songs), albums: asMap(answer.albums) };
    },

    /**
     * Removes songs and albums; removing what is not saved succeeds.
     *
     * @example
     * await maqam.library.remove({ albums: ['album-1'] });
     */
    remove: async (items: LibraryItems, context: CallContext = {}): Promise<void> => {
      await post('/v1/library/saved:batchRemove', itemsBody(items), context);
    },

    /**
     * Whether each song and album is saved, and since when.
     *
     * @example
     * const { songs } = await maqam.library.check({ songs: visibleSongIds });
     * for (const [id, { saved }] of songs) hearts.get(id)!.on = saved;
     */
    check: async (items: LibraryItems, context: CallContext = {}) => {
      type State = { readonly saved: boolean; readonly savedAt?: string };
      const answer = await post<{ songs: Record<string, State>; albums: Record<string, State> }>('/v1/library/saved:check', itemsBody(items), context);
      return { songs: asMap(answer.songs), albums: asMap(answer.albums) };
    },

    /**
     * One page of saved songs and albums, newest save first.
     *
     * @example
     * const { items, nextPageToken } = await maqam.library.listPage({ types: ['song'], pageSize: 50 });
     */
    listPage,

    /**
     * Every saved song and album, newest save first, fetching pages as the loop asks.
     *
     * @example
     * for await (const { song, savedAt } of maqam.library.list({ types: ['song'] })) console.log(song?.title.value, savedAt);
     */
    list: (options: PageOptions & { types?: readonly ('song' | 'album')[] | undefined } = {}): AsyncIterable<SavedItem> =>
      pages((pageToken) => listPage({ ...options, pageToken }), (page) => page.items, options.pageToken),

    /**
     * Follows artists (1 to 100). Safe to retry.
     *
     * @example
     * await maqam.library.follow(['artist-1']);
     */
    follow: async (artistIds: readonly string[], context: CallContext = {}): Promise<Map<string, FollowResult>> => {
      return asMap((await post<{ artists: Record<string, FollowResult> }>('/v1/library/following/artists:batchAdd', artistsBody(artistIds), context)).artists);
    },

    /**
     * Unfollows artists; unfollowing one not followed succeeds.
     *
     * @example
     * await maqam.library.unfollow(['artist-1']);
     */
    unfollow: async (artistIds: readonly string[], context: CallContext = {}): Promise<void> => {
      await post('/v1/library/following/artists:batchRemove', artistsBody(artistIds), context);
    },

    /**
     * Whether the user follows each artist, and since when.
     *
     * @example
     * const following = (await maqam.library.isFollowing(['artist-1'])).get('artist-1')?.following;
     */
    isFollowing: async (artistIds: readonly string[], context: CallContext = {}) => {
      return asMap((await post<{ artists: Record<string, { readonly following: boolean; readonly followedAt?: string }> }>(
        '/v1/library/following/artists:check', artistsBody(artistIds), context)).artists);
    },

    /**
     * Every followed artist, newest follow first, fetching pages as the loop asks.
     *
     * @example
     * for await (const { artist } of maqam.library.followed()) console.log(artist.name.value);
     */
    followed: (options: PageOptions = {}): AsyncIterable<FollowedArtist> =>
      pages((pageToken) => get<{ items: FollowedArtist[]; nextPageToken: string }>('/v1/library/following/artists', options, {
        page_size: options.pageSize, page_token: pageToken,
      }), (page) => page.items, options.pageToken),

    /**
     * The library's changes since `cursor` (saves, removals, follows), in
     * commit order. A cursor older than 90 days is refused with
     * InvalidRequestError: read the lists again, then sync from a new one.
     *
     * @example
     * const feed = maqam.library.changes({ cursor });
     * for await (const change of feed) if (change.kind === 'song') hearts.set(change.id, change.change === 'CHANGE_SAVED');
     * cursor = feed.cursor;
     */
    changes: (options: CallContext & { cursor?: string | undefined } = {}): ChangeFeed => {
      let cursor = options.cursor;
      return {
        get cursor() {
          return cursor;
        },
        async *[Symbol.asyncIterator]() {
          for (;;) {
            const page = await get<{ changes: Change[]; nextCursor: string }>('/v1/library/changes', options, { cursor });
            const caughtUp = page.changes.length === 0;
            yield* page.changes;
            // Moved once the whole page was handed out: a loop that stops early reads the rest again next time.
            cursor = page.nextCursor;
            if (caughtUp) return;
          }
        },
      };
    },

    /**
     * The signed-in user's own data, whole, as one document (scope `read`):
     * what a "Download my data" button saves. The server streams it; a
     * history of 100,000 plays is about 15 MB.
     *
     * @example
     * const data = await maqam.library.exportMyData();
     * const link = Object.assign(document.createElement('a'), {
     *   href: URL.createObjectURL(new Blob([JSON.stringify(data)], { type: 'application/json' })),
     *   download: `maqam-export-${data.user.username}.json`,
     * });
     * link.click();
     */
    exportMyData: (context: CallContext = {}): Promise<UserExport> => get<UserExport>('/v1/users/me/export', context),

    progress: {
      /**
       * Reports where the viewer is in films and episodes (1 to 50 reports),
       * answering each one's result in order. A report is kept once per
       * title and `reportedAt`, and the later `reportedAt` wins, so reporting
       * again or late is safe. Most players use `maqam.watchReporter()`, which
       * reports, queues and retries for them.
       *
       * @example
       * const [result] = await maqam.library.progress.report([{ episodeId: { value: 'episode-1' }, positionMs: 600_000, reportedAt: new Date().toISOString() }]);
       */
      report: async (reports: readonly ProgressReport[], context: CallContext = {}): Promise<ProgressResult[]> => {
        assert(Array.isArray(reports) && reports.length >= 1 && reports.length <= 50, 'give 1 to 50 progress reports');
        return (await post<{ results: ProgressResult[] }>('/v1/library/progress:report', { progress: reports }, context)).results;
      },
    },

    /**
     * One page of continue watching, latest first: films in progress, and
     * one entry a show (its episode in progress, or the next one).
     *
     * @example
     * const { items, nextPageToken } = await maqam.library.listContinueWatching({ pageSize: 10 });
     */
    listContinueWatching,

    /**
     * Every title of continue watching, latest first, fetching pages as the loop asks.
     *
     * @example
     * for await (const { movie, episode, positionMs } of maqam.library.continueWatching()) shelf.add(movie ?? episode, positionMs);
     */
    continueWatching: (options: PageOptions = {}): AsyncIterable<ContinueWatchingItem> => every(listContinueWatching, options),

    /**
     * Hides films and episodes from continue watching (1 to 100 ids in all)
     * without forgetting their place: a hidden title comes back, where it
     * was, on its next report. NotFoundError names an unknown id (nothing is
     * hidden then). Safe to retry.
     *
     * @example
     * await maqam.library.hideFromContinueWatching({ episodes: ['episode-1'] });
     */
    hideFromContinueWatching: async (titles: LibraryTitles, context: CallContext = {}): Promise<void> => {
      await post('/v1/library/continue-watching:hide', idLists(titles, ['movies', 'episodes']), context);
    },

    /**
     * The signed-in user.
     *
     * @example
     * const { displayName } = await maqam.library.me();
     */
    me: async (context: CallContext = {}): Promise<User> => (await get<{ user: User }>('/v1/users/me', context)).user,
  };
}

export function createHistory(transport: Transport) {
  const { get, post } = jsonCalls(transport);
  return {
    /**
     * Reports plays (1 to 50); each playId is recorded once, so reporting
     * again is safe. Most apps use `maqam.playReporter()`, which decides,
     * queues and retries for them.
     *
     * @example
     * const results = await maqam.history.report([{ playId, songId: { value: 'song-1' }, startedAt: new Date().toISOString(), msPlayed: 45_000 }]);
     */
    report: async (plays: readonly Play[], context: CallContext = {}): Promise<Map<string, PlayResult>> => {
      assert(Array.isArray(plays) && plays.length >= 1 && plays.length <= 50, 'give 1 to 50 plays');
      return asMap((await post<{ results: Record<string, PlayResult> }>('/v1/library/history:report', { plays }, context)).results);
    },

    /**
     * The user's counted plays, newest first, fetching pages as the loop asks.
     *
     * @example
     * for await (const { song, playedAt } of maqam.history.list({ pageSize: 20 })) console.log(song.title.value, playedAt);
     */
    list: (options: PageOptions = {}): AsyncIterable<HistoryEntry> =>
      pages((pageToken) => get<{ entries: HistoryEntry[]; nextPageToken: string }>('/v1/library/history', options, {
        page_size: options.pageSize, page_token: pageToken,
      }), (page) => page.entries, options.pageToken),
  };
}

/** The library and history resources, by name (see Catalog in catalog.ts). */
export type Library = ReturnType<typeof createLibrary>;
export type History = ReturnType<typeof createHistory>;
