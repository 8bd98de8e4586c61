import type { Playlist, PlaylistItem, PlaylistVisibility } from './types.ts';
import type { CallContext, PageOptions, Transport } from './request.ts';
import { ConflictError, etagVersion } from './errors.ts';
import { assert, pages } from './pages.ts';

/**
 * A write's precondition: `ifMatch` applies it only to that version of the
 * playlist (else ConflictError, status 412, with `currentVersion`). A
 * version is given as the playlist's `version` ('7'), as a number (7), or
 * as the ETag header carries it ('"7"', quotes included); `true` means the
 * version this client last saw of it (from a read or its own write). Writes
 * that name entries by id are safe without one.
 *
 * @example
 * const { playlist } = await maqam.playlists.get(id);
 * await maqam.playlists.update(id, { name: 'سهرة' }, { ifMatch: playlist.version });
 *
 * @example
 * // An ETag kept from a response of your own, quotes and all:
 * await maqam.playlists.update(id, { name: 'سهرة' }, { ifMatch: response.headers.get('etag')! }); // '"7"'
 */
export interface WriteOptions extends CallContext {
  ifMatch?: string | number | true | undefined;
}

/**
 * What an `edit` function answers: the songs the playlist should hold, in
 * order (left out: as they are), and the details to change.
 *
 * @example
 * const dedupe = ({ items }: PlaylistState): PlaylistEdit => ({ songs: [...new Set(items.flatMap((item) => (item.song?.id ? [item.song.id.value] : [])))] });
 */
export interface PlaylistEdit {
  songs?: readonly string[] | undefined;
  name?: string | undefined;
  description?: string | undefined;
  visibility?: PlaylistVisibility | undefined;
}

/**
 * A playlist and every entry, as one version of it.
 *
 * @example
 * const state: PlaylistState = await maqam.playlists.read('pl-1');
 */
export interface PlaylistState {
  readonly playlist: Playlist;
  readonly items: readonly PlaylistItem[];
}

/**
 * What a write of entries answers: the new entries (add, replace), and the playlist's version after it.
 *
 * @example
 * const { items: [entry], version }: ItemsWritten = await maqam.playlists.add('pl-1', ['song-9']);
 */
export interface ItemsWritten {
  readonly items: PlaylistItem[];
  readonly version: string;
}

const MAX_IDS = 100;
/** How many answers of GetPlaylist a client keeps to revalidate with If-None-Match. */
const KEPT_ANSWERS = 32;

const path = (playlistId: string, rest = '') => {
  assert(typeof playlistId === 'string' && playlistId !== '', 'playlist ids must be non-empty strings');
  return `/v1/playlists/${encodeURIComponent(playlistId)}${rest}`;
};

function songList(songs: readonly string[], min: number): { value: string }[] {
  assert(Array.isArray(songs) && songs.every((id) => typeof id === 'string' && id !== ''), 'songs must be non-empty strings');
  assert(songs.length >= min && songs.length <= MAX_IDS, `give ${min} to ${MAX_IDS} songs`);
  return songs.map((value) => ({ value }));
}

/**
 * The version an `ifMatch` names: '7', 7, or the ETag's own form '"7"'
 * (docs/api.md and the ETag header quote it). A weak ETag (W/"7") is
 * refused: If-Match compares strongly (RFC 9110 §13.1.1), so it never matches.
 */
function versionOf(ifMatch: string | number): string {
  const text = typeof ifMatch === 'number' ? String(ifMatch) : ifMatch;
  const version = /^"?(\d+)"?$/.exec(typeof text === 'string' ? text : '');
  assert(version !== null && (text.startsWith('"') === text.endsWith('"')), 'ifMatch must be a version: 7, "7", or the ETag \'"7"\'');
  return version[1]!;
}

