import type { AcquireMusicStreamResponse, AcquireVideoStreamResponse, AudioQuality, VideoQuality } from './types.ts';
import { requestJson, type CallContext, type Transport } from './request.ts';
import { assert } from './pages.ts';

/**
 * What plays: a film or an episode, by id (a show or a season does not).
 *
 * @example
 * const title: PlayableTitle = { episodeId: 'episode-1' };
 * const { stream } = await maqam.streaming.acquireVideo(title);
 */
export type PlayableTitle = { readonly movieId: string; readonly episodeId?: undefined } | { readonly episodeId: string; readonly movieId?: undefined };

/** A title as the API names it in a body: `{ movieId: { value } }` or `{ episodeId: { value } }`. */
export function typedTitle(title: PlayableTitle): { movieId: { value: string } } | { episodeId: { value: string } } {
  const { movieId, episodeId } = title ?? {};
  assert((typeof movieId === 'string' && movieId !== '' && episodeId === undefined) || (typeof episodeId === 'string' && episodeId !== '' && movieId === undefined),
    'give { movieId } or { episodeId }, a non-empty string');
  return movieId === undefined ? { episodeId: { value: episodeId! } } : { movieId: { value: movieId } };
}

/** Streams of the catalog's songs, films and episodes for the signed-in user. */
export function createStreaming(transport: Transport) {
  const acquire = <Answer>(path: string, title: object, options: CallContext & { maxQuality?: string | undefined }) =>
    // Acquisition is billable: not repeated after a network failure.
    requestJson<Answer>(transport, { method: 'POST', path, body: { ...title, ...(options.maxQuality ? { maxQuality: options.maxQuality } : {}) }, idempotent: false, context: options });
  return {
    /**
     * A signed HLS stream of a song for the signed-in user (scope `stream`).
     *
     * @example
     * const { stream } = await maqam.streaming.acquireMusic('song-1', { maxQuality: 'AUDIO_QUALITY_STANDARD' });
     * audio.src = stream.manifestUrl; // Safari; elsewhere an HLS player library
     */
    acquireMusic: async (songId: string, options: CallContext & { maxQuality?: AudioQuality | undefined } = {}): Promise<AcquireMusicStreamResponse> => {
      assert(typeof songId === 'string' && songId !== '', 'songId must be a non-empty string');
      return acquire<AcquireMusicStreamResponse>('/v1/streaming/music', { songId: { value: songId } }, options);
    },

    /**
     * A signed HLS stream of a film or an episode for the signed-in user
     * (scope `stream`): its master playlist holds every packaged quality up
     * to `maxQuality`, each audio language and the subtitles. NotFoundError
     * for an unknown title and for one with no video yet; PermissionDeniedError
     * for a title above the user's parental cap, or with an API key.
     *
     * @example
     * const { stream } = await maqam.streaming.acquireVideo({ movieId: 'movie-1' }, { maxQuality: 'VIDEO_QUALITY_HD' });
     * hls.loadSource(stream.manifestUrl); // hls.js; Safari plays it as video.src
     */
    acquireVideo: async (title: PlayableTitle, options: CallContext & { maxQuality?: VideoQuality | undefined } = {}): Promise<AcquireVideoStreamResponse> =>
      acquire<AcquireVideoStreamResponse>('/v1/streaming/video', typedTitle(title), options),
  };
}

/** The streaming resource, by name (see Catalog in catalog.ts). */
export type Streaming = ReturnType<typeof createStreaming>;
