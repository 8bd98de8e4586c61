import { readFile } from 'node:fs/promises';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { MAX_ID_LENGTH } from '@maqam/contract';
import { ApiError } from '../errors.ts';
import { contentEtag } from '../http/etag.ts';
import { artworkSvg } from './artwork.ts';
import type { CatalogRepo } from './catalog.repo.ts';

const ArtworkParams = Type.Object({
  kind: Type.Union([Type.Literal('artists'), Type.Literal('albums')]),
  // `<id>.svg` (drawn) or `<id>.jpg` (a cover kept by `maqam media scan`); the id may hold any character but NUL.
  file: Type.String({ pattern: '^[^\\u0000]+\\.(svg|jpg)$', maxLength: MAX_ID_LENGTH + 4 }),
});

/**
 * GET /artwork/{artists|albums}/{id}.svg: the drawn cover or portrait of an
 * item. Public like any image on a CDN (an <img> cannot send credentials),
 * and cacheable: the picture changes only with the item's name.
 * `coverFile`: where an album's cover image is, when the media scan extracted
 * one (streaming/media-scan.ts owns that layout); else its artwork is drawn.
 */
export function artworkRoutes(app: FastifyInstance, repo: CatalogRepo, coverFile: (albumId: string) => string): void {
  app.get<{ Params: { kind: 'artists' | 'albums'; file: string } }>(
    '/artwork/:kind/:file',
    { schema: { hide: true, params: ArtworkParams } },
    async (request, reply) => {
      const { kind, file } = request.params;
      const id = file.slice(0, -'.svg'.length);
      const item = await repo.artworkName(kind, id);
      if (item === undefined) throw new ApiError(kind === 'artists' ? 'artistNotFound' : 'albumNotFound', { params: { id } });
      const send = (body: Buffer | string, contentType: string) => {
        const etag = contentEtag(body);
        reply.header('content-type', contentType).header('cache-control', 'public, max-age=86400').header('etag', etag);
        return request.headers['if-none-match'] === etag ? reply.code(304).send() : reply.send(body);
      };
      if (file.endsWith('.jpg')) {
        const cover = kind === 'albums' ? await readFile(coverFile(id)).catch(() => undefined) : undefined;
        if (cover === undefined) throw new ApiError('albumNotFound', { params: { id } });
        return send(cover, 'image/jpeg');
      }
      const texts = JSON.parse(item.texts) as Record<string, string>;
      // An SVG opened on its own is a document: it may not run script or load anything.
      reply.header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'");
      return send(artworkSvg(kind, id, texts[item.original_language] ?? Object.values(texts)[0] ?? id), 'image/svg+xml; charset=utf-8');
    },
  );
}
