import type { AcquireMusicStreamResponse, Artist, AudioQuality, GetRelatedArtistsResponse, Song, TokenInfoResponse } from './wire-types.js';
import { MaqamError } from './errors.js';
import { type FetchLike } from './http.js';
import { type OAuthOptions } from './auth/session.js';
/** One entry of a batch: the song, or why it could not be had. */
export type SongResult = {
    readonly song: Song;
    readonly error?: undefined;
} | {
    readonly song?: undefined;
    readonly error: {
        readonly code: string;
        readonly message: string;
    };
};
export type { AcquireMusicStreamResponse, Artist, AudioQuality, GetRelatedArtistsResponse, Song, TokenInfoResponse };
export interface MaqamClientOptions {
    /** The API's base URL, e.g. "https://api.maqam.example". */
    baseUrl: string;
    /** An API key (mk_...), for servers: catalog calls only. */
    apiKey?: string;
    /** OAuth sign-in for apps acting for a user. */
    auth?: OAuthOptions;
    /** BCP 47 locale(s) for LocalizedString values; per call too. */
    locale?: string;
    /** A fetch of your own (tests, proxies, instrumentation). */
    fetch?: FetchLike;
    /** Per attempt; default 15 s. */
    timeoutMs?: number;
    /** Retries per call for 429, 503 and (reads only) network failures; default 3. */
    maxRetries?: number;
    /** The longest server-asked wait the client sits out before giving up with RateLimitError; default 30 s. */
    maxRetryDelayMs?: number;
    /**
     * Retries across all calls of this client: each failed attempt costs a
     * token, each success earns `tokenRatio` back, and no retry is made while
     * half or fewer of `maxTokens` are left. Default 10 and 0.1.
     */
    retryBudget?: {
        maxTokens?: number;
        tokenRatio?: number;
    };
    /** Parallel requests of one batchGet; default 4. */
    batchConcurrency?: number;
}
export interface CallContext {
    locale?: string;
    signal?: AbortSignal;
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
export declare class MaqamClient {
    #private;
    constructor(options: MaqamClientOptions);
    readonly songs: {
        /**
         * Any number of songs by id: sent in chunks of 100 with bounded
         * concurrency, answered as one Map in the order the ids were given
         * (duplicates once). Each entry has `song` or `error`.
         *
         * @example
         * const results = await maqam.songs.batchGet(ids, { locale: 'ar' });
         * for (const [id, result] of results) console.log(id, result.song?.title?.value ?? result.error?.code);
         */
        batchGet: (ids: readonly string[], context?: CallContext) => Promise<Map<string, SongResult>>;
    };
    readonly artists: {
        /**
         * One page of artists related to an artist.
         *
         * @example
         * const { artists, nextPageToken } = await maqam.artists.listRelated('artist-1', { pageSize: 10 });
         */
        listRelated: (artistId: string, options?: CallContext & {
            pageSize?: number;
            pageToken?: string;
        }) => Promise<GetRelatedArtistsResponse>;
        /**
         * Every related artist, fetching pages as the loop asks for them.
         *
         * @example
         * for await (const artist of maqam.artists.related('artist-1')) console.log(artist.name.value);
         */
        related: (artistId: string, options?: CallContext & {
            pageSize?: number;
        }) => AsyncIterable<Artist>;
    };
    readonly streaming: {
        /**
         * A signed HLS stream of a song for the signed-in user (scope `stream`).
         *
         * @example
         * const { stream } = await maqam.streaming.acquireMusic('song-1', { maxQuality: 'AUDIO_QUALITY_STANDARD' });
         * audio.src = stream.manifestUrl; // Safari; elsewhere an HLS player library
         */
        acquireMusic: (songId: string, options?: CallContext & {
            maxQuality?: AudioQuality;
        }) => Promise<AcquireMusicStreamResponse>;
    };
    /** OAuth sign-in; present when the client was made with `auth`. */
    get auth(): {
        /** The redirect URI this client signs in with. */
        redirectUri: string;
        /** @example location.href = await maqam.auth.createAuthorizationUrl({ scope: 'read stream' }); */
        createAuthorizationUrl: (options?: {
            scope?: string;
            state?: string;
        }) => Promise<string>;
        /** @example await maqam.auth.handleRedirect(location.href); */
        handleRedirect: (url: string | URL) => Promise<import('./auth/session.js').Tokens>;
        /** @example await maqam.auth.signOut(); */
        signOut: () => Promise<void>;
        /** @example const signedIn = (await maqam.auth.tokens()) !== null; */
        tokens: () => Promise<import('./auth/session.js').Tokens | null>;
        /** @example const { scope, exp } = await maqam.auth.tokenInfo(); */
        tokenInfo: (context?: CallContext) => Promise<TokenInfoResponse>;
    };
}
export { MaqamError };
