import type { Transaction } from 'kysely';
import type { SongTemplatesRepo } from '../catalog/song-templates.repo.ts';
import type { IndexMemo } from '../search/index-memo.ts';
import type { BulkUpsert } from '../storage/bulk-upsert.ts';
import type { CatalogWriteLock } from '../storage/catalog-write-lock.ts';
import type { Database } from '../storage/database.ts';
import type { BatchRows } from './batch-rows.ts';
import type { ImportRepo } from './import.repo.ts';

/**
 * One batch being written, in its transaction, as its projections see it:
 * its rows, what it replaces, and what they write through.
 */
export interface BatchWrite {
  readonly trx: Transaction<Database>;
  /** The catalog's write lock, which the batch's transaction holds. */
  readonly lock: CatalogWriteLock;
  readonly rows: BatchRows;
  /** The batch's songs the catalog held before it, with the album each was on (read before anything is written). */
  readonly replacedSongs: ReadonlyMap<string, string>;
  readonly upsert: BulkUpsert;
  readonly repo: ImportRepo;
  readonly templates: SongTemplatesRepo;
  /** The largest merge of search segments the batch makes, in live items (default: any). */
  readonly largestMerge: number | undefined;
  /** What the import's earlier batches read for the search index. */
  readonly memo: IndexMemo | undefined;
}

/**
 * What a batch of records becomes in some tables, which it owns: a record
 * kind's rows (kinds/), or what is derived from them (the search index, the
 * catalog's languages). import.ts runs every projection of a batch in its
 * one transaction, in the order it lists them.
 */
export type ImportProjection = (batch: BatchWrite) => Promise<void>;
