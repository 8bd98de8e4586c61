import type { FastifyBodyParser, FastifyInstance } from 'fastify';
import { invalidRequest, type Violation } from '../errors.ts';

/**
 * JSON request bodies, bounded by the declared limits before anything is
 * done in proportion to them (contract section 8). Two limits, checked as
 * the body is parsed, so that nothing after (the proto3 JSON renaming,
 * validation, the Idempotency-Key fingerprint, a handler) ever walks more:
 *
 * - depth: a body nested deeper than MAX_BODY_DEPTH is a 400 naming `body`,
 *   found in one pass over the text before JSON.parse builds it;
 * - list sizes: a list past its schema's `maxItems` is a 400 naming the
 *   list, one violation, found before anything looks at its elements.
 *
 * Before issue 51, a list of 128,000 numbers where a hundred ids go was
 * validated element by element (a minute, then a 500), and a member nested
 * 10,000 deep overflowed the stack of the Idempotency-Key fingerprint.
 */

/** No request shape nests a tenth as deep; what walks a parsed body may rely on it, recursively or not. */
export const MAX_BODY_DEPTH = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_LIST = 0x5b;
const CLOSE_LIST = 0x5d;

/**
 * Whether a JSON text opens more than `limit` arrays and objects inside one
 * another: one pass over its characters, with a counter and no recursion,
 * that stops at the first one too deep. Brackets inside strings do not count
 * (a backslash escapes the character after it, so `"\""` stays one string).
 * Text that is not JSON gets an answer too; JSON.parse refuses it after.
 */
export function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let at = 0; at < text.length; at++) {
    const c = text.charCodeAt(at);
    if (inString) {
      if (c === BACKSLASH) at++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) {
      inString = true;
    } else if (c === OPEN_OBJECT || c === OPEN_LIST) {
      if (++depth > limit) return true;
    } else if (c === CLOSE_OBJECT || c === CLOSE_LIST) {
      depth--;
    }
  }
  return false;
}

/**
 * What of a body schema declares list sizes: each `maxItems`, and the
 * members, items and unions that lead to one; nothing else.
 */
interface Sizes {
  readonly maxItems?: number;
  readonly items?: Sizes;
  /** Declared name, the other proto3 JSON spelling the routes rename to it, and the member's sizes. */
  readonly members?: readonly (readonly [name: string, alias: string, sizes: Sizes])[];
  /** Each must hold (allOf). */
  readonly all?: readonly Sizes[];
  /** One of them must hold (anyOf, oneOf). */
  readonly any?: readonly Sizes[];
}

/**
 * A member's other spelling in the proto3 JSON mapping: `songIdList` and
 * `song_id_list`, `grant_type` and `grantType`. The routes rename one to the
 * other after parsing (proto-json.ts, oauth-http.ts), so a list is bounded
 * under either name.
 */
function protoJsonAlias(name: string): string {
  return name.includes('_')
    ? name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase())
    : name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

function sizesOf(schema: unknown): Sizes | undefined {
  if (schema === null || typeof schema !== 'object') return undefined;
  const node = schema as Record<string, unknown>;
  const sizes: { -readonly [K in keyof Sizes]: Sizes[K] } = {};
  if (typeof node.maxItems === 'number') sizes.maxItems = node.maxItems;
  const items = Array.isArray(node.items) ? undefined : sizesOf(node.items);
  if (items !== undefined) sizes.items = items;
  if (node.properties !== null && typeof node.properties === 'object') {
    const members = Object.entries(node.properties).flatMap(([name, member]) => {
      const bound = sizesOf(member);
      return bound === undefined ? [] : [[name, protoJsonAlias(name), bound] as const];
    });
    if (members.length > 0) sizes.members = members;
  }
  if (Array.isArray(node.allOf)) {
    const all = node.allOf.map(sizesOf).filter((bound) => bound !== undefined);
    if (all.length > 0) sizes.all = all;
  }
  // A union bounds a value only where each of its branches does: a branch without sizes lets anything through.
  const branches = [node.anyOf, node.oneOf].flatMap((union) => (Array.isArray(union) ? [union.map(sizesOf)] : []));
  const bounded = branches.filter((union) => union.length > 0 && union.every((bound) => bound !== undefined)) as Sizes[][];
  if (bounded.length > 0) sizes.all = [...(sizes.all ?? []), ...bounded.map((any) => ({ any }))];
  return Object.keys(sizes).length > 0 ? sizes : undefined;
}

