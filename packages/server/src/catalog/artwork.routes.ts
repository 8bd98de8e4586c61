import { readFile } from 'node:fs/promises';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { MAX_ID_LENGTH } from '@maqam/contract';
import { ApiError } from '../errors.ts';
import { contentEtag } from '../http/etag.ts';
import { artworkSvg, mosaicSvg, portraitSvg, titleArtSvg, type MosaicTile, type TitleArt } from './artwork.ts';
import type { CatalogRepo } from './catalog.repo.ts';

const DRAWN_KINDS = ['artists', 'albums', 'shows', 'show-backdrops', 'seasons', 'episodes', 'movies', 'movie-backdrops', 'people'] as const;
const ArtworkParams = Type.Object({
  kind: Type.Union(DRAWN_KINDS.map((kind) => Type.Literal(kind))),
  // `<id>.svg` (drawn) or `<id>.jpg` (a cover kept by `maqam media scan`); the id may hold any character but NUL.
  file: Type.String({ pattern: '^[^\\u0000]+\\.(svg|jpg)$', maxLength: MAX_ID_LENGTH + 4 }),
});

type DrawnKind = (typeof DRAWN_KINDS)[number];
type ArtworkItem = NonNullable<Awaited<ReturnType<CatalogRepo['artworkName']>>>;

/** A video title as its drawing needs it. */
const titleArt = (id: string, item: ArtworkItem, name: string): TitleArt => ({
  id, name, genres: JSON.parse(item.genres ?? '[]') as string[], family: item.family ?? id, ...(item.ordinal === undefined ? {} : { ordinal: item.ordinal }),
});

/**
 * Each kind of drawn picture: the item it is of (what artworkName looks up),
 * the error of an item that is not there (a person has none of its own: the
 * route's), and its drawing. Sizes are those the demo catalog's records give.
 */
const DRAWINGS: Record<DrawnKind, {
  readonly item: Parameters<CatalogRepo['artworkName']>[0];
  readonly notFound: 'artistNotFound' | 'albumNotFound' | 'showNotFound' | 'seasonNotFound' | 'episodeNotFound' | 'movieNotFound' | 'routeNotFound';
  readonly draw: (id: string, item: ArtworkItem, name: string) => string;
}> = {
  artists: { item: 'artists', notFound: 'artistNotFound', draw: (id, _item, name) => artworkSvg('artists', id, name) },
  albums: { item: 'albums', notFound: 'albumNotFound', draw: (id, _item, name) => artworkSvg('albums', id, name) },
  shows: { item: 'shows', notFound: 'showNotFound', draw: (id, item, name) => titleArtSvg('poster', titleArt(id, item, name)) },
  'show-backdrops': { item: 'shows', notFound: 'showNotFound', draw: (id, item, name) => titleArtSvg('wide', titleArt(id, item, name), [1280, 720]) },
  seasons: { item: 'seasons', notFound: 'seasonNotFound', draw: (id, item, name) => titleArtSvg('poster', titleArt(id, item, name)) },
  episodes: { item: 'episodes', notFound: 'episodeNotFound', draw: (id, item, name) => titleArtSvg('wide', titleArt(id, item, name)) },
  movies: { item: 'movies', notFound: 'movieNotFound', draw: (id, item, name) => titleArtSvg('poster', titleArt(id, item, name)) },
  'movie-backdrops': { item: 'movies', notFound: 'movieNotFound', draw: (id, item, name) => titleArtSvg('wide', titleArt(id, item, name), [1280, 720]) },
  people: { item: 'people', notFound: 'routeNotFound', draw: (id, _item, name) => portraitSvg(id, name) },
};

/**
 * GET /artwork/{kind}/{id}.svg: the drawn cover or portrait of an artist or
 * album, the poster of a show, season or film (2:3), the backdrop of a show
 * or film and the still of an episode (16:9), or a cast member's portrait.
 * Public like any image on a CDN (an <img> cannot send credentials),
 * and cacheable: the picture changes only with the item's name (and a
 * title's genres).
 * `coverFile`: where an album's cover image is, when the media scan extracted
 * one (streaming/media-scan.ts owns that layout); else its artwork is drawn.
 */
