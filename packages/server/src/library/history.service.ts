import { COUNTED_PLAY_MS, MAX_PLAY_AGE_MS, MAX_PLAY_CLOCK_SKEW_MS, type Play, type PlayContext } from '@maqam/contract';
import { DomainError, type ErrorReason } from '../errors.ts';
import type { Negotiation } from '../locale/negotiation.ts';
import type { CatalogLists } from '../catalog/catalog.service.ts';
import { keysetPage, type PageCursorCodec, type PageRequest } from '../catalog/page-cursor.ts';
import type { HistoryPosition, HistoryRepo, HistoryWrite, PlayRow } from './history.repo.ts';
import type { BeforeCommit, UserStore } from './user-write.ts';
import { itemFragments, rfc3339, withMembers } from './rendered-items.ts';

/** What ReportPlays answers for one playId: whether it counts, or why it was refused. */
export type PlayOutcome = { readonly counted: boolean } | { readonly error: ErrorReason; readonly id: string };

const DAY_MS = 24 * 3600 * 1000;

/**
 * The instant an RFC 3339 time names, or NaN. The schema's `date-time`
 * takes second 60 (a leap second), which Date.parse refuses, and Date.parse
 * takes February 30 as March 2: neither names an instant we can keep.
 */
export function instantOf(time: string): number {
  const instant = Date.parse(time);
  const date = /^(\d{4})-(\d{2})-(\d{2})/.exec(time);
  if (date === null || Number.isNaN(instant)) return Number.NaN;
  const [year, month, day] = [Number(date[1]), Number(date[2]), Number(date[3])];
  return new Date(Date.UTC(year, month - 1, day)).getUTCDate() === day ? instant : Number.NaN;
}

/** A play's context as kept and listed: exactly the one member it has, ids typed (contract section 13). */
function contextJson(context: PlayContext): string {
  if (context.albumId !== undefined) return JSON.stringify({ albumId: { value: context.albumId.value } });
  if (context.artistId !== undefined) return JSON.stringify({ artistId: { value: context.artistId.value } });
  if (context.playlistId !== undefined) return JSON.stringify({ playlistId: { value: context.playlistId.value } });
  return JSON.stringify({ searchQuery: context.searchQuery });
}

/**
 * Contract section 13's rule: a play counts when it lasted at least 30 s, or
 * at least half of a song shorter than 60 s; shorter plays are skips.
 */
export function playCounts(msPlayed: number, songDurationMs: number): boolean {
  return msPlayed >= COUNTED_PLAY_MS || (songDurationMs < 2 * COUNTED_PLAY_MS && msPlayed * 2 >= songDurationMs);
}

export interface HistoryServiceDeps {
  /** The history's reads. */
  repo: Pick<HistoryRepo, 'page'>;
  /** The user's writes, with the history bound to each (user-write.ts). */
  writes: UserStore<{ history: HistoryWrite }>;
  catalog: CatalogLists;
  cursors: PageCursorCodec;
  /** MAQAM_HISTORY_DAYS: how long plays are kept. */
  historyDays: number;
  clock: () => number;
}

/** A user's listening history: plays reported by their apps, idempotent by playId, kept for `historyDays`. */
export function createHistoryService({ repo, writes, catalog, cursors, historyDays, clock }: HistoryServiceDeps) {
  const retentionMs = historyDays * DAY_MS;

  return {
    /**
     * Records the plays (each playId once: a playId reported again answers
     * its first result) and answers each playId's outcome. A bad play is
     * refused on its own; the others are recorded.
     */
    async report(userId: string, plays: readonly Play[], beforeCommit?: BeforeCommit<Map<string, PlayOutcome>>): Promise<Map<string, PlayOutcome>> {
      const now = clock();
      const outcomes = new Map<string, PlayOutcome>();
      // A playId repeated in one request is the same play: its first report is the one.
      const seen = new Set<string>();
      const distinct = plays.filter((play) => !seen.has(play.playId) && seen.add(play.playId));
      // The answer is made inside the write, from what it recorded: a retry of a committed report replays it.
      const answered = await writes.write(userId, async ({ history }) => {
        const { durations, recorded } = await history.before([...new Set(distinct.map((play) => play.songId.value))], distinct.map((play) => play.playId));
        const rows: PlayRow[] = [];
        for (const play of distinct) {
          const startedAt = instantOf(play.startedAt);
          const songId = play.songId.value;
          const duration = durations.get(songId);
          if (Number.isNaN(startedAt)) outcomes.set(play.playId, { error: 'playStartedAtInvalid', id: play.playId });
          else if (startedAt < now - MAX_PLAY_AGE_MS) outcomes.set(play.playId, { error: 'playTooOld', id: play.playId });
          else if (startedAt > now + MAX_PLAY_CLOCK_SKEW_MS) outcomes.set(play.playId, { error: 'playInFuture', id: play.playId });
          else if (duration === undefined) outcomes.set(play.playId, { error: 'songNotFound', id: songId });
          else {
            const row = {
              playId: play.playId, songId, startedAt, msPlayed: play.msPlayed, counted: playCounts(play.msPlayed, duration),
              context: play.context === undefined ? null : contextJson(play.context),
            };
            // Reported before: answered as it counted then, and not recorded again.
            const counted = recorded.get(play.playId);
            if (counted === undefined) rows.push(row);
            outcomes.set(play.playId, { counted: counted ?? row.counted });
          }
        }
        history.record(rows);
        // In the order the request named them.
        return new Map(distinct.map((play) => [play.playId, outcomes.get(play.playId)!]));
      }, beforeCommit);
      // A user whose token is live but whose account is gone is answered as the token: 401.
      if (answered === undefined) throw new DomainError('accessTokenInvalid');
      return answered;
    },

    /** A page of the user's counted plays, newest first: `{"entries":[...],"nextPageToken":"..."}`. */
    async list(userId: string, request: PageRequest, negotiation: Negotiation): Promise<Buffer> {
      const since = clock() - retentionMs;
      const { rows: page, nextPageToken } = await keysetPage<HistoryPosition>(cursors, request, `history\u0000${userId}`, ['number', 'string'])
        .read((after, limit) => repo.page(userId, since, after, limit), (row) => [row.startedAt, row.playId]);
      const fragments = await itemFragments(catalog, page.map((row) => ({ kind: 'song' as const, id: row.songId })), negotiation);
      const entries: (readonly Buffer[])[] = [];
      page.forEach((row, i) => {
        const fragment = fragments[i];
        if (fragment === undefined) return; // the song is withdrawn: absent until it comes back
        const context = row.context === null ? '' : `,"context":${row.context}`;
        entries.push(withMembers(fragment, `,"playId":${JSON.stringify(row.playId)},"playedAt":"${rfc3339(row.startedAt)}","msPlayed":${row.msPlayed}${context}`));
      });
      return catalog.listAnswer('entries', entries, nextPageToken);
    },
  };
}

export type HistoryService = ReturnType<typeof createHistoryService>;
