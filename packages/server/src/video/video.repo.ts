import type { Compilable, ExpressionBuilder, RawBuilder, Selectable } from 'kysely';
import type { KeysetRow } from '../catalog/catalog.repo.ts';
import type { Database, EpisodesTable, MoviesTable, SeasonsTable, ShowsTable } from '../storage/database.ts';
import { marker, precompiledQuery, type Storage } from '../storage/storage.ts';
import type { ViewerCap } from './age-rating.ts';

/** What rendering a show needs. */
export type ShowRow = Omit<Selectable<ShowsTable>, 'withdrawn' | 'updated_at' | 'rating_rank'>;
/** A film's row as read for what it says (its answer is its template). */
export type MovieRow = Omit<Selectable<MoviesTable>, 'withdrawn' | 'updated_at' | 'rating_rank' | 'template'>;
/** What a film's template is written from. */
export type MovieTemplateSource = MovieRow;
/** What rendering a season needs, with its count of admitted episodes. */
export type SeasonRow = Omit<Selectable<SeasonsTable>, 'withdrawn' | 'updated_at'> & { episode_count: number | string };
/** A season as its show lists it. */
export interface ShowSeasonRow {
  id: string;
  show_id: string;
  season_number: number;
  air_date: string | null;
  episode_count: number | string;
}
/** An episode's row as read for what it says, with its season's show and number. */
export type EpisodeRow = Omit<Selectable<EpisodesTable>, 'withdrawn' | 'updated_at' | 'rating_rank' | 'template'> & { show_id: string; season_number: number };
/** What an episode's template is written from: its own row (its show and season number are holes). */
export type EpisodeTemplateSource = Omit<EpisodeRow, 'show_id' | 'season_number'>;
/** A film's answer as stored. */
export interface MovieTemplateRow {
  id: string;
  template: Uint8Array | null;
}
/** An episode's answer as stored, with the values of its holes: its season's show and number. */
export interface EpisodeTemplateRow {
  id: string;
  template: Uint8Array | null;
  show_id: string;
  season_number: number;
}

type Tables = Database & { sh: ShowsTable; se: SeasonsTable; e: EpisodesTable; m: MoviesTable };

/**
 * The parental rule in SQL (age-rating.ts): every rank a title is judged by
 * is at most the viewer's cap. Every read of a video title filters through
 * it, so a capped title is absent from lists and batches as an unknown id is.
 */
function admitted<DB, TB extends keyof DB>(eb: ExpressionBuilder<DB, TB>, cap: ViewerCap, ...rankColumns: string[]) {
  const ref = eb as unknown as ExpressionBuilder<Tables, 'sh' | 'se' | 'e' | 'm'>;
  return ref.and(rankColumns.map((column) => ref(column as 'sh.rating_rank', '<=', cap)));
}

const SHOW_COLUMNS = ['sh.id', 'sh.title_i18n', 'sh.description_i18n', 'sh.original_language', 'sh.genres', 'sh.age_rating', 'sh.release_year', 'sh.cast_members', 'sh.artwork'] as const;
const MOVIE_COLUMNS = [
  'm.id', 'm.title_i18n', 'm.description_i18n', 'm.original_language', 'm.genres', 'm.age_rating', 'm.release_date', 'm.duration_ms', 'm.cast_members',
  'm.artwork', 'm.audio_languages', 'm.subtitle_languages', 'm.credits_start_ms',
] as const;
const EPISODE_COLUMNS = [
  'e.id', 'e.season_id', 'e.episode_number', 'e.title_i18n', 'e.description_i18n', 'e.original_language', 'e.duration_ms', 'e.air_date', 'e.guest_cast',
  'e.artwork', 'e.audio_languages', 'e.subtitle_languages', 'e.age_rating', 'e.credits_start_ms', 'se.show_id', 'se.season_number',
] as const;

