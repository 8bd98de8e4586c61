import { songTemplatesFormat } from './catalog/song-templates.format.ts';
import { searchIndexFormat } from './search/search-index.format.ts';
import { titleTemplatesFormat } from './video/title-templates.format.ts';
import { migrateToLatest, type Storage } from './storage/storage.ts';
import { rebuildStaleFormats, type RebuildProgress, type StoredFormat } from './storage/stored-formats.ts';

/** What the server stores in layouts of its own, rebuilt when a database holds another version. */
export const STORED_FORMATS: readonly StoredFormat[] = [songTemplatesFormat, searchIndexFormat, titleTemplatesFormat];

/**
 * Makes a database ready for this code: its schema migrated, then the data
 * stored in layouts of the server's own rebuilt where it holds another
 * version (storage/stored-formats.ts). Every process that opens the database
 * for work runs it first: the server before it listens, every CLI command.
 */
export async function prepareDatabase(storage: Storage, onProgress?: RebuildProgress): Promise<{ migrations: string[]; rebuilt: string[] }> {
  const migrations = await migrateToLatest(storage);
  const rebuilt = await rebuildStaleFormats(storage, STORED_FORMATS, onProgress);
  return { migrations, rebuilt };
}
