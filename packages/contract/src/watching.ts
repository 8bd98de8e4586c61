import { Type, type Static } from 'typebox';
import { BatchItemError, MAX_BATCH_SIZE } from './catalog.ts';
import { Episode, EpisodeID, Movie, MovieID } from './video.ts';

/** Contract section 15: continue watching (LibraryService). */

export const MAX_PROGRESS_PER_REPORT = 50;
/** Under this share of a title, a report does not start (or move) a resume point. */
export const STARTED_SHARE = 0.05;
/** At this share of a title (or where its credits start, if earlier) it is finished. */
export const FINISHED_SHARE = 0.9;

const time = (description: string) => Type.String({ format: 'date-time', description: `${description} RFC 3339, UTC, with milliseconds.` });

export const ProgressReport = Type.Object(
  {
    movieId: Type.Optional(MovieID),
    episodeId: Type.Optional(EpisodeID),
    positionMs: Type.Integer({ minimum: 0, maximum: 86_400_000, description: 'Where the viewer is, in milliseconds from the start.' }),
    reportedAt: Type.String({ format: 'date-time', description: 'RFC 3339: when the player saw this position. Of two reports of a title, the later reportedAt wins; the same reportedAt again changes nothing.' }),
    restart: Type.Optional(Type.Boolean({ description: 'The viewer started over: a position under 5 % replaces the resume point.' })),
  },
  { title: 'ProgressReport', description: 'Exactly one of movieId and episodeId.' },
);
export type ProgressReport = Static<typeof ProgressReport>;

export const ReportProgressRequest = Type.Object(
  { progress: Type.Array(ProgressReport, { minItems: 1, maxItems: MAX_PROGRESS_PER_REPORT, description: '1 to 50 reports.' }) },
  { title: 'ReportProgressRequest' },
);
export type ReportProgressRequest = Static<typeof ReportProgressRequest>;

export const ProgressResult = Type.Object(
  {
    positionMs: Type.Optional(Type.Integer({ description: "The title's resume point after the report (0: none)." })),
    finished: Type.Optional(Type.Boolean({ description: 'Whether the title counts as finished (and left continue watching).' })),
    error: Type.Optional(BatchItemError),
  },
  { title: 'ProgressResult', description: 'Holds either positionMs and finished, or the error.' },
);
export const ReportProgressResponse = Type.Object(
  { results: Type.Array(ProgressResult, { description: 'One a report, in the order reported.' }) },
  { title: 'ReportProgressResponse' },
);
export type ReportProgressResponse = Static<typeof ReportProgressResponse>;

export const ContinueWatchingItem = Type.Object(
  {
    movie: Type.Optional(Movie),
    episode: Type.Optional(Episode),
    positionMs: Type.Integer({ description: 'Where to resume; 0 for a show\'s next episode not yet started.' }),
    updatedAt: time('When the viewer last moved in this title (or, for a next episode, finished the one before).'),
  },
  { title: 'ContinueWatchingItem', description: 'Holds exactly one of movie or episode.' },
);
export const GetContinueWatchingResponse = Type.Object(
  {
    items: Type.Array(ContinueWatchingItem, { description: 'Latest first; a show appears once, as its next episode.' }),
    nextPageToken: Type.String({ description: 'Opaque token of the next page; empty on the last page.' }),
  },
  { title: 'GetContinueWatchingResponse' },
);
export type GetContinueWatchingResponse = Static<typeof GetContinueWatchingResponse>;

const idList = (item: typeof MovieID, what: string, alias: string) =>
  Type.Array(item, { maxItems: MAX_BATCH_SIZE, description: `${what} ids. Also accepted as ${alias} (proto3 JSON).` });
export const HideContinueWatchingRequest = Type.Object(
  { movieIdList: Type.Optional(idList(MovieID, 'Film', 'movie_id_list')), episodeIdList: Type.Optional(idList(EpisodeID, 'Episode', 'episode_id_list')) },
  { title: 'HideContinueWatchingRequest', description: '1 to 100 ids in all.' },
);
export type HideContinueWatchingRequest = Static<typeof HideContinueWatchingRequest>;
