import type { Transaction } from 'kysely';
import type { CatalogWriteLock } from './catalog-write-lock.ts';
import type { Database, Db } from './database.ts';
import { readSetting, writeSetting } from './settings.repo.ts';
import type { Storage } from './storage.ts';

/**
 * Data the server derives from the catalog and stores in a layout of its own
 * (pre-rendered song templates, the search index's segments). Each layout
 * carries a version, recorded in `settings` under `format:<name>` once the
 * data is all of it. A database that holds another version has its data
 * rebuilt by the live code before a server uses it (`rebuildStaleFormats`,
 * run after the migrations), so migrations only change the schema and never
 * import the code that renders or indexes.
 */
export interface StoredFormat {
  /** What the data is, for the settings key and the operator's progress. */
  readonly name: string;
  /** The layout this code reads and writes. */
  readonly version: number;
  /**
   * The version a database holds that never recorded one (it was written
   * before versions were recorded), if that can be told; undefined: rebuild.
   */
  unrecordedVersion?(storage: Storage): Promise<number | undefined>;
  /** Writes all of the data in this version, telling how far it is (items done, items in all); answers the items written. */
  rebuild(storage: Storage, progress: (done: number, total: number) => void): Promise<number>;
}

/**
 * How a rebuild walks its items: a page at a time in id order, each page in a
 * transaction that holds the catalog's write lock (so an import running
 * meanwhile never has an item's data replaced by data of its older row), each
 * committed on its own (a rebuild cut off keeps what it wrote). `page` writes
 * the page after `after` and answers its ids in order, none at the end;
 * `written` is told each page's size.
 */
export async function rebuildInPages(
  storage: Pick<Storage, 'db' | 'lockCatalogWrites'>,
  page: (trx: Transaction<Database>, lock: CatalogWriteLock, after: string) => Promise<readonly string[]>,
  written: (count: number) => void,
): Promise<void> {
  for (let after = ''; ; ) {
    const ids = await storage.db.transaction().execute(async (trx) => page(trx, await storage.lockCatalogWrites(trx), after));
    if (ids.length === 0) return;
    after = ids[ids.length - 1]!;
    written(ids.length);
  }
}

/**
 * A rebuild's items written, told to its progress as pages commit (the
 * `written` of rebuildInPages): out of the items counted before it began,
 * or of those written when an import meanwhile added more.
 */
export class RebuildCount {
  readonly #total: number;
  readonly #progress: (done: number, total: number) => void;
  #done = 0;

  constructor(total: number, progress: (done: number, total: number) => void) {
    this.#total = total;
    this.#progress = progress;
    progress(0, total);
  }

  readonly written = (count: number): void => {
    this.#done += count;
    this.#progress(this.#done, Math.max(this.#done, this.#total));
  };

  get done(): number {
    return this.#done;
  }
}

/** Told as a rebuild goes: which data, items done, items in all. */
export type RebuildProgress = (name: string, done: number, total: number) => void;

const settingKey = (format: StoredFormat) => `format:${format.name}`;

/** The version of `format` this database holds, undefined when not known. */
export async function storedVersion(storage: Storage, format: StoredFormat): Promise<number | undefined> {
  const recorded = await readSetting(storage.db, settingKey(format));
  if (recorded !== undefined) return Number(recorded);
  return format.unrecordedVersion?.(storage);
}

/**
 * Rebuilds each format whose stored version is not the code's, then records
 * the version (so a rebuild cut off is started again next time). Answers the
 * names of those that had data to rebuild (a new database has none: its
 * versions are only recorded).
 */
export async function rebuildStaleFormats(storage: Storage, formats: readonly StoredFormat[], onProgress?: RebuildProgress): Promise<string[]> {
  const rebuilt: string[] = [];
  for (const format of formats) {
    if ((await storedVersion(storage, format)) === format.version) continue;
    const items = await format.rebuild(storage, (done, total) => onProgress?.(format.name, done, total));
    await writeSetting(storage.db, settingKey(format), String(format.version));
    if (items > 0) rebuilt.push(format.name);
  }
  return rebuilt;
}
