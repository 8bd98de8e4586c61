import type { Episode, GetSeasonResponse, GetSoundtrackResponse, Movie, Season, Show, Song } from './types.ts';
import type * as wire from '@maqam/contract';
import type { BatchItemError, CallContext, PageOptions, Transport } from './request.ts';
import { assert, every } from './pages.ts';
import { catalogReads, pathId } from './reads.ts';

/**
 * One entry of `video.shows.batchGet`: the show, or why it could not be had
 * (`ERROR_CODE_NOT_FOUND` for unknown and withdrawn shows, and for shows
 * rated above the signed-in user's cap).
 *
 * @example
 * const result: ShowResult = (await maqam.video.shows.batchGet(['show-1'])).get('show-1')!;
 * console.log(result.show?.title.value ?? result.error.code);
 */
export type ShowResult = { readonly show: Show; readonly error?: undefined } | { readonly show?: undefined; readonly error: BatchItemError };

/**
 * One entry of `video.seasons.batchGet`: the season, or why it could not be had.
 *
 * @example
 * const result: SeasonResult = (await maqam.video.seasons.batchGet(['season-1'])).get('season-1')!;
 * console.log(result.season?.episodeCount ?? result.error.code);
 */
export type SeasonResult = { readonly season: Season; readonly error?: undefined } | { readonly season?: undefined; readonly error: BatchItemError };

/**
 * One entry of `video.episodes.batchGet`: the episode, or why it could not be had.
 *
 * @example
 * const result: EpisodeResult = (await maqam.video.episodes.batchGet(['episode-1'])).get('episode-1')!;
 * console.log(result.episode?.title.value ?? result.error.code);
 */
export type EpisodeResult = { readonly episode: Episode; readonly error?: undefined } | { readonly episode?: undefined; readonly error: BatchItemError };

/**
 * One entry of `video.movies.batchGet`: the film, or why it could not be had.
 *
 * @example
 * const result: MovieResult = (await maqam.video.movies.batchGet(['movie-1'])).get('movie-1')!;
 * console.log(result.movie?.title.value ?? result.error.code);
 */
export type MovieResult = { readonly movie: Movie; readonly error?: undefined } | { readonly movie?: undefined; readonly error: BatchItemError };

/**
 * The title whose soundtrack to read: a show or a film, by id.
 *
 * @example
 * const title: SoundtrackTitle = { showId: 'show-1' };
 * for await (const song of maqam.video.soundtrack(title)) console.log(song.title.value);
 */
export type SoundtrackTitle = { readonly showId: string; readonly movieId?: undefined } | { readonly movieId: string; readonly showId?: undefined };

/**
 * Shows, their seasons and episodes, films and their soundtracks, readable
 * with an API key or a user's token (scope `read`). For a user with a
 * parental cap, a title rated above it is NOT_FOUND and absent from lists.
 */
