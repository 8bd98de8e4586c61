import type { FastifyInstance } from 'fastify';
import { boundedJsonParser } from '../http/json-body.ts';
import { batchValidatorCompiler } from '../http/validation.ts';
import { albumsRoutes } from './albums.routes.ts';
import { artistsRoutes } from './artists.routes.ts';
import { songsRoutes, type CatalogRouteDeps } from './songs.routes.ts';

/**
 * The catalog's routes, in a scope of their own (a Fastify plugin): its
 * JSON parser first offers a Batch* route's body to the route's reader
 * (http/batch-body.ts), which reads the plain form's ids straight from the
 * bytes, and its validator passes what the reader took. A body the reader
 * does not take is parsed and validated as everywhere else, within the
 * same bounds (http/json-body.ts). Encapsulation keeps both here: other
 * scopes parse JSON with the app's parser.
 */
export async function catalogRoutes(scope: FastifyInstance, deps: CatalogRouteDeps): Promise<void> {
  const parseJson = boundedJsonParser(scope.getDefaultJsonParser('error', 'error'));
  scope.removeContentTypeParser('application/json');
  // Bytes, not a string: the reader reads bytes; JSON.parse's path decodes them as UTF-8 as Fastify does
  // (invalid sequences become U+FFFD either way).
  scope.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    const ids = request.routeOptions.config.readBatchIds?.(body as Buffer);
    if (ids !== undefined) done(null, ids);
    else parseJson(request, (body as Buffer).toString('utf8'), done);
  });
  scope.setValidatorCompiler(batchValidatorCompiler);
  songsRoutes(scope, deps);
  artistsRoutes(scope, deps);
  albumsRoutes(scope, deps);
}