/** `['plays', 3, 'tags']` -> `plays[3].tags` (contract section 1). */
function fieldPath(path: readonly (string | number)[]): string {
  return path.map((step, i) => (typeof step === 'number' ? `[${step}]` : i === 0 ? step : `.${step}`)).join('') || 'body';
}

/**
 * The first list of `value` past its declared size, as a violation naming
 * it as the schema does. Walks the declared members only, and a list's
 * elements only once the list's own size has held: bounded by the declared
 * sizes, whatever the body holds. Recursive over the schema, whose depth is
 * ours; the body's depth is already bounded.
 */
function pastItsSize(sizes: Sizes, value: unknown, path: (string | number)[]): Violation | undefined {
  if (Array.isArray(value)) {
    if (sizes.maxItems !== undefined && value.length > sizes.maxItems) return { field: fieldPath(path), reason: 'maxItems', params: { limit: sizes.maxItems } };
    if (sizes.items !== undefined) {
      for (let i = 0; i < value.length; i++) {
        path.push(i);
        const past = pastItsSize(sizes.items, value[i], path);
        path.pop();
        if (past !== undefined) return past;
      }
    }
  } else if (sizes.members !== undefined && value !== null && typeof value === 'object') {
    const object = value as Record<string, unknown>;
    for (const [name, alias, member] of sizes.members) {
      for (const spelling of alias === name ? [name] : [name, alias]) {
        if (!Object.hasOwn(object, spelling)) continue;
        path.push(name);
        const past = pastItsSize(member, object[spelling], path);
        path.pop();
        if (past !== undefined) return past;
      }
    }
  }
  for (const each of sizes.all ?? []) {
    const past = pastItsSize(each, value, path);
    if (past !== undefined) return past;
  }
  if (sizes.any !== undefined) {
    let first: Violation | undefined;
    for (const branch of sizes.any) {
      const past = pastItsSize(branch, value, path);
      if (past === undefined) return undefined;
      first ??= past;
    }
    return first;
  }
  return undefined;
}

/** Each route's body schema's sizes, worked out at its first body; null where it declares none. */
const sizesBySchema = new WeakMap<object, Sizes | null>();

function declaredSizes(schema: unknown): Sizes | undefined {
  if (schema === null || typeof schema !== 'object') return undefined;
  let sizes = sizesBySchema.get(schema);
  if (sizes === undefined) {
    sizes = sizesOf(schema) ?? null;
    sizesBySchema.set(schema, sizes);
  }
  return sizes ?? undefined;
}

/**
 * Fastify's JSON parser (prototype-poisoning checks and its errors as they
 * are) between the two bounds: the depth before JSON.parse (a megabyte of
 * `[` took JSON.parse 55 to 130 ms here, the check stops at the 65th), the
 * route's list sizes right after it. A scope that parses JSON its own way
 * (the catalog's Batch* reader) falls back to this one.
 */
export function boundedJsonParser(parseJson: FastifyBodyParser<string>): FastifyBodyParser<string> {
  return (request, body, done) => {
    if (nestsDeeperThan(body, MAX_BODY_DEPTH)) {
      done(invalidRequest({ field: 'body', reason: 'tooDeep', params: { limit: MAX_BODY_DEPTH } }), undefined);
      return;
    }
    parseJson(request, body, (error, value) => {
      const sizes = error ? undefined : declaredSizes(request.routeOptions.schema?.body);
      const past = sizes && pastItsSize(sizes, value, []);
      if (past !== undefined) done(invalidRequest(past), undefined);
      else done(error, value);
    });
  };
}

/** Refuses bytes that are not UTF-8, where decoding as Fastify does would put U+FFFD in their place without a word. */
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * The app's JSON bodies, in every scope that does not parse JSON its own way:
 * Fastify's parser, bounded, on text that is UTF-8 (RFC 8259 section 8.1): a
 * body that is not is a 400 naming `body`, not a name stored with U+FFFD in
 * it (issue 51). The catalog's Batch* reader keeps its own decoding: it only
 * reads ids, and an id that is not UTF-8 is an unknown id.
 */
export function parseJsonBodies(app: FastifyInstance): void {
  const parseJson = boundedJsonParser(app.getDefaultJsonParser('error', 'error'));
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    let text: string;
    try {
      text = UTF8.decode(body as Buffer);
    } catch {
      done(invalidRequest({ field: 'body', reason: 'bodyNotUtf8' }), undefined);
      return;
    }
    parseJson(request, text, done);
  });
}
