import type {
  AcquireMusicStreamResponse, Album, AlbumType, Artist, AudioQuality, GetAlbumTracksResponse, GetArtistDiscographyResponse, GetLyricsResponse,
  GetRelatedArtistsResponse, Page, SearchResponse, SearchResult, SearchType, Song, TokenInfoResponse,
} from './types.ts';
import type * as wire from '@maqam/contract';
import { AuthenticationError, MaqamError } from './errors.ts';
import { newIdempotencyKey, RetryBudget, runtimeLocale, send, type CallOptions, type FetchLike, type HttpOptions } from './http.ts';
import { createHistory, createLibrary, type LibraryTransport } from './library.ts';
import { createPlaylists, type PlaylistTransport } from './playlists.ts';
import { PlayReporter, type PlayReporterOptions } from './play-reporter.ts';
import { assert, pages, withItems } from './pages.ts';
import { OAuthSession, type OAuthOptions } from './auth/session.ts';

/**
 * One entry of a batch: the song, or why it could not be had (its `code` is
 * `ERROR_CODE_NOT_FOUND` for unknown and withdrawn songs).
 *
 * @example
 * const result: SongResult = (await maqam.songs.batchGet(['song-1'])).get('song-1')!;
 * if (result.song) play(result.song);
 * else console.warn(result.error.code);
 */
export type SongResult = { readonly song: Song; readonly error?: undefined } | { readonly song?: undefined; readonly error: BatchItemError };

/**
 * Why one id of a batch could not be had.
 *
 * @example
 * const { error }: { error?: BatchItemError } = (await maqam.songs.batchGet(['gone'])).get('gone')!;
 * if (error?.code === 'ERROR_CODE_NOT_FOUND') hide('gone');
 */
export interface BatchItemError {
  readonly code: string;
  readonly message: string;
}

/**
 * One entry of `albums.batchGet`: the album, or why it could not be had.
 *
 * @example
 * const result = (await maqam.albums.batchGet(['album-1'])).get('album-1')!;
 * console.log(result.album?.title.value ?? result.error?.code);
 */
export type AlbumResult = { readonly album: Album; readonly error?: undefined } | { readonly album?: undefined; readonly error: BatchItemError };

/**
 * One entry of `artists.batchGet`: the artist, or why it could not be had.
 *
 * @example
 * const result = (await maqam.artists.batchGet(['artist-1'])).get('artist-1')!;
 * console.log(result.artist?.name.value ?? result.error?.code);
 */
export type ArtistResult = { readonly artist: Artist; readonly error?: undefined } | { readonly artist?: undefined; readonly error: BatchItemError };

/**
 * Page settings of a list call: `pageSize` 1..100 (default 20) and the
 * `nextPageToken` of the page before.
 *
 * @example
 * const page = await maqam.albums.listTracks('album-1', { pageSize: 50, locale: 'ar' });
 */
export interface PageOptions extends CallContext {
  pageSize?: number | undefined;
  pageToken?: string | undefined;
}


/**
 * How a MaqamClient talks to the API. Give `apiKey` (servers) or `auth`
 * (apps acting for a user), not both.
 *
 * @example
 * const options: MaqamClientOptions = {
 *   baseUrl: 'https://api.maqam.example',
 *   apiKey: process.env.MAQAM_API_KEY,
 *   locale: 'ar',
 *   timeoutMs: 5_000,
 *   maxRetries: 2,
 * };
 */
