import { WITHOUT_NUL } from '@maqam/contract';

/**
 * Batch* bodies read straight from their bytes.
 *
 * A BatchGetSongs request is a hundred `{"value":"<id>"}` items. Parsed as
 * JSON, validated by the schema and renamed for proto3 JSON, it cost about a
 * sixth of the server's time on a request whose ids were all cached (perf,
 * bench/batch-get): the parser's objects and strings, ajv walking them, the
 * renaming walking them again. Nearly every client sends the plain form, so
 * that form is read here in one pass over the bytes, and only the ids
 * become strings.
 *
 * The reader only ever says yes to a body the schema accepts, and reads the
 * same ids from it that JSON.parse would: one object whose only member is
 * the list (by its name or its proto3 snake_case alias), of minItems to
 * maxItems objects whose only member is `value`, a string of printable
 * ASCII without escapes (so its text is its characters) whose length the
 * schema allows. Anything else (escapes, other characters, other or
 * repeated members, a list the schema refuses) is not read here: it takes
 * the general path (JSON.parse, ajv, the renaming), which answers it or
 * explains what is wrong, as before. The limits come from the route's
 * schema; a schema with a constraint the reader does not know refuses to
 * build one (at start-up), rather than let it accept what the schema would
 * refuse.
 */

/** A Batch* body the reader accepted: its ids, as the schema-validated body would name them. */
export class BatchIds {
  readonly ids: string[];

  constructor(ids: string[]) {
    this.ids = ids;
  }
}

/** Reads a body's bytes; undefined when the body is not in the plain form, or the schema would refuse it. */
export type BatchBodyReader = (body: Buffer) => BatchIds | undefined;

interface ListSchema {
  readonly type?: unknown;
  readonly properties?: Record<string, ItemListSchema>;
  readonly required?: readonly string[];
}
interface ItemListSchema {
  readonly type?: unknown;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly items?: ListSchema & { readonly properties?: Record<string, IdSchema> };
}
interface IdSchema {
  readonly type?: unknown;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly pattern?: string;
}

/** The keywords of each schema level the reader enforces; a schema with any other refuses a reader. */
const KNOWN = {
  body: ['type', 'properties', 'required', 'title', 'description'],
  list: ['type', 'minItems', 'maxItems', 'items', 'description'],
  item: ['type', 'properties', 'required', 'title', 'description'],
  id: ['type', 'minLength', 'maxLength', 'pattern', 'description'],
};

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_LIST = 0x5b;
const CLOSE_LIST = 0x5d;
const VALUE = '"value"';

function only(level: keyof typeof KNOWN, schema: object): void {
  // TypeBox marks its schemas with symbol keys, which Object.keys leaves out.
  const unknown = Object.keys(schema).filter((key) => !KNOWN[level].includes(key));
  if (unknown.length > 0) throw new Error(`batch body reader: the ${level} schema has ${unknown.join(', ')}, which the reader does not enforce`);
}

/** `songIdList` → `song_id_list`: the proto3 JSON name the renaming (proto-json.ts) accepts for it. */
function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

