import type { GetRelatedArtistsResponse } from '@maqam/contract';
import { ERRORS, formatMessage, type MessageLocale } from '../errors.ts';
import type { Negotiation } from '../http/locale.ts';
import type { ArtistNames } from './artist-names.ts';
import type { CatalogRepo, SongRow } from './catalog.repo.ts';
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
  artistNames: ArtistNames;
  cursors: PageCursorCodec;
}

export function createCatalogService({ repo, cache, artistNames, cursors }: CatalogServiceDeps) {
  function notFoundResult(id: string, locale: MessageLocale): Buffer {
    const message = formatMessage(ERRORS.songNotFound.message[locale], { id });
    return Buffer.from(`{"error":{"code":"ERROR_CODE_NOT_FOUND","message":${JSON.stringify(message)}}}`);
  }

  /** Renders the songs that missed the cache; returns them by id (the caller caches them). */
  async function renderMisses(ids: string[], negotiation: Negotiation): Promise<Map<string, Buffer>> {
    const rows: SongRow[] = await repo.songsByIds(ids);
    const rendered = new Map<string, Buffer>();
    if (rows.length === 0) return rendered;
    const artistIdsBySong = rows.map((row) => JSON.parse(row.artist_ids) as string[]);
    const names = await artistNames.load(artistIdsBySong.flat());
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]!;
      rendered.set(row.id, Buffer.from(renderSongResult(row, artistIdsBySong[i]!, names, negotiation.chain)));
    }
    return rendered;
  }

  return {
    /**
     * BatchGetSongs, answered as ready-to-send JSON bytes: cached per-locale
     * song fragments are copied from the cache arena into one buffer, and only
     * misses touch the database. Duplicate ids are answered once, in
     * first-seen order.
     */
    async batchGetSongs(requested: readonly string[], negotiation: Negotiation): Promise<Buffer> {
      const ids = [...new Set(requested)];
      const fragments: (Buffer | undefined)[] = new Array(ids.length);
      const entries = new Int32Array(ids.length).fill(-1);
      const missing: string[] = [];
      const index = cache.index(negotiation.chainKey);
      let hitBytes = 0;
      for (let i = 0; i < ids.length; i++) {
        const entry = index?.get(ids[i]!);
        if (entry === undefined) {
          missing.push(ids[i]!);
        } else {
          entries[i] = entry;
          hitBytes += cache.lengthOf(entry);
        }
      }
      if (missing.length > 0) {
        // The database read below yields to other requests, whose inserts can
        // evict and reuse the entries found above (and the catalog watcher can
        // clear them): copy the hits out first, into one buffer.
        const hits = Buffer.allocUnsafe(hitBytes);
        let at = 0;
        for (let i = 0; i < ids.length; i++) {
          if (entries[i] === -1) continue;
          const length = cache.copyTo(entries[i]!, hits, at);
          fragments[i] = hits.subarray(at, at + length);
          at += length;
        }
        entries.fill(-1);
        const generation = cache.generation;
        const rendered = await renderMisses(missing, negotiation);
        for (let i = 0; i < ids.length; i++) {
          fragments[i] ??= rendered.get(ids[i]!) ?? notFoundResult(ids[i]!, negotiation.messageLocale);
        }
        for (const [id, fragment] of rendered) cache.set(negotiation.chainKey, id, fragment, generation);
      }

      // From here to the return nothing awaits, so cache entries still hold what was found.
      const keys = ids.map((id) => `${JSON.stringify(id)}:`);
      let size = OPEN.length + CLOSE.length + ids.length - 1;
      for (let i = 0; i < ids.length; i++) {
        size += Buffer.byteLength(keys[i]!) + (entries[i] === -1 ? fragments[i]!.length : cache.lengthOf(entries[i]!));
      }
      const body = Buffer.allocUnsafe(size);
      let offset = OPEN.copy(body, 0);
      for (let i = 0; i < ids.length; i++) {
        if (i > 0) body[offset++] = 0x2c; // ','
        offset += body.write(keys[i]!, offset);
        offset += entries[i] === -1 ? fragments[i]!.copy(body, offset) : cache.copyTo(entries[i]!, body, offset);
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
