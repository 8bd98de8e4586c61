import { sql } from 'kysely';
import type { Db } from '../storage/database.ts';

const DAY_MS = 86_400_000;

export type LedgerGrouping = 'day' | 'song' | 'client';

/** One group of billed streams: the day (UTC, YYYY-MM-DD), song id or client id, and its counts. */
export interface LedgerGroup {
  readonly key: string;
  readonly streams: number;
  readonly listeners: number;
}

/**
 * The stream ledger as operators read it: billed streams (one per user, song
 * and quality per billing window) grouped by day, song or client over a time
 * range, most streams first for songs and clients, in date order for days.
 */
export function createLedgerRepo(db: Db) {
  return {
    async report(by: LedgerGrouping, range: { from: number; to: number }, limit: number): Promise<LedgerGroup[]> {
      // Integer division on both dialects: the UTC day number (a literal, so PostgreSQL sees one expression in select and group by).
      const key = by === 'day' ? sql<string>`acquired_at / ${sql.lit(DAY_MS)}` : sql<string>`${sql.ref(by === 'song' ? 'song_id' : 'client_id')}`;
      let query = db
        .selectFrom('stream_ledger')
        .select([
          key.as('key'),
          (eb) => eb.fn.countAll<number | string>().as('streams'),
          (eb) => eb.fn.count<number | string>('user_id').distinct().as('listeners'),
        ])
        .where('acquired_at', '>=', range.from)
        .where('acquired_at', '<', range.to)
        .groupBy(key);
      query = by === 'day' ? query.orderBy(key) : query.orderBy('streams', 'desc').orderBy(key);
      const rows = await query.limit(limit).execute();
      return rows.map((row) => ({
        key: by === 'day' ? new Date(Number(row.key) * DAY_MS).toISOString().slice(0, 10) : String(row.key),
        streams: Number(row.streams),
        listeners: Number(row.listeners),
      }));
    },
  };
}

export type LedgerRepo = ReturnType<typeof createLedgerRepo>;
