import type { FastifyInstance } from 'fastify';
import { readBatchBodies } from '../http/batch-scope.ts';
import { albumsRoutes } from './albums.routes.ts';
import { artistsRoutes } from './artists.routes.ts';
import { songsRoutes, type CatalogRouteDeps } from './songs.routes.ts';

/** The music catalog's routes, in a scope that reads Batch* bodies from their bytes (http/batch-scope.ts). */
export async function catalogRoutes(scope: FastifyInstance, deps: CatalogRouteDeps): Promise<void> {
  readBatchBodies(scope);
  songsRoutes(scope, deps);
  artistsRoutes(scope, deps);
  albumsRoutes(scope, deps);
}
