/**
 * Finishes the OpenAPI document @fastify/swagger generates from the route
 * schemas, so that generators and readers get what a hand-written document
 * would give them:
 *
 * - every schema with a `title` (the contract's TypeBox schemas: Song,
 *   LocalizedString, Error...) becomes a named component referenced by
 *   `$ref`, so generators produce named types instead of anonymous shapes;
 * - `Accept-Language` is declared on every operation;
 * - responses say what they are, and declare the headers the server sends
 *   (`x-request-id`, `Content-Language`, the rate-limit headers,
 *   `Retry-After`).
 *
 * The route schemas stay the single source of validation and types; this
 * only reshapes their rendering.
 */

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const isObject = (value: Json | undefined): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

/** JSON with keys in order, to compare schemas whatever order their keys were written in. */
function canonical(value: Json): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (isObject(value)) return `{${Object.keys(value).sort().map((key) => `${JSON.stringify(key)}:${canonical(value[key]!)}`).join(',')}}`;
  return JSON.stringify(value);
}

/**
 * Replaces every titled schema under `node` (deepest first) by a `$ref` to
 * `components.schemas[title]`. A description written on one use of a schema
 * stays beside the `$ref` (OpenAPI 3.1 allows it). Two different schemas
 * with one title keep the second inline rather than guess.
 */
function hoistNamedSchemas(node: Json, schemas: JsonObject): Json {
  if (Array.isArray(node)) return node.map((item) => hoistNamedSchemas(item, schemas));
  if (!isObject(node)) return node;
  const copy: JsonObject = {};
  for (const [key, value] of Object.entries(node)) copy[key] = hoistNamedSchemas(value, schemas);
  const title = copy.title;
  const isSchema = 'type' in copy || 'anyOf' in copy || 'oneOf' in copy || 'enum' in copy || 'const' in copy;
  if (typeof title !== 'string' || !isSchema || !/^[A-Za-z0-9._-]+$/.test(title)) return copy;
  const { description, ...shape } = copy;
  const known = schemas[title];
  if (known === undefined) {
    schemas[title] = shape;
  } else if (canonical(known) !== canonical(shape)) {
    return copy;
  }
  return { $ref: `#/components/schemas/${title}`, ...(description !== undefined && { description }) };
}

const HEADERS: JsonObject = {
  RequestId: {
    description: 'Identifies the request in the server\'s logs: quote it when reporting a problem. Echoes a well-formed `x-request-id` sent by the client.',
    schema: { type: 'string' },
  },
  ContentLanguage: {
    description: 'The languages the answer\'s texts were looked up in, in order: those of `Accept-Language` the catalog has, then the server\'s default (`fr, ar` when French is asked for: an item without French is served in Arabic). An error names the language of its message.',
    schema: { type: 'string', examples: ['ar', 'en, ar'] },
  },
  RateLimitLimit: { description: 'Calls allowed per minute for this credential (when rate limiting is on).', schema: { type: 'integer' } },
  RateLimitRemaining: { description: 'Calls left in the current window.', schema: { type: 'integer' } },
  RateLimitReset: { description: 'Seconds until the window resets.', schema: { type: 'integer' } },
  RetryAfter: { description: 'Seconds to wait before trying again.', schema: { type: 'integer' } },
};

const ref = (kind: 'headers' | 'parameters', name: string): JsonObject => ({ $ref: `#/components/${kind}/${name}` });

const ACCEPT_LANGUAGE: JsonObject = {
  name: 'Accept-Language',
  in: 'header',
  required: false,
  description: 'Preferred languages (RFC 9110 q-values, RFC 4647 lookup), e.g. `ar, en;q=0.8`. Texts resolve to the best language the item has; error messages are in Arabic or English. A malformed header is a 400 naming `Accept-Language`.',
  schema: { type: 'string', examples: ['ar', 'en-GB, ar;q=0.5'] },
};

/** What each status means, when the route says no more. */
function describe(status: string, operation: JsonObject): string {
  const summary = typeof operation.summary === 'string' ? operation.summary : '';
  switch (status) {
    case '200':
      // "Returns one song." reads as the answer: "One song."
      return summary.startsWith('Returns ') ? `${summary[8]!.toUpperCase()}${summary.slice(9)}` : `Success: ${summary.charAt(0).toLowerCase()}${summary.slice(1)}`;
    case '400':
      return 'The request is invalid: the body names each field and why (`code` is `INVALID_ARGUMENT`, or an OAuth error on the token endpoints).';
    case '401':
      return 'The credential, code or token is missing, unknown, expired or revoked.';
    case '4XX':
      return 'Refused: no or a refused credential (401), not permitted (403), not found (404), wrong method (405), body too large (413), or too many calls (429, with `Retry-After`). The body is an Error.';
    case '5XX':
      return 'The server failed (500) or cannot reach its database (503, with `Retry-After`). The body is an Error; nothing was half-written.';
    default:
      return `HTTP ${status}.`;
  }
}

/** Every answer carries its request id and language; calls are counted per credential or, on the token endpoints, per address. */
function headersFor(status: string): JsonObject {
  const headers: JsonObject = {
    'x-request-id': ref('headers', 'RequestId'),
    'Content-Language': ref('headers', 'ContentLanguage'),
    'x-ratelimit-limit': ref('headers', 'RateLimitLimit'),
    'x-ratelimit-remaining': ref('headers', 'RateLimitRemaining'),
    'x-ratelimit-reset': ref('headers', 'RateLimitReset'),
  };
  if (status === '4XX' || status === '5XX') headers['Retry-After'] = ref('headers', 'RetryAfter');
  return headers;
}

export function completeOpenApiDocument(document: JsonObject): JsonObject {
  const components: JsonObject = isObject(document.components) ? { ...document.components } : {};
  const schemas: JsonObject = isObject(components.schemas) ? { ...components.schemas } : {};
  const paths = hoistNamedSchemas(document.paths ?? {}, schemas) as JsonObject;

  for (const methods of Object.values(paths)) {
    if (!isObject(methods)) continue;
    for (const operation of Object.values(methods)) {
      if (!isObject(operation)) continue;
      const parameters = Array.isArray(operation.parameters) ? operation.parameters : [];
      operation.parameters = [...parameters.filter((p) => !(isObject(p) && p.name === 'Accept-Language')), ref('parameters', 'AcceptLanguage')];
      if (!isObject(operation.responses)) continue;
      for (const [status, response] of Object.entries(operation.responses)) {
        if (!isObject(response)) continue;
        if (response.description === undefined || response.description === 'Default Response') response.description = describe(status, operation);
        response.headers = { ...(isObject(response.headers) ? response.headers : {}), ...headersFor(status) };
      }
    }
  }

  components.schemas = Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => a.localeCompare(b)));
  components.headers = HEADERS;
  components.parameters = { AcceptLanguage: ACCEPT_LANGUAGE };
  return { ...document, paths, components };
}
