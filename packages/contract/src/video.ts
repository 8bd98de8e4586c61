import { Type, type Static } from 'typebox';
import {
  BatchItemError,
  GetRelatedArtistsQuery,
  Image,
  LocalizedString,
  Song,
  batchRequest,
  idValue,
  int32,
  sentInFull,
} from './catalog.ts';

/** Contract section 15: VideoCatalogService (Show -> Season -> Episode, and Movie). */

export const ShowID = Type.Object({ value: idValue('show') }, { title: 'ShowID' });
export const SeasonID = Type.Object({ value: idValue('season') }, { title: 'SeasonID' });
export const EpisodeID = Type.Object({ value: idValue('episode') }, { title: 'EpisodeID' });
export const MovieID = Type.Object({ value: idValue('movie') }, { title: 'MovieID' });

/** Age ratings, least restrictive first: a cap admits its own rating and those before it. */
export const AGE_RATINGS = ['AGE_RATING_ALL', 'AGE_RATING_7', 'AGE_RATING_13', 'AGE_RATING_16', 'AGE_RATING_18'] as const;
export type AgeRating = (typeof AGE_RATINGS)[number];
export const AgeRating = Type.Unsafe<AgeRating>({ type: 'string', enum: [...AGE_RATINGS], title: 'AgeRating' });

const bcp47List = (what: string) => Type.Array(Type.String(), { description: `${what}, as BCP 47 tags.` });
const date = (description: string) => Type.String({ description: `YYYY-MM-DD. ${description}` });
const nextPageToken = Type.String({ description: 'Opaque token of the next page; empty on the last page.' });

export const CastMember = sentInFull(Type.Object(
  {
    id: Type.String({ description: "The person's identifier." }),
    name: LocalizedString,
    role: Type.String({ description: 'The part played (a character) or the work done (Director); may be empty.' }),
    profileImageUrl: Type.String({ description: 'May be empty.' }),
    isLead: Type.Boolean(),
  },
  { title: 'CastMember' },
));
export type CastMember = Static<typeof CastMember>;

export const ShowSeason = Type.Object(
  {
    id: SeasonID,
    seasonNumber: int32('Season number within the show'),
    episodeCount: int32('Episodes of the season the caller may see'),
    airDate: Type.Optional(date('When the season first aired.')),
  },
  { title: 'ShowSeason' },
);

export const Show = Type.Object(
  {
    id: ShowID,
    title: LocalizedString,
    description: Type.Optional(LocalizedString),
    genres: Type.Array(Type.String()),
    ageRating: Type.Optional({ ...AgeRating, description: 'Absent: unrated, which parental caps treat as AGE_RATING_18.' }),
    originalLanguage: Type.String({ description: 'BCP 47 tag.' }),
    releaseYear: int32('Year the show first aired'),
    cast: Type.Array(CastMember),
    artwork: Type.Array(Image),
    seasons: Type.Array(ShowSeason, { description: 'By season number; derived from the season records.' }),
  },
  { title: 'Show' },
);
export type Show = Static<typeof Show>;

export const Season = Type.Object(
  {
    id: SeasonID,
    showId: ShowID,
    seasonNumber: int32('Season number within the show'),
    title: LocalizedString,
    description: Type.Optional(LocalizedString),
    episodeCount: int32('Episodes of the season the caller may see'),
    airDate: Type.Optional(date('When the season first aired.')),
    artwork: Type.Array(Image),
  },
  { title: 'Season' },
);
export type Season = Static<typeof Season>;

export const Episode = Type.Object(
  {
    id: EpisodeID,
    showId: ShowID,
    seasonId: SeasonID,
    seasonNumber: int32('Season number within the show'),
    episodeNumber: int32('Episode number within the season'),
    title: LocalizedString,
    description: Type.Optional(LocalizedString),
    durationMs: int32('Milliseconds'),
    airDate: Type.Optional(date('When the episode first aired.')),
    guestCast: Type.Array(CastMember),
    artwork: Type.Array(Image),
    audioLanguages: bcp47List('Audio languages'),
    subtitleLanguages: bcp47List('Subtitle languages'),
    ageRating: Type.Optional({ ...AgeRating, description: "The episode's own rating; parental caps use the higher of it and its show's." }),
    creditsStartMs: Type.Optional(int32('Where the end credits start: watched this far, the episode is finished.')),
  },
  { title: 'Episode' },
);
export type Episode = Static<typeof Episode>;

export const Movie = Type.Object(
  {
    id: MovieID,
    title: LocalizedString,
    description: Type.Optional(LocalizedString),
    genres: Type.Array(Type.String()),
    ageRating: Type.Optional({ ...AgeRating, description: 'Absent: unrated, which parental caps treat as AGE_RATING_18.' }),
    originalLanguage: Type.String({ description: 'BCP 47 tag.' }),
    releaseDate: date('When the film was released.'),
    durationMs: int32('Milliseconds'),
    cast: Type.Array(CastMember),
    artwork: Type.Array(Image),
    audioLanguages: bcp47List('Audio languages'),
    subtitleLanguages: bcp47List('Subtitle languages'),
    creditsStartMs: Type.Optional(int32('Where the end credits start: watched this far, the film is finished.')),
  },
  { title: 'Movie' },
);
export type Movie = Static<typeof Movie>;

