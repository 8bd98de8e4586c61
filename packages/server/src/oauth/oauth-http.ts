import type { FastifyInstance } from 'fastify';
import { invalidRequest } from '../errors.ts';

// What the OAuth routes share about HTTP: form bodies (the sign-in page, and RFC 6749 clients), the
// proto3 JSON names of their bodies, and answers that are never cached.

/** Headers of every token answer and OAuth redirect: never cached (RFC 6749 §5.1). */
export const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' };

/** Parses form bodies in this plugin's scope only (as URLSearchParams, so repeated fields stay visible); the catalog stays JSON-only. */
export function addFormParser(app: FastifyInstance): void {
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
    done(null, new URLSearchParams(body as string));
  });
}

export /** A form body as URLSearchParams, so repeated fields stay visible. */
function formParams(body: unknown): URLSearchParams {
  return body instanceof URLSearchParams ? body : new URLSearchParams();
}

/**
 * The proto3 JSON mapping for the auth bodies, whose canonical names are
 * snake_case: lowerCamelCase members are renamed (clientId -> client_id); a
 * member given both ways with different values is a 400.
 */
export function snakeCaseBody(body: unknown): Record<string, unknown> {
  if (body instanceof URLSearchParams) {
    const object: Record<string, unknown> = {};
    for (const name of new Set(body.keys())) {
      const values = body.getAll(name);
      object[name] = values.length === 1 ? values[0] : values; // repeated: fails validation, naming the field
    }
    body = object;
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return body as Record<string, unknown>;
  const result: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    const snake = key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
    if (snake in result && result[snake] !== value) throw invalidRequest({ field: snake, reason: 'duplicateField', params: { other: key } });
    result[snake] = value;
  }
  return result;
}
