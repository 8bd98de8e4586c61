import type { Selectable } from 'kysely';
import type { ArtistsTable, SongsTable } from '../storage/database.ts';
import { precompiledIdListQuery, type Storage } from '../storage/storage.ts';

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