const result = <T extends typeof Show | typeof Season | typeof Episode | typeof Movie>(member: string, item: T, title: string) =>
  Type.Object(
    { [member]: Type.Optional(item), error: Type.Optional(BatchItemError) },
    { title, description: `Holds either the ${member} or the error.` },
  );
const batchResponse = (result: ReturnType<typeof Type.Object>, what: string, title: string) =>
  Type.Object({ results: Type.Record(Type.String(), result, { description: `Keyed by every requested ${what} id value.` }) }, { title });

export const ShowResult = result('show', Show, 'ShowResult');
export const SeasonResult = result('season', Season, 'SeasonResult');
export const EpisodeResult = result('episode', Episode, 'EpisodeResult');
export const MovieResult = result('movie', Movie, 'MovieResult');

export const GetShowParams = Type.Object({ show_id: idValue('show') });
export const GetSeasonParams = Type.Object({ season_id: idValue('season') });
export const GetEpisodeParams = Type.Object({ episode_id: idValue('episode') });
export const GetMovieParams = Type.Object({ movie_id: idValue('movie') });

export const GetShowResponse = Type.Object({ show: Show }, { title: 'GetShowResponse' });
export type GetShowResponse = Static<typeof GetShowResponse>;
export const GetSeasonResponse = Type.Object(
  { season: Season, episodes: Type.Array(Episode, { description: 'A page of the season\'s episodes, by episode number.' }), nextPageToken },
  { title: 'GetSeasonResponse' },
);
export type GetSeasonResponse = Static<typeof GetSeasonResponse>;
export const GetEpisodeResponse = Type.Object({ episode: Episode }, { title: 'GetEpisodeResponse' });
export type GetEpisodeResponse = Static<typeof GetEpisodeResponse>;
export const GetMovieResponse = Type.Object({ movie: Movie }, { title: 'GetMovieResponse' });
export type GetMovieResponse = Static<typeof GetMovieResponse>;

export const BatchGetShowsRequest = batchRequest('showIdList', 'show_id_list', ShowID, 'show');
export type BatchGetShowsRequest = { showIdList: { value: string }[] };
export const BatchGetSeasonsRequest = batchRequest('seasonIdList', 'season_id_list', SeasonID, 'season');
export type BatchGetSeasonsRequest = { seasonIdList: { value: string }[] };
export const BatchGetEpisodesRequest = batchRequest('episodeIdList', 'episode_id_list', EpisodeID, 'episode');
export type BatchGetEpisodesRequest = { episodeIdList: { value: string }[] };
export const BatchGetMoviesRequest = batchRequest('movieIdList', 'movie_id_list', MovieID, 'movie');
export type BatchGetMoviesRequest = { movieIdList: { value: string }[] };

export const BatchGetShowsResponse = batchResponse(ShowResult, 'show', 'BatchGetShowsResponse');
export type BatchGetShowsResponse = { results: Record<string, { show?: Show; error?: Static<typeof BatchItemError> }> };
export const BatchGetSeasonsResponse = batchResponse(SeasonResult, 'season', 'BatchGetSeasonsResponse');
export type BatchGetSeasonsResponse = { results: Record<string, { season?: Season; error?: Static<typeof BatchItemError> }> };
export const BatchGetEpisodesResponse = batchResponse(EpisodeResult, 'episode', 'BatchGetEpisodesResponse');
export type BatchGetEpisodesResponse = { results: Record<string, { episode?: Episode; error?: Static<typeof BatchItemError> }> };
export const BatchGetMoviesResponse = batchResponse(MovieResult, 'movie', 'BatchGetMoviesResponse');
export type BatchGetMoviesResponse = { results: Record<string, { movie?: Movie; error?: Static<typeof BatchItemError> }> };

/** GetSeason's episodes are paged like every list (section 4). */
export const GetSeasonQuery = GetRelatedArtistsQuery;

export const GetSoundtrackResponse = Type.Object(
  { songs: Type.Array(Song, { description: 'In the order the title lists them.' }), nextPageToken },
  { title: 'GetSoundtrackResponse' },
);
export type GetSoundtrackResponse = Static<typeof GetSoundtrackResponse>;

export const VideoTitle = Type.Object(
  { show: Type.Optional(Show), movie: Type.Optional(Movie) },
  { title: 'VideoTitle', description: 'Holds exactly one of show or movie.' },
);
export type VideoTitle = Static<typeof VideoTitle>;

export const GetSongAppearancesResponse = Type.Object(
  { titles: Type.Array(VideoTitle, { description: 'Shows and films whose soundtrack lists the song.' }), nextPageToken },
  { title: 'GetSongAppearancesResponse' },
);
export type GetSongAppearancesResponse = Static<typeof GetSongAppearancesResponse>;