export function createVideo(transport: Transport, batchConcurrency: () => number) {
  const { item, page } = catalogReads(transport, batchConcurrency);
  const showReads = item<Show, ShowResult>('/v1/video/shows', 'show');
  const seasonReads = item<Season, SeasonResult>('/v1/video/seasons', 'season');
  const episodeReads = item<Episode, EpisodeResult>('/v1/video/episodes', 'episode');
  const movieReads = item<Movie, MovieResult>('/v1/video/movies', 'movie');

  const seasons = {
    /**
     * A season and one page of its episodes, by episode number (`items`, also
     * under `episodes`); NotFoundError if the season is unknown or withdrawn.
     *
     * @example
     * const { season, items, nextPageToken } = await maqam.video.seasons.get('season-1', { pageSize: 10 });
     */
    get: async (seasonId: string, options: PageOptions = {}): Promise<GetSeasonResponse> =>
      page<wire.GetSeasonResponse, 'episodes'>(`/v1/video/seasons/${pathId(seasonId)}`, 'episodes', options),

    /**
     * Any number of seasons by id (without their episodes), chunked like `songs.batchGet`.
     *
     * @example
     * const results = await maqam.video.seasons.batchGet(show.seasons.map((season) => season.id.value));
     */
    batchGet: seasonReads.batchGet,

    /**
     * Every episode of a season by number, fetching pages as the loop asks for them.
     *
     * @example
     * for await (const episode of maqam.video.seasons.episodes('season-1')) console.log(episode.episodeNumber, episode.title.value);
     */
    episodes: (seasonId: string, options: PageOptions = {}): AsyncIterable<Episode> =>
      every((pageOptions) => seasons.get(seasonId, pageOptions), options),
  };

  /** One page of a show's or a film's soundtrack (documented on the returned member of the same name). */
  const listSoundtrack = async (title: SoundtrackTitle, options: PageOptions = {}): Promise<GetSoundtrackResponse> => {
    assert((title?.showId === undefined) !== (title?.movieId === undefined), 'give { showId } or { movieId }');
    const path = title.showId === undefined ? `movies/${pathId(title.movieId!)}` : `shows/${pathId(title.showId)}`;
    return page<wire.GetSoundtrackResponse, 'songs'>(`/v1/video/${path}/soundtrack`, 'songs', options);
  };

  return {
    shows: {
      /**
       * One show with its seasons by number; NotFoundError if it is unknown,
       * withdrawn, or rated above the signed-in user's cap.
       *
       * @example
       * const show = await maqam.video.shows.get('show-1', { locale: 'ar' });
       */
      get: showReads.get as ((showId: string, context?: CallContext) => Promise<Show>),

      /**
       * Any number of shows by id, chunked like `songs.batchGet`: a Map in the
       * order given, each entry `{ show }` or `{ error }`.
       *
       * @example
       * const results = await maqam.video.shows.batchGet(['show-1', 'show-2']);
       */
      batchGet: showReads.batchGet,
    },

    seasons,

    episodes: {
      /**
       * One episode; NotFoundError if it is unknown or withdrawn.
       *
       * @example
       * const episode = await maqam.video.episodes.get('episode-1');
       */
      get: episodeReads.get as ((episodeId: string, context?: CallContext) => Promise<Episode>),

      /**
       * Any number of episodes by id, chunked like `songs.batchGet`.
       *
       * @example
       * const results = await maqam.video.episodes.batchGet(['episode-1', 'episode-2']);
       */
      batchGet: episodeReads.batchGet,
    },

    movies: {
      /**
       * One film; NotFoundError if it is unknown, withdrawn, or rated above
       * the signed-in user's cap.
       *
       * @example
       * const movie = await maqam.video.movies.get('movie-1', { locale: 'en' });
       */
      get: movieReads.get as ((movieId: string, context?: CallContext) => Promise<Movie>),

      /**
       * Any number of films by id, chunked like `songs.batchGet`.
       *
       * @example
       * const results = await maqam.video.movies.batchGet(['movie-1', 'movie-2']);
       */
      batchGet: movieReads.batchGet,
    },

    /**
     * One page of a show's or a film's soundtrack, in the order the title lists its songs.
     *
     * @example
     * const { items, nextPageToken } = await maqam.video.listSoundtrack({ showId: 'show-1' }, { pageSize: 10 });
     */
    listSoundtrack,

    /**
     * Every song of a show's or a film's soundtrack, in the order the title
     * lists them, fetching pages as the loop asks for them.
     *
     * @example
     * for await (const song of maqam.video.soundtrack({ movieId: 'movie-1' })) console.log(song.title.value);
     */
    soundtrack: (title: SoundtrackTitle, options: PageOptions = {}): AsyncIterable<Song> =>
      every((pageOptions) => listSoundtrack(title, pageOptions), options),
  };
}

/** The video resource, by name (see Catalog in catalog.ts). */
export type Video = ReturnType<typeof createVideo>;