/** A reader of the plain form of a body of `schema`: `{"<list>":[{"value":"<id>"},...]}`. */
export function batchBodyReader(schema: object): BatchBodyReader {
  const body = schema as ListSchema;
  only('body', body);
  const names = Object.keys(body.properties ?? {});
  if (body.type !== 'object' || names.length !== 1) throw new Error('batch body reader: the body is not an object of one list');
  const member = names[0]!;
  const list = body.properties![member]!;
  only('list', list);
  const item = list.items;
  if (list.type !== 'array' || item === undefined) throw new Error('batch body reader: the member is not a list');
  only('item', item);
  if (item.type !== 'object' || Object.keys(item.properties ?? {}).join() !== 'value') throw new Error('batch body reader: an item is not {value}');
  // A required member the reader does not require would let it accept what the schema refuses.
  if (!(body.required ?? []).every((name) => name === member) || !(item.required ?? []).every((name) => name === 'value')) {
    throw new Error('batch body reader: the schema requires members the reader does not');
  }
  const id = item.properties!.value!;
  only('id', id);
  // Printable ASCII holds no NUL: the only pattern the reader can vouch for.
  if (id.type !== 'string' || (id.pattern !== undefined && id.pattern !== WITHOUT_NUL)) throw new Error('batch body reader: an id is not a string without NUL');

  const minItems = list.minItems ?? 0;
  const maxItems = list.maxItems ?? Infinity;
  const minLength = id.minLength ?? 0;
  const maxLength = id.maxLength ?? Infinity;
  const camel = `"${member}"`;
  const snake = `"${snakeCase(member)}"`;

  // One pass over the bytes with the position in a local: no closures over it, no calls out of JavaScript. Bytes,
  // not the characters of a string: a hundred-id body of the Zipf stream took 5.9 us against 8.6 with charCodeAt
  // (bench/batch-get/body-reader.ts). The ids are sliced from the body decoded as Latin-1, where each byte is one character:
  // every byte the reader accepts is printable ASCII, which UTF-8 decodes to the same characters, and any byte
  // above 0x7e (all of UTF-8 beyond ASCII, a byte order mark included) is refused, so the ids are what JSON.parse
  // would read from the UTF-8 text.
  return (body) => {
    const text = body.toString('latin1');
    const end = body.length;
    let at = skipSpace(body, 0);
    if (body[at] !== OPEN_OBJECT) return undefined;
    at = skipSpace(body, at + 1);
    if (text.startsWith(camel, at)) at += camel.length;
    else if (text.startsWith(snake, at)) at += snake.length;
    else return undefined;
    at = skipSpace(body, at);
    if (body[at] !== COLON) return undefined;
    at = skipSpace(body, at + 1);
    if (body[at] !== OPEN_LIST) return undefined;
    const ids: string[] = [];
    for (;;) {
      at = skipSpace(body, at + 1);
      if (body[at] !== OPEN_OBJECT) return undefined;
      at = skipSpace(body, at + 1);
      // `"value"`, compared byte by byte in place (a helper with a loop was slower).
      if (at + VALUE.length > end || body[at] !== QUOTE || body[at + 1] !== 0x76 || body[at + 2] !== 0x61 || body[at + 3] !== 0x6c
        || body[at + 4] !== 0x75 || body[at + 5] !== 0x65 || body[at + 6] !== QUOTE) return undefined;
      at = skipSpace(body, at + VALUE.length);
      if (body[at] !== COLON) return undefined;
      at = skipSpace(body, at + 1);
      if (body[at] !== QUOTE) return undefined;
      const start = ++at;
      // Printable ASCII but the quote and the backslash, up to the closing quote.
      for (;;) {
        if (at === end) return undefined;
        const c = body[at]!;
        if (c === QUOTE) break;
        if (c < 0x20 || c > 0x7e || c === BACKSLASH) return undefined;
        at++;
      }
      const length = at - start;
      if (length < minLength || length > maxLength || ids.length === maxItems) return undefined;
      ids.push(text.slice(start, at));
      at = skipSpace(body, at + 1);
      if (body[at] !== CLOSE_OBJECT) return undefined;
      at = skipSpace(body, at + 1);
      const next = body[at];
      if (next === CLOSE_LIST) break;
      if (next !== COMMA) return undefined;
    }
    at = skipSpace(body, at + 1);
    if (body[at] !== CLOSE_OBJECT) return undefined;
    return skipSpace(body, at + 1) === end && ids.length >= minItems ? new BatchIds(ids) : undefined;
  };
}

/**
 * The position of the first byte at or after `at` that is not JSON
 * whitespace (space, tab, line feed, carriage return), or the body's length.
 * Nothing here reads past the end: a read out of range answers undefined,
 * and comparisons that may meet it made the whole reader slower (with
 * `charCodeAt`, which answers NaN there: 8.8 against 6.7 us a body of a
 * hundred ids, on their own).
 */
function skipSpace(body: Buffer, at: number): number {
  while (at < body.length) {
    const c = body[at]!;
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return at;
    at++;
  }
  return at;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A Batch* route's reader of its body's plain form, tried before JSON.parse (catalog/catalog.routes.ts). */
    readBatchIds?: BatchBodyReader;
  }
}

/**
 * What a Batch* route at `pattern` (Fastify's, "::" escaping the colon)
 * adds to its config: its body read from its bytes when it can be (by the
 * catalog scope's JSON parser, catalog/catalog.routes.ts).
 */
export function batchBody(pattern: string, schema: object) {
  return { pattern, config: { readBatchIds: batchBodyReader(schema) } };
}

/** The ids of a validated Batch* body, whichever way it was read. */
export function batchIdsOf(body: unknown, member: string): string[] {
  return body instanceof BatchIds ? body.ids : (body as Record<string, { value: string }[]>)[member]!.map((id) => id.value);
}