export function artworkRoutes(app: FastifyInstance, repo: CatalogRepo, coverFile: (albumId: string) => string): void {
  /** The bytes of an image as a CDN would serve them: public, a day fresh, revalidated by their ETag. */
  const sendImage = (request: FastifyRequest, reply: FastifyReply, body: Buffer | string, contentType: string) => {
    const etag = contentEtag(body);
    reply.header('content-type', contentType).header('cache-control', 'public, max-age=86400').header('etag', etag);
    return request.headers['if-none-match'] === etag ? reply.code(304).send() : reply.send(body);
  };
  // An SVG opened on its own is a document: it may not run script or load anything.
  const SVG_POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src data:";

  /** What an album's name is to its cover: its text in its own language. */
  const nameOf = (item: { texts: string; original_language: string }, id: string) => {
    const texts = JSON.parse(item.texts) as Record<string, string>;
    return texts[item.original_language] ?? Object.values(texts)[0] ?? id;
  };

  // GET /artwork/mosaics/{album}[/{album}/{album}/{album}].svg: a playlist's cover, drawn from one album's cover or
  // four (playlists.service.ts names them, each id encoded as a path segment). The URL names the albums, so it
  // changes when they do; the bytes change with their names and kept images, and the ETag with the bytes.
  app.get('/artwork/mosaics/*', { schema: { hide: true } }, async (request, reply) => {
    const path = request.url.split('?')[0]!.slice('/artwork/mosaics/'.length);
    let ids: string[] = [];
    try {
      ids = path.endsWith('.svg') ? path.slice(0, -'.svg'.length).split('/').map(decodeURIComponent) : [];
    } catch {
      ids = [];
    }
    if ((ids.length !== 1 && ids.length !== 4) || ids.some((id) => id === '' || id.length > MAX_ID_LENGTH || id.includes('\u0000'))) {
      throw new ApiError('routeNotFound', { params: { method: request.method, path: request.url.split('?')[0]! } });
    }
    const tiles: MosaicTile[] = [];
    for (const id of ids) {
      const album = await repo.artworkName('albums', id);
      if (album === undefined) throw new ApiError('albumNotFound', { params: { id } });
      tiles.push({ id, name: nameOf(album, id), jpeg: await readFile(coverFile(id)).catch(() => undefined) });
    }
    reply.header('content-security-policy', SVG_POLICY);
    return sendImage(request, reply, mosaicSvg(tiles), 'image/svg+xml; charset=utf-8');
  });

  app.get<{ Params: { kind: DrawnKind; file: string } }>(
    '/artwork/:kind/:file',
    { schema: { hide: true, params: ArtworkParams } },
    async (request, reply) => {
      const { kind, file } = request.params;
      const id = file.slice(0, -'.svg'.length);
      const drawing = DRAWINGS[kind];
      const notFound = () => drawing.notFound === 'routeNotFound'
        ? new ApiError('routeNotFound', { params: { method: request.method, path: request.url.split('?')[0]! } })
        : new ApiError(drawing.notFound, { params: { id } });
      const item = await repo.artworkName(drawing.item, id);
      if (item === undefined) throw notFound();
      if (file.endsWith('.jpg')) {
        // Only an album may have a kept image (`maqam media scan`); every other picture is drawn.
        const cover = kind === 'albums' ? await readFile(coverFile(id)).catch(() => undefined) : undefined;
        if (cover === undefined) throw notFound();
        return sendImage(request, reply, cover, 'image/jpeg');
      }
      reply.header('content-security-policy', SVG_POLICY);
      return sendImage(request, reply, drawing.draw(id, item, nameOf(item, id)), 'image/svg+xml; charset=utf-8');
    },
  );
}
