import type { TokenInfoResponse } from './types.ts';
import { AuthenticationError, MaqamError } from './errors.ts';
import { newIdempotencyKey, RetryBudget, runtimeLocale, send, type CallOptions, type FetchLike, type HttpOptions } from './http.ts';
import type { CallContext, Transport } from './request.ts';
import { createCatalog, type Catalog } from './catalog.ts';
import { createStreaming, type Streaming } from './streaming.ts';
import { createVideo, type Video } from './video.ts';
import { createHistory, createLibrary, type History, type Library } from './library.ts';
import { createPlaylists, type Playlists } from './playlists.ts';
import { createDeveloper, type Developer } from './developer.ts';
import { PlayReporter, type PlayReporterOptions } from './play-reporter.ts';
import { WatchReporter, type WatchReporterOptions } from './watch-reporter.ts';
import { assert } from './pages.ts';
import { OAuthSession, type OAuthOptions } from './auth/session.ts';

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

/** `path` and the query without empty values. */
function withQuery(path: string, query: Record<string, string | number | undefined>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined && value !== '') search.set(name, String(value));
  return search.size > 0 ? `${path}?${search}` : path;
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
  async #call(call: CallOptions, context: CallContext = {}, anonymous?: boolean): Promise<Response> {
    // The client's own locale (or the runtime's) is sent by `send`, sign-in's calls included.
    const locale = context.locale;
    const headers: Record<string, string> = { ...call.headers, ...(locale ? { 'accept-language': locale } : {}) };
    const withSignal = { ...call, signal: context.signal };
    if (!this.#session || anonymous) {
      if (this.#options.apiKey && !anonymous) headers['x-api-key'] = this.#options.apiKey;
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
   * The one function every resource sends its calls through (request.ts):
   * a POST carries a fresh Idempotency-Key, the same on every retry, so it
   * is retried safely; PUT and DELETE are idempotent (RFC 9110 §9.2.2), so
   * they are retried after a network failure like reads (a replace repeated
   * after it applied meets its own If-Match: 412). A call that says whether
   * it is idempotent (a batch read, a billable acquisition) carries no key.
   */
  readonly #transport: Transport = ({ method, path, query = {}, body, headers, idempotent, anonymous, context }) => this.#call({
    method, path: withQuery(path, query), body, ...(headers && { headers }),
    idempotent: idempotent ?? (method === 'GET' || method === 'PUT' || method === 'DELETE'),
    ...(method === 'POST' && idempotent === undefined && { idempotencyKey: newIdempotencyKey() }),
  }, context, anonymous);

  readonly #batchConcurrency = () => this.#options.batchConcurrency ?? 4;

  readonly #catalog: Catalog = createCatalog(this.#transport, this.#batchConcurrency);

  /**
   * Shows, seasons, episodes and films, and the songs of their soundtracks.
   * Ids are plain strings, batches any size, lists pages or async iterators,
   * as for music.
   *
   * @example
   * const show = await maqam.video.shows.get('show-1');
   * for await (const episode of maqam.video.seasons.episodes(show.seasons[0]!.id.value)) console.log(episode.title.value);
   * for await (const song of maqam.video.soundtrack({ showId: 'show-1' })) console.log(song.title.value);
   */
  readonly video: Video = createVideo(this.#transport, this.#batchConcurrency);

  /**
   * The signed-in user's library (scope `read` to read, `write` to change):
   * saved songs and albums, followed artists, the feed of their changes, and
   * continue watching with the progress reports that move it.
   *
   * @example
   * await maqam.library.save({ songs: ['song-1'] });
   * for await (const { song } of maqam.library.list({ types: ['song'] })) console.log(song?.title.value);
   * for await (const { movie, episode, positionMs } of maqam.library.continueWatching()) shelf.add(movie ?? episode, positionMs);
   */
  readonly library: Library = createLibrary(this.#transport);

  /**
   * The signed-in user's listening history.
   *
   * @example
   * for await (const entry of maqam.history.list()) console.log(entry.song.title.value, entry.playedAt);
   */
  readonly history: History = createHistory(this.#transport);

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
  readonly playlists: Playlists = createPlaylists(this.#transport);

  /**
   * The signed-in developer's own API keys (the `developer` role, a token
   * with scope `developer`): make, list, rename, rotate with a grace period,
   * revoke, and read their use; and `reportLeaked`, which any client may
   * send. A new key's secret is in the answer that makes it, never again.
   *
   * @example
   * const { apiKey, secret } = await maqam.developer.keys.create({ name: 'my app', scopes: ['catalog'] });
   * const { secret: next } = await maqam.developer.keys.rotate(apiKey.id, { graceSeconds: 3600 });
   * const { usage } = await maqam.developer.keys.usage(apiKey.id, { from: '2026-03-01' });
   */
  readonly developer: Developer = createDeveloper(this.#transport);

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

  /**
   * A WatchReporter for this client's video player: it reports where the
   * viewer is (on play, pause, seek, end and every 10 s of playback) with
   * the time each position was seen, queues reports while offline and sends
   * them in batches.
   *
   * @example
   * const reporter = maqam.watchReporter({ storage: localStorageTokens() });
   * reporter.play({ movieId: 'movie-1' }, resumeAtMs);
   */
  watchReporter(options: WatchReporterOptions = {}): WatchReporter {
    return new WatchReporter((reports) => this.library.progress.report(reports), options);
  }

  readonly songs: Catalog['songs'] = this.#catalog.songs;

  readonly albums: Catalog['albums'] = this.#catalog.albums;

  readonly artists: Catalog['artists'] = this.#catalog.artists;

  /**
   * One page of search results: songs, artists and albums as people type
   * them (with or without hamza or article, half typed, misspelled, in
   * another transliteration, in Arabizi or in the other script), and shows
   * and films when `types` names them. Each result holds one of `song`,
   * `artist`, `album`, `show` or `movie`.
   *
   * @example
   * const { items, nextPageToken } = await maqam.search('عمرو د', { types: ['artist', 'song'], pageSize: 10 });
   * for (const result of items) console.log(result.artist?.name.value ?? result.song?.title.value ?? result.album?.title.value);
   * const films = await maqam.search('الكيف', { types: ['movie', 'show'] });
   */
  readonly search = this.#catalog.search;

  /**
   * Every search result, fetching pages as the loop asks for them.
   *
   * @example
   * for await (const result of maqam.searchAll('Om Kalthoum', { types: ['song'] })) console.log(result.song?.title.value);
   */
  readonly searchAll = this.#catalog.searchAll;

  /**
   * Streams for the signed-in user (scope `stream`): songs, films and
   * episodes, as signed HLS playlists. Acquiring is billable, so it is never
   * retried after a network failure.
   *
   * @example
   * const { stream } = await maqam.streaming.acquireVideo({ episodeId: 'episode-1' }, { maxQuality: 'VIDEO_QUALITY_FULL_HD' });
   */
  readonly streaming: Streaming = createStreaming(this.#transport);

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
