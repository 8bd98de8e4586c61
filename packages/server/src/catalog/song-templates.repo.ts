import { sql, type Insertable, type Kysely } from 'kysely';
import type { BulkUpsert } from '../storage/bulk-upsert.ts';
import type { Database } from '../storage/database.ts';
import { precompiledIdListQuery, precompiledKeyListQuery, type Storage } from '../storage/storage.ts';
import { songKey } from './song-key.ts';

/**
 * Where the pre-rendered songs (song-template.ts) are kept: by songKey(id),
 * an integer, in `song_templates`. The first id written under a key holds
 * it; another id of the same key (one chance in about 18,000 for a million
 * songs) is kept by id in `song_template_collisions`. A read asks that table
 * only for the ids the first read did not find, which is none for a song in
 * the catalog that holds its key.
 */

export interface SongTemplateRow {
  readonly id: string;
  readonly template: Uint8Array;
}

/** The templates found, one after another in one value (self-delimiting: song-template.ts); null when none was. */
export interface ConcatenatedTemplates {
  templates: Uint8Array | null;
}

type Lists = Pick<Storage, 'idList' | 'keyList'>;

/** Ids a statement binds at most, as one list value. */
const CHUNK = 5000;

/** Keys and ids as they go in, and how two ids of one key are told apart. */
function byKey(rows: readonly SongTemplateRow[]): { keyed: Insertable<Database['song_templates']>[]; collided: SongTemplateRow[] } {
  const owners = new Set<number>();
  const keyed: Insertable<Database['song_templates']>[] = [];
  const collided: SongTemplateRow[] = [];
  for (const row of rows) {
    const key = songKey(row.id);
    // Two ids of one key in one statement: PostgreSQL refuses to touch a row twice, so the second goes by id at once.
    if (owners.has(key)) collided.push(row);
    else {
      owners.add(key);
      keyed.push({ key, id: row.id, template: row.template });
    }
  }
  return { keyed, collided };
}

async function anyCollision(trx: Kysely<Database>): Promise<boolean> {
  return (await trx.selectFrom('song_template_collisions').select(sql<number>`1`.as('one')).limit(1).executeTakeFirst()) !== undefined;
}

/**
 * Writes these songs' templates (ids distinct), replacing what they had.
 * Costs no read unless a key is held by another id, or collisions exist.
 */
export async function putSongTemplates(trx: Kysely<Database>, lists: Lists, upsert: BulkUpsert, rows: readonly SongTemplateRow[]): Promise<void> {
  if (rows.length === 0) return;
  const { keyed, collided } = byKey(rows);
  // An id kept by id before may hold its key now (its holder was withdrawn): it is placed again below, and is
  // in one table only (a copy left behind would be unseen, since the key is read first, but would linger).
  if (await anyCollision(trx)) await deleteCollided(trx, lists, rows.map((row) => row.id));
  const written = await upsert(trx, 'song_templates', ['key'], keyed, { updateOnlyIfSame: 'id' });
  if (written < keyed.length) {
    // Some keys are held by other ids: those rows were left out.
    for (let i = 0; i < keyed.length; i += CHUNK) {
      const chunk = keyed.slice(i, i + CHUNK);
      const holders = await trx
        .selectFrom('song_templates')
        .select(['key', 'id'])
        .where('key', 'in', lists.keyList(chunk.map((row) => Number(row.key))))
        .execute();
      const holderOf = new Map(holders.map((holder) => [Number(holder.key), holder.id]));
      for (const row of chunk) if (holderOf.get(Number(row.key)) !== row.id) collided.push({ id: row.id, template: row.template });
    }
  }
  await upsert(trx, 'song_template_collisions', ['id'], collided.map(({ id, template }) => ({ id, template })));
}

/** Deletes these songs' templates (a withdrawn song is not found). */
export async function deleteSongTemplates(trx: Kysely<Database>, lists: Lists, ids: readonly string[]): Promise<void> {
  for (let i = 0; i < ids.length; i += CHUNK) {
    const chunk = ids.slice(i, i + CHUNK);
    await trx
      .deleteFrom('song_templates')
      .where('key', 'in', lists.keyList(chunk.map(songKey)))
      .where('id', 'in', lists.idList(chunk))
      .execute();
  }
  if (ids.length > 0 && (await anyCollision(trx))) await deleteCollided(trx, lists, ids);
}

async function deleteCollided(trx: Kysely<Database>, lists: Lists, ids: readonly string[]): Promise<void> {
  for (let i = 0; i < ids.length; i += CHUNK) {
    await trx.deleteFrom('song_template_collisions').where('id', 'in', lists.idList(ids.slice(i, i + CHUNK))).execute();
  }
}

/** The two reads of a song miss: by key, then by id for the ids the first did not find. */
export function createSongTemplatesReader(storage: Storage) {
  const { db } = storage;
  // Concatenated by the database: a row object and a buffer a song cost a tenth to a fifth of the read (1M catalog,
  // 85 ids: 9.8 to 11.2 us a song against 8.8). SQLite's group_concat keeps a BLOB's bytes, NULs included, in a UTF-8
  // database (Maqam's are), and the cast turns the TEXT it answers back into a BLOB; PostgreSQL concatenates bytea.
  const concatenated = storage.dialect === 'postgres' ? sql<Uint8Array | null>`string_agg(template, ''::bytea)` : sql<Uint8Array | null>`cast(group_concat(template, '') as blob)`;
  const byKeys = precompiledKeyListQuery<ConcatenatedTemplates>(storage, (keys) =>
    db.selectFrom('song_templates').select(concatenated.as('templates')).where('key', 'in', keys),
  );
  const collidedByIds = precompiledIdListQuery<ConcatenatedTemplates>(storage, (ids) =>
    db.selectFrom('song_template_collisions').select(concatenated.as('templates')).where('id', 'in', ids),
  );
  return {
    /**
     * The templates under these ids' keys: every song found that holds its key, and perhaps songs of other ids
     * that hold one (the caller keeps the ids it asked for).
     */
    async byKeys(ids: readonly string[]): Promise<Uint8Array | null> {
      // An aggregate: always one row.
      return (await byKeys(ids.map(songKey)))[0]?.templates ?? null;
    },
    /** The templates of these ids kept by id because another id held their key. */
    async collided(ids: readonly string[]): Promise<Uint8Array | null> {
      return (await collidedByIds(ids))[0]?.templates ?? null;
    },
  };
}
