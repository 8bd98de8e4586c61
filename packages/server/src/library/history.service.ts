import { COUNTED_PLAY_MS, MAX_PLAY_AGE_MS, MAX_PLAY_CLOCK_SKEW_MS, type Play } from '@maqam/contract';
import { invalidRequest, type ErrorReason } from '../errors.ts';
import type { Negotiation } from '../locale/negotiation.ts';
import type { CatalogService, PageRequest } from '../catalog/catalog.service.ts';
import type { PageCursorCodec } from '../catalog/page-cursor.ts';
import type { HistoryPosition, HistoryRepo, PlayRow } from './history.repo.ts';
import { itemFragments, rfc3339, withMembers } from './rendered-items.ts';

/** What ReportPlays answers for one playId: whether it counts, or why it was refused. */
export type PlayOutcome = { readonly counted: boolean } | { readonly error: ErrorReason; readonly id: string };

const DAY_MS = 24 * 3600 * 1000;

/**
 * Contract section 13's rule: a play counts when it lasted at least 30 s, or
 * at least half of a song shorter than 60 s; shorter plays are skips.
 */
export function playCounts(msPlayed: number, songDurationMs: number): boolean {
  return msPlayed >= COUNTED_PLAY_MS || (songDurationMs < 2 * COUNTED_PLAY_MS && msPlayed * 2 >= songDurationMs);
}

export interface HistoryServiceDeps {
  repo: HistoryRepo;
  catalog: CatalogService;
  cursors: PageCursorCodec;
  /** MAQAM_HISTORY_DAYS: how long plays are kept. */
  historyDays: number;
  clock: () => number;
}

/** A user's listening history: plays reported by their apps, idempotent by playId, kept for `historyDays`. */
export function createHistoryService({ repo, catalog, cursors, historyDays, clock }: HistoryServiceDeps) {
  const retentionMs = historyDays * DAY_MS;

  return {
    /**
     * Records the plays (each playId once: a playId reported again answers
     * its first result) and answers each playId's outcome. A bad play is
     * refused on its own; the others are recorded.
     */
    async report(userId: string, plays: readonly Play[]): Promise<Map<string, PlayOutcome>> {
      const now = clock();
      const outcomes = new Map<string, PlayOutcome>();
      // A playId repeated in one request is the same play: its first report is the one.
      const seen = new Set<string>();
      const distinct = plays.filter((play) => !seen.has(play.playId) && seen.add(play.playId));
      const durations = await repo.songDurations([...new Set(distinct.map((play) => play.songId))]);
      const rows: PlayRow[] = [];
      for (const play of distinct) {
        const startedAt = Date.parse(play.startedAt);
        const duration = durations.get(play.songId);
        if (startedAt < now - MAX_PLAY_AGE_MS) outcomes.set(play.playId, { error: 'playTooOld', id: play.playId });
        else if (startedAt > now + MAX_PLAY_CLOCK_SKEW_MS) outcomes.set(play.playId, { error: 'playInFuture', id: play.playId });
        else if (duration === undefined) outcomes.set(play.playId, { error: 'songNotFound', id: play.songId });
        else {
          rows.push({
            playId: play.playId, songId: play.songId, startedAt, msPlayed: play.msPlayed, counted: playCounts(play.msPlayed, duration),
            context: play.context === undefined ? null : JSON.stringify(play.context),
          });
        }
      }
      const recorded = await repo.record(userId, rows);
      for (const row of rows) outcomes.set(row.playId, { counted: recorded.get(row.playId) ?? row.counted });
      // Forgotten as the user reports more: what is older than the retention is never listed anyway.
      await repo.forgetBefore(userId, now - retentionMs);
      // In the order the request named them.
      return new Map(distinct.map((play) => [play.playId, outcomes.get(play.playId)!]));
    },

    /** A page of the user's counted plays, newest first: `{"entries":[...],"nextPageToken":"..."}`. */
    async list(userId: string, request: PageRequest, negotiation: Negotiation): Promise<Buffer> {
      const scope = `history\u0000${userId}`;
      let after: HistoryPosition | null = null;
      if (request.token !== undefined && request.token.value !== '') {
        after = cursors.decode<HistoryPosition>(request.token.value, scope, ['number', 'string']);
        if (after === null) throw invalidRequest({ field: request.token.field, reason: 'pageToken' });
      }
      const rows = await repo.page(userId, clock() - retentionMs, after, request.size + 1);
      const page = rows.slice(0, request.size);
      const last = page[page.length - 1];
      const nextPageToken = rows.length > request.size && last ? cursors.encode(scope, [last.startedAt, last.playId]) : '';
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
