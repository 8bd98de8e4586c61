import type { GetRelatedArtistsResponse } from '@maqam/contract';
import { ERRORS, formatMessage, type MessageLocale } from '../errors.ts';
import type { Negotiation } from '../http/locale.ts';
import type { CatalogRepo, SongArtistRefRow, SongRow } from './catalog.repo.ts';
import type { FragmentCache } from './fragment-cache.ts';
import type { PageCursorCodec } from './page-cursor.ts';
import { renderSongResult, toArtist } from './song-render.ts';

const OPEN = Buffer.from('{"results":{');
const CLOSE = Buffer.from('}}');

export class PageTokenError extends Error {
  override name = 'PageTokenError';
}

export class ArtistNotFoundError extends Error {
  override name = 'ArtistNotFoundError';
}

export interface CatalogServiceDeps {
  repo: CatalogRepo;
  cache: FragmentCache;
  cursors: PageCursorCodec;
}

export function createCatalogService({ repo, cache, cursors }: CatalogServiceDeps) {
  function notFoundResult(id: string, locale: MessageLocale): Buffer {
    const message = formatMessage(ERRORS.songNotFound.message[locale], { id });
    return Buffer.from(`{"error":{"code":"ERROR_CODE_NOT_FOUND","message":${JSON.stringify(message)}}}`);
  }

  /** Renders the songs that missed the cache, caching each; returns them by id. */
  async function renderMisses(ids: string[], negotiation: Negotiation): Promise<Map<string, Buffer>> {
    const rows: SongRow[] = await repo.songsByIds(ids);
    const rendered = new Map<string, Buffer>();
    if (rows.length === 0) return rendered;
    const refs = await repo.artistRefsOfSongs(rows.map((r) => r.id));
    const refsBySong = new Map<string, SongArtistRefRow[]>();
    for (const ref of refs) {
      const list = refsBySong.get(ref.song_id);
      if (list) list.push(ref);
      else refsBySong.set(ref.song_id, [ref]);
    }
    const parsedNames = new Map<string, Record<string, string>>();
    for (const row of rows) {
      const fragment = Buffer.from(renderSongResult(row, refsBySong.get(row.id) ?? [], parsedNames, negotiation.chain));
      cache.set(`${negotiation.chainKey}\u0000${row.id}`, fragment);
      rendered.set(row.id, fragment);
    }
    return rendered;
  }

  return {
    /**
     * BatchGetSongs, answered as ready-to-send JSON bytes: cached per-locale
     * song fragments are copied into one buffer, and only misses touch the
     * database. Duplicate ids are answered once, in first-seen order.
     */
    async batchGetSongs(requested: readonly string[], negotiation: Negotiation): Promise<Buffer> {
      const ids = [...new Set(requested)];
      const fragments: (Buffer | undefined)[] = new Array(ids.length);
      const missing: string[] = [];
      const prefix = `${negotiation.chainKey}\u0000`;
      for (let i = 0; i < ids.length; i++) {
        const hit = cache.get(prefix + ids[i]);
        if (hit === undefined) missing.push(ids[i]!);
        fragments[i] = hit;
      }
      if (missing.length > 0) {
        const rendered = await renderMisses(missing, negotiation);
        for (let i = 0; i < ids.length; i++) {
          if (fragments[i] === undefined) {
            fragments[i] = rendered.get(ids[i]!) ?? notFoundResult(ids[i]!, negotiation.messageLocale);
          }
        }
      }

      const keys = ids.map((id) => `${JSON.stringify(id)}:`);
      let size = OPEN.length + CLOSE.length + ids.length - 1;
      for (let i = 0; i < ids.length; i++) size += Buffer.byteLength(keys[i]!) + fragments[i]!.length;
      const body = Buffer.allocUnsafe(size);
      let offset = OPEN.copy(body, 0);
      for (let i = 0; i < ids.length; i++) {
        if (i > 0) body[offset++] = 0x2c; // ','
        offset += body.write(keys[i]!, offset);
        offset += fragments[i]!.copy(body, offset);
      }
      CLOSE.copy(body, offset);
      return body;
    },

    async relatedArtists(
      artistId: string,
      pageSize: number,
      pageToken: string | undefined,
      negotiation: Negotiation,
    ): Promise<GetRelatedArtistsResponse> {
      let after = null;
      if (pageToken !== undefined && pageToken !== '') {
        after = cursors.decode(pageToken, artistId);
        if (after === null) throw new PageTokenError();
      }
      if (!(await repo.artistExists(artistId))) throw new ArtistNotFoundError(artistId);
      // One extra row tells whether another page follows without a count query.
      const rows = await repo.relatedArtists(artistId, after, pageSize + 1);
      const page = rows.slice(0, pageSize);
      const last = page[page.length - 1];
      return {
        artists: page.map((row) => toArtist(row, negotiation.chain)),
        nextPageToken: rows.length > pageSize && last ? cursors.encode(artistId, { score: last.score, relatedId: last.id }) : '',
      };
    },
  };
}

export type CatalogService = ReturnType<typeof createCatalogService>;
