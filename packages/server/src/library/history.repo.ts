import { marker, precompiledQuery, type Storage } from '../storage/storage.ts';
import type { UserWriteSession } from './user-write.ts';
import { read } from '../storage/phases.ts';

/** A play as stored. */
export interface PlayRow {
  readonly playId: string;
  readonly songId: string;
  readonly startedAt: number;
  readonly msPlayed: number;
  readonly counted: boolean;
  /** The PlayContext as JSON, or null. */
  readonly context: string | null;
}

/** Where a page of history starts: after this play (newest first, then playId). */
export type HistoryPosition = readonly [startedAt: number, playId: string];

/** A user's plays, keyed by the playId their client chose. */
export function createHistoryRepo(storage: Pick<Storage, 'db' | 'dialect' | 'idList' | 'idRows' | 'idListParameter'>) {
  const { db } = storage;

  // page()'s two queries, compiled once (storage.ts, precompiledQuery).
  const countedSince = (userId: string, since: number) => db.selectFrom('play_history').select(['play_id', 'song_id', 'started_at', 'ms_played', 'counted', 'context'])
    .where('user_id', '=', userId).where('counted', '=', 1).where('started_at', '>=', since);
  const newestFirst = (query: ReturnType<typeof countedSince>, limit: number) => query.orderBy('started_at', 'desc').orderBy('play_id', 'asc').limit(limit);
  const firstPage = precompiledQuery(db, (userId: string, since: number, limit: number) => newestFirst(countedSince(userId, since), limit),
    [marker.text(0), marker.number(1), marker.number(2)]);
  const pageAfter = precompiledQuery(db, (userId: string, since: number, startedAt: number, playId: string, limit: number) => {
    const counted = countedSince(userId, since);
    const sameTime = db.selectFrom(counted.where('started_at', '=', startedAt).where('play_id', '>', playId).orderBy('play_id').limit(limit).as('same_time')).selectAll();
    const older = db.selectFrom(newestFirst(counted.where('started_at', '<', startedAt), limit).as('older')).selectAll();
    return sameTime.unionAll(older).orderBy('started_at', 'desc').orderBy('play_id', 'asc').limit(limit);
  }, [marker.text(0), marker.number(1), marker.number(2), marker.text(3), marker.number(4)]);

  // A write's reads (HistoryWrite.before), compiled once.
  const durationsQuery = precompiledQuery(db, (songIds: readonly string[]) =>
    db.selectFrom('songs').select(['id', 'duration_ms']).where('id', 'in', storage.idList(songIds)).where('withdrawn', '=', 0),
  [[marker.text(0)]], ([songIds]) => [storage.idListParameter(songIds)]);
  // Each playId by the primary key (Storage.idRows says why not IN: here it walked all of a user's plays).
  const reportedQuery = precompiledQuery(db, (playIds: readonly string[], userId: string) =>
    db.selectFrom(storage.idRows(playIds)).crossJoin('play_history as p').select(['p.play_id', 'p.counted'])
      .where('p.user_id', '=', userId).whereRef('p.play_id', '=', 'wanted.value'),
  [[marker.text(0)], marker.text(1)], ([playIds, userId]) => [storage.idListParameter(playIds), userId]);

  return {
    /** The user's history within one of their writes (user-write.ts). */
    within({ userId, read: reads, write }: UserWriteSession): HistoryWrite {
      return {
        async before(songIds, playIds) {
          const [durations, recorded] = await reads(
            read(durationsQuery.compiled(songIds), (rows) => new Map(rows.map((row) => [row.id, Number(row.duration_ms)]))),
            read(reportedQuery.compiled(playIds, userId), (rows) => new Map(rows.map((row) => [row.play_id, row.counted === 1]))),
          );
          return { durations, recorded };
        },
        record(plays) {
          if (plays.length === 0) return;
          write(db.insertInto('play_history').values(plays.map((play) => ({
            user_id: userId, play_id: play.playId, song_id: play.songId, started_at: play.startedAt, ms_played: play.msPlayed, counted: play.counted ? 1 : 0, context: play.context,
          }))));
        },
      };
    },

    /**
     * A page of the user's counted plays that started at `since` or later, newest first, then playId. After a
     * position, the page is two ranges of the index, each found by seeking: the rest of the plays that started
     * at the position's time, then the older ones. One condition with an OR instead (an earlier time, or the
     * same time and a later playId) cannot be sought: SQLite walked every play of that time from the first.
     * Walking the 100,000 plays of a user who reported them all with one start, a page cost 3,020 us of the
     * server's CPU, and 454 us as two ranges (bench/README.md at 9b0c7f5, "history pages by two ranges").
     */
    async page(userId: string, since: number, after: HistoryPosition | null, limit: number): Promise<PlayRow[]> {
      const rows = after === null ? await firstPage(userId, since, limit) : await pageAfter(userId, since, after[0], after[1], limit);
      return rows.map((row) => ({
        playId: row.play_id, songId: row.song_id, startedAt: Number(row.started_at), msPlayed: row.ms_played, counted: row.counted === 1, context: row.context,
      }));
    },

  };
}

export type HistoryRepo = ReturnType<typeof createHistoryRepo>;

/** What one of the user's writes may do to their history. */
export interface HistoryWrite {
  /**
   * In one read: the length of each of these songs the catalog shows (not
   * withdrawn), and which of these playIds the user reported before, with
   * whether each counted. The user's writes take turns (user-write.ts), so
   * a playId reported by two nodes at once is recorded by the first, and
   * the second reads it here.
   */
  before(songIds: readonly string[], playIds: readonly string[]): Promise<{ durations: Map<string, number>; recorded: Map<string, boolean> }>;
  /** Records these plays, none reported before (plays past the retention are forgotten by library/retention.ts). */
  record(plays: readonly PlayRow[]): void;
}