export interface MaqamClientOptions {
  /** The API's base URL, e.g. "https://api.maqam.example". */
  baseUrl: string;
  /** An API key (mk_...), for servers: catalog calls only. */
  apiKey?: string | undefined;
  /** OAuth sign-in for apps acting for a user. */
  auth?: OAuthOptions | undefined;
  /**
   * BCP 47 locale(s) for LocalizedString values and error messages
   * (Accept-Language); per call too. Default: the runtime's language
   * (navigator.language in browsers, Intl's default locale in Node).
   * `''` sends none, and the server answers in its default, Arabic.
   */
  locale?: string | undefined;
  /** A fetch of your own (tests, proxies, instrumentation). */
  fetch?: FetchLike | undefined;
  /** Per attempt; default 15 s. */
  timeoutMs?: number | undefined;
  /** Retries per call for 429, 503 and (reads only) network failures; default 3. */
  maxRetries?: number | undefined;
  /** The longest server-asked wait the client sits out before giving up with RateLimitError; default 30 s. */
  maxRetryDelayMs?: number | undefined;
  /**
   * Retries across all calls of this client: each failed attempt costs a
   * token, each success earns `tokenRatio` back, and no retry is made while
   * half or fewer of `maxTokens` are left. Default 10 and 0.1.
   */
  retryBudget?: { maxTokens?: number | undefined; tokenRatio?: number };
  /** Parallel requests of one batchGet; default 4. */
  batchConcurrency?: number | undefined;
}

/**
 * Per-call settings: the locale (Accept-Language) and an AbortSignal that
 * cancels the call, retries and waits included.
 *
 * @example
 * const controller = new AbortController();
 * const page = await maqam.artists.listRelated('artist-1', { locale: 'en', signal: controller.signal });
 */
export interface CallContext {
  /** BCP 47 language tag(s), e.g. "ar", "en", "fr;q=0.8, ar". */
  locale?: string | undefined;
  signal?: AbortSignal | undefined;
}

const BATCH_SIZE = 100;

/** `path` and the query without empty values. */
function withQuery(path: string, query: Record<string, string | number | undefined>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined && value !== '') search.set(name, String(value));
  return search.size > 0 ? `${path}?${search}` : path;
}

/** A path segment from an id the caller gave: checked, then percent-encoded. */
function id(value: string): string {
  assert(typeof value === 'string' && value !== '', 'ids must be non-empty strings');
  return encodeURIComponent(value);
}

/**
 * The Maqam API client.
 *
 * @example
 * // A server with an API key:
 * const maqam = new MaqamClient({ baseUrl: 'https://api.maqam.example', apiKey: process.env.MAQAM_KEY });
 * const songs = await maqam.songs.batchGet(['song-1', 'song-2'], { locale: 'en' });
 *
 * @example
 * // An app acting for a signed-in user:
 * const maqam = new MaqamClient({ baseUrl, auth: { clientId: 'maqam-demo', redirectUri, storage: localStorageTokens() } });
 * location.href = await maqam.auth.createAuthorizationUrl();
 */
export class MaqamClient {
  readonly #http: HttpOptions;
  readonly #options: MaqamClientOptions;
  readonly #session: OAuthSession | undefined;

  constructor(options: MaqamClientOptions) {
    assert(options && typeof options.baseUrl === 'string' && /^https?:\/\//.test(options.baseUrl), 'baseUrl must be an http(s) URL');
    assert(!(options.apiKey && options.auth), 'give apiKey or auth, not both (the API refuses requests carrying both)');
    this.#options = options;
    this.#http = {
      baseUrl: options.baseUrl.replace(/\/+$/, ''),
      fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
      timeoutMs: options.timeoutMs ?? 15_000,
      maxRetries: options.maxRetries ?? 3,
      maxRetryDelayMs: options.maxRetryDelayMs ?? 30_000,
      retryBudget: new RetryBudget(options.retryBudget?.maxTokens, options.retryBudget?.tokenRatio),
      acceptLanguage: options.locale ?? runtimeLocale(),
    };
    this.#session = options.auth ? new OAuthSession(this.#http, options.auth) : undefined;
  }