export function createVideoRepo(storage: Storage) {
  const { db } = storage;

  /** A query of an id list and a cap, compiled once (storage.ts precompiledQuery). */
  function byIdsWithin<Row>(build: (ids: RawBuilder<string>, cap: number) => Compilable<Row>) {
    return precompiledQuery<Row, [readonly string[], number]>(
      db,
      (ids, cap) => build(storage.idList(ids), cap),
      [[marker.text(0)], marker.number(1)],
      ([ids, cap]) => [storage.idListParameter(ids), cap],
    );
  }

  /** Admitted episodes counted per season: a season's episodeCount, for this cap. */
  const episodeCounts = (eb: ExpressionBuilder<Database, 'seasons'>, cap: number) =>
    eb
      .selectFrom('episodes as e')
      .select((c) => c.fn.countAll<number>().as('n'))
      .whereRef('e.season_id', '=', 'seasons.id')
      .where('e.withdrawn', '=', 0)
      .where('e.rating_rank', '<=', cap)
      .as('episode_count');

  const showsByIds = byIdsWithin<ShowRow>((ids, cap) =>
    db.selectFrom('shows as sh').select(SHOW_COLUMNS).where('sh.id', 'in', ids).where('sh.withdrawn', '=', 0).where((eb) => admitted(eb, cap, 'sh.rating_rank')),
  );

  const seasonsOfShows = byIdsWithin<ShowSeasonRow>((ids, cap) =>
    db
      .selectFrom('seasons')
      .select((eb) => ['seasons.id', 'seasons.show_id', 'seasons.season_number', 'seasons.air_date', episodeCounts(eb, cap)])
      .where('seasons.show_id', 'in', ids)
      .where('seasons.withdrawn', '=', 0)
      .orderBy('seasons.show_id')
      .orderBy('seasons.season_number')
      .orderBy('seasons.id'),
  );

  const seasonsByIds = byIdsWithin<SeasonRow>((ids, cap) =>
    db
      .selectFrom('seasons')
      .innerJoin('shows as sh', 'sh.id', 'seasons.show_id')
      .select((eb) => [
        'seasons.id', 'seasons.show_id', 'seasons.season_number', 'seasons.title_i18n', 'seasons.description_i18n', 'seasons.original_language',
        'seasons.air_date', 'seasons.artwork', episodeCounts(eb, cap),
      ])
      .where('seasons.id', 'in', ids)
      .where('seasons.withdrawn', '=', 0)
      .where('sh.withdrawn', '=', 0)
      .where((eb) => admitted(eb, cap, 'sh.rating_rank')),
  );

  const episodesByIds = byIdsWithin<EpisodeRow>((ids, cap) =>
    db
      .selectFrom('episodes as e')
      .innerJoin('seasons as se', 'se.id', 'e.season_id')
      .innerJoin('shows as sh', 'sh.id', 'se.show_id')
      .select(EPISODE_COLUMNS)
      .where('e.id', 'in', ids)
      .where('e.withdrawn', '=', 0)
      .where('se.withdrawn', '=', 0)
      .where('sh.withdrawn', '=', 0)
      .where((eb) => admitted(eb, cap, 'e.rating_rank', 'sh.rating_rank')),
  );

  const moviesByIds = byIdsWithin<MovieRow>((ids, cap) =>
    db.selectFrom('movies as m').select(MOVIE_COLUMNS).where('m.id', 'in', ids).where('m.withdrawn', '=', 0).where((eb) => admitted(eb, cap, 'm.rating_rank')),
  );

  // The read path's: what a film or an episode answers is its template, so a miss reads one column (and its season's two).
  const movieTemplatesByIds = byIdsWithin<MovieTemplateRow>((ids, cap) =>
    db.selectFrom('movies as m').select(['m.id', 'm.template']).where('m.id', 'in', ids).where('m.withdrawn', '=', 0).where((eb) => admitted(eb, cap, 'm.rating_rank')),
  );

  const episodeTemplatesByIds = byIdsWithin<EpisodeTemplateRow>((ids, cap) =>
    db
      .selectFrom('episodes as e')
      .innerJoin('seasons as se', 'se.id', 'e.season_id')
      .innerJoin('shows as sh', 'sh.id', 'se.show_id')
      .select(['e.id', 'e.template', 'se.show_id', 'se.season_number'])
      .where('e.id', 'in', ids)
      .where('e.withdrawn', '=', 0)
      .where('se.withdrawn', '=', 0)
      .where('sh.withdrawn', '=', 0)
      .where((eb) => admitted(eb, cap, 'e.rating_rank', 'sh.rating_rank')),
  );

  return {
    showsByIds,
    seasonsOfShows,
    seasonsByIds,
    episodesByIds,
    moviesByIds,
    movieTemplatesByIds,
    episodeTemplatesByIds,

    /** Whether the season, its show live and admitted, can be seen under the cap. */
    async seasonVisible(id: string, cap: ViewerCap): Promise<boolean> {
      const row = await db
        .selectFrom('seasons as se')
        .innerJoin('shows as sh', 'sh.id', 'se.show_id')
        .select('se.id')
        .where('se.id', '=', id)
        .where('se.withdrawn', '=', 0)
        .where('sh.withdrawn', '=', 0)
        .where((eb) => admitted(eb, cap, 'sh.rating_rank'))
        .executeTakeFirst();
      return row !== undefined;
    },

    /** Whether the show or film is live and admitted under the cap. */
    async titleVisible(kind: 'show' | 'movie', id: string, cap: ViewerCap): Promise<boolean> {
      const row = kind === 'show'
        ? await db.selectFrom('shows as sh').select('sh.id').where('sh.id', '=', id).where('sh.withdrawn', '=', 0).where((eb) => admitted(eb, cap, 'sh.rating_rank')).executeTakeFirst()
        : await db.selectFrom('movies as m').select('m.id').where('m.id', '=', id).where('m.withdrawn', '=', 0).where((eb) => admitted(eb, cap, 'm.rating_rank')).executeTakeFirst();
      return row !== undefined;
    },

    async songVisible(id: string): Promise<boolean> {
      const row = await db.selectFrom('songs').select('id').where('id', '=', id).where('withdrawn', '=', 0).executeTakeFirst();
      return row !== undefined;
    },

    /** GetSeason's keyset page of episodes: episode number, then id; admitted and live only. */
    async seasonEpisodes(seasonId: string, cap: ViewerCap, after: [number, string] | null, limit: number): Promise<KeysetRow<[number, string]>[]> {
      let query = db
        .selectFrom('episodes as e')
        .select(['e.id', 'e.episode_number'])
        .where('e.season_id', '=', seasonId)
        .where('e.withdrawn', '=', 0)
        .where((eb) => admitted(eb, cap, 'e.rating_rank'));
      if (after) {
        const [number, id] = after;
        query = query.where((eb) => eb.or([eb('e.episode_number', '>', number), eb.and([eb('e.episode_number', '=', number), eb('e.id', '>', id)])]));
      }
      const rows = await query.orderBy('e.season_id').orderBy('e.episode_number').orderBy('e.id').limit(limit).execute();
      return rows.map((row) => ({ id: row.id, key: [row.episode_number, row.id] }));
    },

    /** A title's soundtrack page: its songs in listed order. */
    async soundtrack(kind: 'show' | 'movie', titleId: string, after: [number] | null, limit: number): Promise<KeysetRow<[number]>[]> {
      let query = db.selectFrom('title_songs').select(['song_id', 'position']).where('title_kind', '=', kind).where('title_id', '=', titleId);
      if (after) query = query.where('position', '>', after[0]);
      const rows = await query.orderBy('title_kind').orderBy('title_id').orderBy('position').limit(limit).execute();
      return rows.map((row) => ({ id: row.song_id, key: [row.position] }));
    },

    /** The shows and films whose soundtrack lists the song, live and admitted: by kind, then id. */
    async appearances(songId: string, cap: ViewerCap, after: ['show' | 'movie', string] | null, limit: number): Promise<{ kind: 'show' | 'movie'; id: string }[]> {
      let query = db
        .selectFrom('title_songs as t')
        .leftJoin('shows as sh', (join) => join.onRef('sh.id', '=', 't.title_id').on('t.title_kind', '=', 'show'))
        .leftJoin('movies as m', (join) => join.onRef('m.id', '=', 't.title_id').on('t.title_kind', '=', 'movie'))
        .select(['t.title_kind', 't.title_id'])
        .where('t.song_id', '=', songId)
        .where((eb) =>
          eb.or([
            eb.and([eb('sh.withdrawn', '=', 0), admitted(eb, cap, 'sh.rating_rank')]),
            eb.and([eb('m.withdrawn', '=', 0), admitted(eb, cap, 'm.rating_rank')]),
          ]),
        );
      if (after) {
        const [kind, id] = after;
        query = query.where((eb) => eb.or([eb('t.title_kind', '>', kind), eb.and([eb('t.title_kind', '=', kind), eb('t.title_id', '>', id)])]));
      }
      const rows = await query.orderBy('t.song_id').orderBy('t.title_kind').orderBy('t.title_id').limit(limit).execute();
      return rows.map((row) => ({ kind: row.title_kind, id: row.title_id }));
    },
  };
}

export type VideoRepo = ReturnType<typeof createVideoRepo>;
