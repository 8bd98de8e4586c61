import type { FastifyInstance } from 'fastify';
import { boundedJsonParser } from './json-body.ts';
import { batchValidatorCompiler } from './validation.ts';

/**
 * Sets a scope (a Fastify plugin's) to read Batch* bodies from their bytes:
 * its JSON parser first offers a Batch* route's body to the route's reader
 * (batch-body.ts), which reads the plain form's ids straight from the
 * bytes, and its validator passes what the reader took. A body the reader
 * does not take is parsed and validated as everywhere else, within the
 * same bounds (json-body.ts). Encapsulation keeps both in the scope: other
 * scopes parse JSON with the app's parser. The music and video catalogs'
 * scopes call it.
 */
export function readBatchBodies(scope: FastifyInstance): void {
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
}
