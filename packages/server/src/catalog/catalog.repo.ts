import type { Compilable, CompiledQuery, RawBuilder, Selectable } from 'kysely';
import type { ArtistsTable, SongsTable } from '../storage/database.ts';
import type { Storage } from '../storage/storage.ts';

/** What rendering a song needs. */
export type SongRow = Omit<Selectable<SongsTable>, 'withdrawn' | 'updated_at'>;

export interface ArtistNameRow {
  id: string;
  name_i18n: string;
  original_language: string;
}

export type RelatedArtistRow = Omit<Selectable<ArtistsTable>, 'updated_at'> & { score: number };

export interface PageCursor {
  readonly score: number;
  readonly relatedId: string;
}

/**
 * Compiles a query over an id list once and reuses the SQL for every call:
 * the id list is a single parameter (Storage.idList), so only that parameter
 * changes. Kysely would otherwise rebuild and recompile the query per request,
 * which costs more than the indexed lookup itself on the BatchGetSongs path.
 */
function precompiledIdListQuery<Row>(storage: Storage, build: (ids: RawBuilder<string>) => Compilable<Row>) {
  const marker = ['\u0000precompiled-id-list\u0000'];
  const compiled = build(storage.idList(marker)).compile();
  const markerValue = JSON.stringify(storage.idList(marker).compile(storage.db).parameters[0]);
  const slot = compiled.parameters.findIndex((p) => JSON.stringify(p) === markerValue);
  if (slot < 0) throw new Error('precompiledIdListQuery: the id list parameter was not found');
  return async (ids: readonly string[]): Promise<Row[]> => {
    const parameters = [...compiled.parameters];
    parameters[slot] = storage.idList(ids).compile(storage.db).parameters[0];
    const query: CompiledQuery<Row> = { ...compiled, parameters };
    return (await storage.db.executeQuery(query)).rows;
  };
}

export function createCatalogRepo(storage: Storage) {
  const { db } = storage;

  const songsByIds = precompiledIdListQuery<SongRow>(storage, (ids) =>
    db
      .selectFrom('songs')
      .select([
        'id', 'title_i18n', 'original_language', 'album_id', 'artist_ids', 'duration_ms', 'track_number', 'disc_number',
        'release_date', 'genres', 'is_explicit', 'isrc', 'has_lyrics', 'popularity', 'artwork', 'preview_url',
      ])
      .where('id', 'in', ids)
      .where('withdrawn', '=', 0),
  );

  const artistNames = precompiledIdListQuery<ArtistNameRow>(storage, (ids) =>
    db.selectFrom('artists').select(['id', 'name_i18n', 'original_language']).where('id', 'in', ids),
  );

  return {
    songsByIds,
    artistNames,

    async artistExists(id: string): Promise<boolean> {
      return (await db.selectFrom('artists').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
    },

    /** One keyset page in the contract's order: score descending, then artist id. */
    async relatedArtists(artistId: string, after: PageCursor | null, limit: number): Promise<RelatedArtistRow[]> {
      let query = db
        .selectFrom('related_artists as r')
        .innerJoin('artists as a', 'a.id', 'r.related_id')
        .select([
          'a.id', 'r.score', 'a.name_i18n', 'a.original_language', 'a.bio_i18n', 'a.genres', 'a.follower_count',
          'a.monthly_listeners', 'a.is_verified', 'a.social_links', 'a.artwork', 'a.nationality',
        ])
        .where('r.artist_id', '=', artistId);
      if (after) {
        query = query.where((eb) =>
          eb.or([
            eb('r.score', '<', after.score),
            eb.and([eb('r.score', '=', after.score), eb('r.related_id', '>', after.relatedId)]),
          ]),
        );
      }
      return query.orderBy('r.score', 'desc').orderBy('r.related_id', 'asc').limit(limit).execute();
    },

    async catalogLanguages(): Promise<string[]> {
      return (await db.selectFrom('catalog_languages').select('tag').execute()).map((r) => r.tag);
    },

    /** Bumped by every import batch; servers poll it to drop cached renderings. */
    async catalogVersion(): Promise<string> {
      const row = await db.selectFrom('settings').select('value').where('key', '=', 'catalog_version').executeTakeFirst();
      return row?.value ?? '0';
    },
  };
}

export type CatalogRepo = ReturnType<typeof createCatalogRepo>;