function itemIdList(itemIds: readonly string[]): string[] {
  assert(Array.isArray(itemIds) && itemIds.every((id) => typeof id === 'string' && id !== ''), 'itemIds must be non-empty strings');
  assert(itemIds.length >= 1 && itemIds.length <= MAX_IDS, `give 1 to ${MAX_IDS} itemIds`);
  return [...itemIds];
}


export function createPlaylists(transport: Transport) {
  /** The last version this client saw of each playlist: what `ifMatch: true` sends. */
  const versions = new Map<string, string>();
  /** The last GetPlaylist answers, by URL and locale, with their ETags: a 304 answers them again. */
  const answers = new Map<string, { etag: string; body: unknown }>();

  const seen = (playlistId: string, version: string | undefined) => {
    if (version !== undefined) versions.set(playlistId, version);
  };

  function preconditions(playlistId: string, options: WriteOptions): Record<string, string> {
    if (options.ifMatch === undefined) return {};
    if (options.ifMatch === true) {
      const seenVersion = versions.get(playlistId);
      assert(seenVersion !== undefined, `no version of playlist ${playlistId} is known yet: read it first`);
      return { 'if-match': `"${seenVersion}"` };
    }
    return { 'if-match': `"${versionOf(options.ifMatch)}"` };
  }

  async function write<T>(playlistId: string, method: 'POST' | 'PATCH' | 'PUT' | 'DELETE', rest: string, body: unknown, options: WriteOptions): Promise<T> {
    const response = await transport({ method, path: path(playlistId, rest), body, headers: preconditions(playlistId, options), context: options });
    seen(playlistId, etagVersion(response));
    return (await response.json()) as T;
  }

  /** A GET revalidated with the answer this client kept for it, if any. */
  async function revalidated<T>(url: string, query: Record<string, string | number | undefined>, context: CallContext): Promise<T> {
    const key = `${url}?${JSON.stringify(query)}#${context.locale ?? ''}`;
    const kept = answers.get(key);
    const response = await transport({ method: 'GET', path: url, query, headers: kept ? { 'if-none-match': kept.etag } : {}, context });
    if (response.status === 304 && kept) return kept.body as T;
    const body = (await response.json()) as T;
    const etag = response.headers.get('etag');
    answers.delete(key);
    if (etag !== null) answers.set(key, { etag, body });
    if (answers.size > KEPT_ANSWERS) answers.delete(answers.keys().next().value!);
    return body;
  }

  const itemsPage = async (playlistId: string, options: PageOptions = {}) => {
    const page = await transport({ method: 'GET', path: path(playlistId, '/items'), query: { page_size: options.pageSize, page_token: options.pageToken }, context: options });
    const body = (await page.json()) as { items: PlaylistItem[]; version: string; nextPageToken: string };
    seen(playlistId, body.version);
    return body;
  };

  const playlists = {
    /**
     * Makes a playlist for the signed-in user (scope `write`); private
     * unless told. Safe to retry: the SDK sends an Idempotency-Key.
     *
     * @example
     * const playlist = await maqam.playlists.create({ name: 'سهرة', songs: ['song-1', 'song-2'] });
     */
    create: async (details: { name: string; description?: string | undefined; visibility?: PlaylistVisibility | undefined; songs?: readonly string[] | undefined }, context: CallContext = {}): Promise<Playlist> => {
      assert(details && typeof details.name === 'string', 'give { name }');
      const body = { name: details.name, description: details.description, visibility: details.visibility, songIdList: songList(details.songs ?? [], 0) };
      const { playlist } = (await (await transport({ method: 'POST', path: '/v1/playlists', body, context })).json()) as { playlist: Playlist };
      seen(playlist.id.value, playlist.version);
      return playlist;
    },

    /**
     * A playlist and the first page of its entries. A read of one this
     * client read before is revalidated (If-None-Match): unchanged, the
     * server sends nothing and the kept answer is returned.
     *
     * @example
     * const { playlist, items, nextPageToken } = await maqam.playlists.get('pl-1', { pageSize: 50 });
     */
    get: async (playlistId: string, options: PageOptions = {}): Promise<{ playlist: Playlist; items: PlaylistItem[]; nextPageToken: string }> => {
      const answer = await revalidated<{ playlist: Playlist; items: PlaylistItem[]; nextPageToken: string }>(path(playlistId), { page_size: options.pageSize, page_token: options.pageToken }, options);
      seen(playlistId, answer.playlist.version);
      return answer;
    },

    /**
     * One page of a playlist's entries. A page token stays good while the
     * playlist changes: paging on shows the entries there when the first
     * page was read that have not moved since.
     *
     * @example
     * const { items, version, nextPageToken } = await maqam.playlists.itemsPage('pl-1', { pageSize: 100 });
     */
    itemsPage,

    /**
     * Every entry of a playlist, in order, fetching pages as the loop asks.
     *
     * @example
     * for await (const item of maqam.playlists.items('pl-1')) queue.push(item.song);
     */
    items: (playlistId: string, options: PageOptions = {}): AsyncIterable<PlaylistItem> =>
      pages((pageToken) => itemsPage(playlistId, { ...options, pageToken }), (page) => page.items, options.pageToken),

    /**
     * The playlist and every entry, read page by page (an edit made meanwhile
     * shows in its version: write with `ifMatch` to be sure).
     *
     * @example
     * const { playlist, items } = await maqam.playlists.read('pl-1');
     */
    read: async (playlistId: string, context: CallContext = {}): Promise<PlaylistState> => {
      const first = await playlists.get(playlistId, { ...context, pageSize: MAX_IDS });
      const items = [...first.items];
      if (first.nextPageToken) for await (const item of playlists.items(playlistId, { ...context, pageSize: MAX_IDS, pageToken: first.nextPageToken })) items.push(item);
      return { playlist: first.playlist, items };
    },

    /**
     * The signed-in user's playlists, newest first, fetching pages as the loop asks.
     *
     * @example
     * for await (const playlist of maqam.playlists.list()) console.log(playlist.name.value, playlist.itemCount);
     */
    list: (options: PageOptions = {}): AsyncIterable<Playlist> =>
      pages(async (pageToken) => {
        const response = await transport({ method: 'GET', path: '/v1/playlists', query: { page_size: options.pageSize, page_token: pageToken }, context: options });
        const page = (await response.json()) as { playlists: Playlist[]; nextPageToken: string };
        for (const playlist of page.playlists) seen(playlist.id.value, playlist.version);
        return page;
      }, (page) => page.playlists, options.pageToken),

    /**
     * Changes a playlist's name, description or visibility (only its owner may).
     *
     * @example
     * await maqam.playlists.update('pl-1', { visibility: 'PLAYLIST_VISIBILITY_PUBLIC' }, { ifMatch: true });
     */
    update: async (playlistId: string, changes: { name?: string | undefined; description?: string | undefined; visibility?: PlaylistVisibility | undefined }, options: WriteOptions = {}): Promise<Playlist> =>
      (await write<{ playlist: Playlist }>(playlistId, 'PATCH', '', changes, options)).playlist,

    /**
     * Deletes a playlist and its entries.
     *
     * @example
     * await maqam.playlists.delete('pl-1');
     */
    delete: async (playlistId: string, options: WriteOptions = {}): Promise<void> => {
      await write(playlistId, 'DELETE', '', undefined, options);
      versions.delete(playlistId);
    },

    /**
     * Adds songs (1 to 100, each a new entry) at the end, or just before the
     * entry `before`. Safe to retry: the SDK sends an Idempotency-Key.
     *
     * @example
     * const { items: [entry], version } = await maqam.playlists.add('pl-1', ['song-9'], { before: firstItemId });
     */
    add: async (playlistId: string, songs: readonly string[], options: WriteOptions & { before?: string | undefined } = {}): Promise<ItemsWritten> =>
      write(playlistId, 'POST', '/items:batchAdd', { songIdList: songList(songs, 1), beforeItemId: options.before }, options),

    /**
     * Removes entries by their ids (another entry of the same song stays);
     * answers how many were there to remove.
     *
     * @example
     * const { removed } = await maqam.playlists.remove('pl-1', [item.itemId]);
     */
    remove: async (playlistId: string, itemIds: readonly string[], options: WriteOptions = {}): Promise<{ removed: number; version: string }> =>
      write(playlistId, 'POST', '/items:batchRemove', { itemIds: itemIdList(itemIds) }, options),

    /**
     * Moves entries, in the order given, just before the entry `before` (or
     * to the end). An entry that is gone is a ConflictError and nothing moves.
     *
     * @example
     * await maqam.playlists.move('pl-1', [dragged.itemId], { before: dropTarget.itemId });
     */
    move: async (playlistId: string, itemIds: readonly string[], options: WriteOptions & { before?: string | undefined } = {}): Promise<{ version: string }> =>
      write(playlistId, 'POST', '/items:move', { itemIds: itemIdList(itemIds), beforeItemId: options.before }, options),

    /**
     * Replaces every entry with these songs (0 to 100): only against the
     * version you read (`ifMatch` is required), so no change made since is lost.
     *
     * @example
     * await maqam.playlists.replace('pl-1', sortedSongIds, { ifMatch: playlist.version });
     */
    replace: async (playlistId: string, songs: readonly string[], options: WriteOptions & { ifMatch: string | number | true }): Promise<ItemsWritten> => {
      assert(options?.ifMatch !== undefined, 'replace needs ifMatch: the version you read');
      return write(playlistId, 'PUT', '/items', { songIdList: songList(songs, 0) }, options);
    },

    /**
     * Reads the playlist, asks `change` what it should become, and writes
     * that against the version read; when the playlist moved on meanwhile
     * (412), it reads again and asks again, up to `attempts` times. `change`
     * may run more than once: answer from the state it is given. Songs given
     * replace every entry (new itemIds); for one entry, add, remove and move
     * are safe without a version.
     *
     * @example
     * // Sort by title, whatever another device does meanwhile.
     * await maqam.playlists.edit('pl-1', ({ items }) => ({
     *   songs: items.flatMap((item) => (item.song ? [item.song] : []))
     *     .sort((a, b) => a.title.value.localeCompare(b.title.value)).map((song) => song.id.value),
     * }));
     */
    edit: async (playlistId: string, change: (state: PlaylistState) => PlaylistEdit | Promise<PlaylistEdit>, options: CallContext & { attempts?: number | undefined } = {}): Promise<Playlist> => {
      const attempts = options.attempts ?? 5;
      for (let attempt = 1; ; attempt++) {
        const state = await playlists.read(playlistId, options);
        const edit = await change(state);
        const { songs, ...details } = edit;
        const detailsChanged = Object.values(details).some((value) => value !== undefined);
        try {
          let version = state.playlist.version;
          if (songs !== undefined) version = (await playlists.replace(playlistId, songs, { ...options, ifMatch: version })).version;
          if (detailsChanged) return await playlists.update(playlistId, details, { ...options, ifMatch: version });
          return (await playlists.get(playlistId, { ...options, pageSize: 1 })).playlist;
        } catch (error) {
          if (!(error instanceof ConflictError && error.status === 412) || attempt >= attempts) throw error;
        }
      }
    },

    /**
     * The last version this client saw of a playlist (from a read or a write), if any.
     *
     * @example
     * const version = maqam.playlists.version('pl-1');
     */
    version: (playlistId: string): string | undefined => versions.get(playlistId),
  };
  return playlists;
}

/** The playlists resource, by name (see Catalog in catalog.ts). */
export type Playlists = ReturnType<typeof createPlaylists>;
