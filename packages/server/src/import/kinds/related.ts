import type { RelatedRecord } from '@maqam/contract';
import { addReference, type BatchRows } from '../batch-rows.ts';
import type { ImportProjection } from '../projection.ts';

/** A related-artists record: its edge (an artist related to itself is an error of its line). */
export function addRelated(rows: BatchRows, line: number, r: RelatedRecord): void {
  addReference(rows.artistRefs, r.artistId, line);
  addReference(rows.artistRefs, r.relatedId, line);
  if (r.artistId === r.relatedId) rows.errors.push({ line, message: 'an artist cannot be related to itself' });
  rows.related.set(`${r.artistId}\u0000${r.relatedId}`, { artist_id: r.artistId, related_id: r.relatedId, score: r.score });
}

/** Writes the batch's related-artist edges. */
export const writeRelated: ImportProjection = async ({ trx, upsert, rows }) => {
  await upsert(trx, 'related_artists', ['artist_id', 'related_id'], [...rows.related.values()]);
};