  /** Sends a call with the configured credential; with OAuth, a 401 refreshes and retries once. */
  async #call(call: CallOptions, context: CallContext = {}): Promise<Response> {
    // The client's own locale (or the runtime's) is sent by `send`, sign-in's calls included.
    const locale = context.locale;
    const headers: Record<string, string> = { ...call.headers, ...(locale ? { 'accept-language': locale } : {}) };
    const withSignal = { ...call, signal: context.signal };
    if (!this.#session) {
      if (this.#options.apiKey) headers['x-api-key'] = this.#options.apiKey;
      return send(this.#http, { ...withSignal, headers });
    }
    const token = await this.#session.accessToken();
    try {
      return await send(this.#http, { ...withSignal, headers: { ...headers, authorization: `Bearer ${token}` } });
    } catch (error) {
      if (!(error instanceof AuthenticationError)) throw error;
      const fresh = await this.#session.refresh(token); // throws SignInRequiredError if the session is over
      return send(this.#http, { ...withSignal, headers: { ...headers, authorization: `Bearer ${fresh.accessToken}` } });
    }
  }

  /**
   * Any number of ids through a Batch* operation: chunks of 100 with bounded
   * concurrency, answered as one Map in the order the ids were given
   * (duplicates once).
   */
  async #batchGet<Result>(path: string, member: string, ids: readonly string[], context: CallContext): Promise<Map<string, Result>> {
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
        const response = await this.#call(
          // A batch read changes nothing on the server: safe to repeat after a network failure.
          { method: 'POST', path, body: { [member]: chunks[index]!.map((value) => ({ value })) }, idempotent: true },
          { ...context, signal },
        );
        answers[index] = ((await response.json()) as { results: Record<string, Result> }).results;
      }
    };
    const workers = Array.from({ length: Math.min(this.#options.batchConcurrency ?? 4, chunks.length) }, () =>
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

  /** A GET of the catalog: `path` with its `{id}` segments encoded, and the query without empty values. */
  async #get<T>(path: string, context: CallContext, query: Record<string, string | number | undefined> = {}): Promise<T> {
    return (await (await this.#call({ method: 'GET', path: withQuery(path, query), idempotent: true }, context)).json()) as T;
  }

  /**
   * What the calls of a user's library and playlists go through: a POST
   * carries a fresh Idempotency-Key, the same on every retry, so it is
   * retried safely; PUT and DELETE are idempotent (RFC 9110 §9.2.2), so they
   * are retried after a network failure like reads (a replace repeated after
   * it applied meets its own If-Match: 412).
   */
  readonly #transport: PlaylistTransport & LibraryTransport = {
    request: ({ method, path, query = {}, body, headers, context }) => this.#call({
      method, path: withQuery(path, query), body, ...(headers && { headers }),
      idempotent: method === 'GET' || method === 'PUT' || method === 'DELETE',
      ...(method === 'POST' && { idempotencyKey: newIdempotencyKey() }),
    }, context),
    get: (path, context, query) => this.#get(path, context, query),
    post: async <T>(path: string, body: unknown, context: CallContext): Promise<T> =>
      (await (await this.#transport.request({ method: 'POST', path, body, context })).json()) as T,
  };

  /**
   * The signed-in user's library (scope `read` to read, `write` to change):
   * saved songs and albums, followed artists, and the feed of their changes.
   *
   * @example
   * await maqam.library.save({ songs: ['song-1'] });
   * for await (const { song } of maqam.library.list({ types: ['song'] })) console.log(song?.title.value);
   */
  readonly library = createLibrary(this.#transport);

  /**
   * The signed-in user's listening history.
   *
   * @example
   * for await (const entry of maqam.history.list()) console.log(entry.song.title.value, entry.playedAt);
   */
  readonly history = createHistory(this.#transport);

  /**
   * Playlists (scope `write` to change them; `read` or an API key to read a
   * public one): entries with ids of their own, versions, and `edit`, which
   * retries a change against fresh state when another device got there first.
   *
   * @example
   * const playlist = await maqam.playlists.create({ name: 'سهرة', songs: ['song-1'] });
   * await maqam.playlists.add(playlist.id.value, ['song-2']);
   * for await (const item of maqam.playlists.items(playlist.id.value)) console.log(item.position, item.song?.title.value);
   */
  readonly playlists = createPlaylists(this.#transport);

  /**
   * A PlayReporter for this client's player: it measures plays, gives each
   * a playId, queues them while offline and reports them in batches.
   *
   * @example
   * const reporter = maqam.playReporter({ storage: localStorageTokens() });
   * reporter.start('song-1', { durationMs: 215_000 });
   */
  playReporter(options: PlayReporterOptions = {}): PlayReporter {
    return new PlayReporter((plays) => this.history.report(plays), options);
  }

  readonly songs = {
    /**
     * Any number of songs by id: sent in chunks of 100 with bounded
     * concurrency, answered as one Map in the order the ids were given
     * (duplicates once). Each entry has `song` or `error`.
     *
     * @example
     * const results = await maqam.songs.batchGet(ids, { locale: 'ar' });
     * for (const [id, result] of results) console.log(id, result.song?.title.value ?? result.error?.code);
     */
    batchGet: (ids: readonly string[], context: CallContext = {}): Promise<Map<string, SongResult>> =>
      this.#batchGet('/v1/music/songs:batchGet', 'songIdList', ids, context),

    /**
     * One song; NotFoundError if it is unknown or withdrawn.
     *
     * @example
     * const song = await maqam.songs.get('song-1', { locale: 'en' });
     */
    get: async (songId: string, context: CallContext = {}): Promise<Song> =>
      (await this.#get<{ song: Song }>(`/v1/music/songs/${id(songId)}`, context)).song,

    /**
     * A song's lyrics; `syncedLyrics` when they are time-synced. NotFoundError
     * if the song has none (see `song.hasLyrics`).
     *
     * @example
     * const { lyrics, syncedLyrics } = await maqam.songs.lyrics('song-1');
     * const line = syncedLyrics?.lines.findLast((l) => Number(l.startTimeMs) <= audio.currentTime * 1000);
     */
    lyrics: async (songId: string, context: CallContext = {}): Promise<GetLyricsResponse> =>
      this.#get(`/v1/music/songs/${id(songId)}/lyrics`, context),
  };

  readonly albums = {
    /**
     * One album; NotFoundError if it is unknown or withdrawn.
     *
     * @example
     * const album = await maqam.albums.get('album-1');
     * console.log(album.title.value, album.trackCount, album.albumType);
     */
    get: async (albumId: string, context: CallContext = {}): Promise<Album> =>
      (await this.#get<{ album: Album }>(`/v1/music/albums/${id(albumId)}`, context)).album,

    /**
     * Any number of albums by id, chunked like `songs.batchGet`.
     *
     * @example
     * const results = await maqam.albums.batchGet(['album-1', 'album-2']);
     */
    batchGet: (ids: readonly string[], context: CallContext = {}): Promise<Map<string, AlbumResult>> =>
      this.#batchGet('/v1/music/albums:batchGet', 'albumIdList', ids, context),

    /**
     * One page of an album's songs, by disc and track.
     *
     * @example
     * const { items, nextPageToken } = await maqam.albums.listTracks('album-1', { pageSize: 50 });
     */
    listTracks: async (albumId: string, options: PageOptions = {}): Promise<GetAlbumTracksResponse> =>
      withItems(await this.#get<wire.GetAlbumTracksResponse>(`/v1/music/albums/${id(albumId)}/tracks`, options, {
        page_size: options.pageSize, page_token: options.pageToken,
      }), 'tracks'),

    /**
     * Every song of an album, fetching pages as the loop asks for them.
     *
     * @example
     * for await (const song of maqam.albums.tracks('album-1')) console.log(song.discNumber, song.trackNumber, song.title.value);
     */
    tracks: (albumId: string, options: PageOptions = {}): AsyncIterable<Song> =>
      pages((pageToken) => this.albums.listTracks(albumId, { ...options, pageToken }), (page) => page.items, options.pageToken),
  };

  readonly artists = {
    /**
     * An artist's full profile; NotFoundError if it is unknown or withdrawn.
     *
     * @example
     * const artist = await maqam.artists.get('artist-1', { locale: 'ar' });
     */
    get: async (artistId: string, context: CallContext = {}): Promise<Artist> =>
      (await this.#get<{ artist: Artist }>(`/v1/music/artists/${id(artistId)}`, context)).artist,

    /**
     * Any number of artists by id, chunked like `songs.batchGet`.
     *
     * @example
     * const results = await maqam.artists.batchGet(['artist-1', 'artist-2']);
     */
    batchGet: (ids: readonly string[], context: CallContext = {}): Promise<Map<string, ArtistResult>> =>
      this.#batchGet('/v1/music/artists:batchGet', 'artistIdList', ids, context),

    /**
     * The artist's most popular songs (`pageSize` 1..50, default 10), as one
     * page like every list: the API pages no further, so `nextPageToken` is
     * always empty.
     *
     * @example
     * const { items } = await maqam.artists.listTopTracks('artist-1', { pageSize: 5 });
     */
    listTopTracks: async (artistId: string, options: CallContext & { pageSize?: number | undefined } = {}): Promise<Page<Song>> => {
      const { tracks } = await this.#get<wire.GetArtistTopTracksResponse>(`/v1/music/artists/${id(artistId)}/top-tracks`, options, { page_size: options.pageSize });
      return { items: tracks, nextPageToken: '' };
    },

    /**
     * The artist's most popular songs as a bare array.
     *
     * @deprecated Use `listTopTracks`, which answers `{ items, nextPageToken }` as every list does.
     * @example
     * const top = await maqam.artists.topTracks('artist-1', { pageSize: 5 });
     */
    topTracks: async (artistId: string, options: CallContext & { pageSize?: number | undefined } = {}): Promise<Song[]> =>
      (await this.artists.listTopTracks(artistId, options)).items,

    /**
     * One page of the albums crediting an artist, newest first; `albumType` keeps one type.
     *
     * @example
     * const { items } = await maqam.artists.listAlbums('artist-1', { albumType: 'ALBUM_TYPE_SINGLE' });
     */
    listAlbums: async (artistId: string, options: PageOptions & { albumType?: AlbumType | undefined } = {}): Promise<GetArtistDiscographyResponse> =>
      withItems(await this.#get<wire.GetArtistDiscographyResponse>(`/v1/music/artists/${id(artistId)}/albums`, options, {
        album_type: options.albumType, page_size: options.pageSize, page_token: options.pageToken,
      }), 'albums'),

    /**
     * An artist's whole discography, fetching pages as the loop asks for them.
     *
     * @example
     * for await (const album of maqam.artists.albums('artist-1', { albumType: 'ALBUM_TYPE_ALBUM' })) console.log(album.releaseDate);
     */
    albums: (artistId: string, options: PageOptions & { albumType?: AlbumType | undefined } = {}): AsyncIterable<Album> =>
      pages((pageToken) => this.artists.listAlbums(artistId, { ...options, pageToken }), (page) => page.items, options.pageToken),

    /**
     * One page of artists related to an artist.
     *
     * @example
     * const { items, nextPageToken } = await maqam.artists.listRelated('artist-1', { pageSize: 10 });
     */
    listRelated: async (artistId: string, options: PageOptions = {}): Promise<GetRelatedArtistsResponse> =>
      withItems(await this.#get<wire.GetRelatedArtistsResponse>(`/v1/music/artists/${id(artistId)}/related`, options, {
        page_size: options.pageSize, page_token: options.pageToken,
      }), 'artists'),

    /**
     * Every related artist, fetching pages as the loop asks for them.
     *
     * @example
     * for await (const artist of maqam.artists.related('artist-1')) console.log(artist.name.value);
     */
    related: (artistId: string, options: PageOptions = {}): AsyncIterable<Artist> =>
      pages((pageToken) => this.artists.listRelated(artistId, { ...options, pageToken }), (page) => page.items, options.pageToken),
  };

  /**
   * One page of search results: songs, artists and albums as people type
   * them (with or without hamza or article, half typed, misspelled, in
   * another transliteration, in Arabizi or in the other script). Each result
   * holds one of `song`, `artist` or `album`.
   *
   * @example
   * const { items, nextPageToken } = await maqam.search('عمرو د', { types: ['artist', 'song'], pageSize: 10 });
   * for (const result of items) console.log(result.artist?.name.value ?? result.song?.title.value ?? result.album?.title.value);
   */
  readonly search = async (q: string, options: PageOptions & { types?: readonly SearchType[] | undefined } = {}): Promise<SearchResponse> => {
    assert(typeof q === 'string' && q.trim() !== '', 'q must be a non-empty string');
    return withItems(await this.#get<wire.SearchResponse>('/v1/search', options, {
      q, types: options.types?.join(','), page_size: options.pageSize, page_token: options.pageToken,
    }), 'results');
  };

  /**
   * Every search result, fetching pages as the loop asks for them.
   *
   * @example
   * for await (const result of maqam.searchAll('Om Kalthoum', { types: ['song'] })) console.log(result.song?.title.value);
   */
  readonly searchAll = (q: string, options: PageOptions & { types?: readonly SearchType[] | undefined } = {}): AsyncIterable<SearchResult> =>
    pages((pageToken) => this.search(q, { ...options, pageToken }), (page) => page.items, options.pageToken);

  readonly streaming = {
    /**
     * A signed HLS stream of a song for the signed-in user (scope `stream`).
     *
     * @example
     * const { stream } = await maqam.streaming.acquireMusic('song-1', { maxQuality: 'AUDIO_QUALITY_STANDARD' });
     * audio.src = stream.manifestUrl; // Safari; elsewhere an HLS player library
     */
    acquireMusic: async (songId: string, options: CallContext & { maxQuality?: AudioQuality | undefined } = {}): Promise<AcquireMusicStreamResponse> => {
      assert(typeof songId === 'string' && songId !== '', 'songId must be a non-empty string');
      const body = { songId: { value: songId }, ...(options.maxQuality ? { maxQuality: options.maxQuality } : {}) };
      // Acquisition is billable: not repeated after a network failure.
      return (await (await this.#call({ method: 'POST', path: '/v1/streaming/music', body, idempotent: false }, options)).json()) as AcquireMusicStreamResponse;
    },
  };

  /** OAuth sign-in; present when the client was made with `auth`. */
  get auth() {
    const session = this.#session;
    assert(session, 'this client was made without `auth`');
    return {
      /** The redirect URI this client signs in with. */
      redirectUri: session.redirectUri,
      /** @example location.href = await maqam.auth.createAuthorizationUrl({ scope: 'read stream' }); */
      createAuthorizationUrl: (options?: { scope?: string | undefined; state?: string | undefined }) => session.createAuthorizationUrl(options),
      /** @example await maqam.auth.handleRedirect(location.href); */
      handleRedirect: (url: string | URL) => session.handleRedirect(url),
      /** @example await maqam.auth.signOut(); */
      signOut: () => session.signOut(),
      /** @example const signedIn = (await maqam.auth.tokens()) !== null; */
      tokens: () => session.tokens(),
      /** @example const { scope, exp } = await maqam.auth.tokenInfo(); */
      tokenInfo: async (context: CallContext = {}): Promise<TokenInfoResponse> =>
        (await (await this.#call({ method: 'GET', path: '/v1/auth/tokeninfo', idempotent: true }, context)).json()) as TokenInfoResponse,
    };
  }
}

export { MaqamError };
