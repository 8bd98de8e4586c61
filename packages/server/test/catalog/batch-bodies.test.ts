import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seededRandom } from '@maqam/server';
import { dialects } from '../dialects.ts';
import { fixtureRecords } from '../fixtures.ts';
import { startTestServer, type TestServer } from '../harness.ts';

/**
 * Batch* routes read the plain form of their body straight from its bytes
 * (http/batch-body.ts) and send every other form through JSON.parse and the
 * schema. Whichever way a body goes, its answer must be what the general
 * path answers. A UTF-8 byte order mark in front makes the reader decline
 * and changes nothing else (the JSON parser drops it), so each body is sent
 * as is and behind a mark, and the two answers compared byte for byte: for
 * plain bodies, their variants the reader must refuse (escapes, other
 * members, lists and ids the schema refuses), and thousands of random edits.
 * (An empty body is left out: behind a mark it is no longer empty.)
 *
 * They go over a socket, as a client's would.
 */

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

const ROUTES = [
  { url: '/v1/music/songs:batchGet', member: 'songIdList', kind: 'song' },
  { url: '/v1/music/albums:batchGet', member: 'albumIdList', kind: 'album' },
  { url: '/v1/music/artists:batchGet', member: 'artistIdList', kind: 'artist' },
] as const;

const snake = (name: string) => name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

/** Bodies the reader may read, and near misses it must leave to the general path. */
function handWritten(member: string, ids: readonly string[]): string[] {
  const items = (list: readonly string[]) => list.map((value) => ({ value }));
  const plain = (list: readonly string[], name = member) => JSON.stringify({ [name]: items(list) });
  const many = (n: number) => Array.from({ length: n }, (_, i) => ids[i % ids.length]!);
  return [
    plain(ids),
    plain(ids, snake(member)),
    JSON.stringify({ [member]: items(ids) }, null, 2),
    ` \t\r\n${JSON.stringify({ [member]: items(ids) }, null, '\t')}\n\n`,
    plain([...ids, ...ids]),
    plain(many(1)),
    plain(many(100)),
    plain(many(101)),
    plain([]),
    plain(['']),
    plain(['a'.repeat(128)]),
    plain(['a'.repeat(129)]),
    plain(['é'.repeat(128)]),
    plain(['é'.repeat(129)]),
    plain(['song-\u0000']),
    plain(['song-"quoted"', 'back\\slash', 'tab\there', '~', ' ']),
    plain(['أغنية', ...ids]),
    plain(ids).replace('-', '\\u002d'),
    plain(ids).replace(`"${member}"`, `"${member.slice(0, 2)}\\u00${member.charCodeAt(2).toString(16)}${member.slice(3)}"`),
    JSON.stringify({ [member]: items(ids), [snake(member)]: items(ids) }),
    JSON.stringify({ [member]: items(ids), other: 1 }),
    JSON.stringify({ other: 1, [member]: items(ids) }),
    `{"${member}":${JSON.stringify(items(ids))},"${member}":${JSON.stringify(items(ids.slice(0, 1)))}}`,
    `{"${member}":[{"value":"${ids[0]}","value":"${ids[1] ?? 'x'}"}]}`,
    JSON.stringify({ [member]: ids.map((value) => ({ value, extra: true })) }),
    JSON.stringify({ [member]: ids }),
    JSON.stringify({ [member]: [{ value: 7 }] }),
    JSON.stringify({ [member]: [{ value: null }] }),
    JSON.stringify({ [member]: [{}] }),
    JSON.stringify({ [member]: {} }),
    JSON.stringify({ [member]: null }),
    JSON.stringify({}),
    JSON.stringify([{ [member]: items(ids) }]),
    '"text"',
    ' ',
    `${plain(ids)} x`,
    `${plain(ids)}${plain(ids)}`,
    plain(ids).slice(0, -1),
    plain(ids).slice(0, -2),
    `{"__proto__":{"x":1},"${member}":[{"value":"${ids[0]}"}]}`,
    `{"${member}":[{"value":"${ids[0]}"},]}`,
    `{"${member}":[{"value":"${ids[0]}"} {"value":"${ids[0]}"}]}`,
    `{"${member}" : [ { "value" : "${ids[0]}" } , { "value" : "${ids[1] ?? 'x'}" } ] }`,
  ];
}

/** One to three random edits of a plain body: a byte deleted, inserted or replaced, a cut, a piece repeated. */
function edited(body: string, random: () => number): Buffer {
  const pieces = ['"', '\\', '{', '}', '[', ']', ',', ':', ' ', '\n', 'x', '-', '0', 'é', '\u0000', '\\u0000', '\\"', 'value', '"value":', 'null'];
  let bytes = Buffer.from(body);
  const edits = 1 + Math.floor(random() * 3);
  for (let e = 0; e < edits; e++) {
    const at = Math.floor(random() * (bytes.length + 1));
    const piece = Buffer.from(pieces[Math.floor(random() * pieces.length)]!);
    switch (Math.floor(random() * 5)) {
      case 0: bytes = Buffer.concat([bytes.subarray(0, at), bytes.subarray(at + 1)]); break;
      case 1: bytes = Buffer.concat([bytes.subarray(0, at), piece, bytes.subarray(at)]); break;
      case 2: bytes = Buffer.concat([bytes.subarray(0, at), piece, bytes.subarray(at + piece.length)]); break;
      case 3: bytes = bytes.subarray(0, at); break;
      default: {
        const length = Math.floor(random() * 20);
        bytes = Buffer.concat([bytes.subarray(0, at), bytes.subarray(at, at + length), bytes.subarray(at)]);
      }
    }
  }
  // A byte that is not UTF-8 now and then.
  return random() < 0.05 ? Buffer.concat([bytes, Buffer.from([0xff])]) : bytes;
}

describe('Batch* bodies read from their bytes', () => {
  let server: TestServer;
  let base: string;
  beforeAll(async () => {
    server = await startTestServer(dialects[0]!, { MAQAM_RATE_LIMIT: '0' });
    base = await server.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => server?.close());

  /** Status, Content-Language and body; an error's request id is each request's own. */
  async function answer(url: string, payload: Buffer, locale: string) {
    const res = await fetch(`${base}${url}`, {
      method: 'POST',
      body: new Uint8Array(payload),
      headers: { 'content-type': 'application/json', 'accept-language': locale, 'x-api-key': server.apiKey },
    });
    const body = await res.text();
    return { status: res.status, language: res.headers.get('content-language') ?? undefined, body: body.replace(/"requestId":"[^"]*"/, '"requestId":"(its own)"') };
  }

  it.each(ROUTES)('answers $url as the general path does, for every form of body', async ({ url, member, kind }) => {
    const known = fixtureRecords().flatMap((record) => (record.kind === kind ? [record.id] : []));
    const ids = [...known.slice(0, 4), `${kind}-missing`];
    const random = seededRandom(kind.length * 1000 + 5).next;
    const bodies: Buffer[] = handWritten(member, ids).map((body) => Buffer.from(body));
    const base = handWritten(member, ids).slice(0, 7);
    for (let n = 0; n < 1500; n++) bodies.push(edited(base[n % base.length]!, random));

    let ok = 0;
    let refused = 0;
    // An empty body is no JSON at all; behind a mark it would be a mark (and the reader wants a `{`).
    for (const [n, body] of bodies.filter((bytes) => bytes.length > 0).entries()) {
      const locale = n % 2 === 0 ? 'ar' : 'en';
      const [read, parsed] = await Promise.all([answer(url, body, locale), answer(url, Buffer.concat([BOM, body]), locale)]);
      expect(read, body.toString('utf8')).toEqual(parsed);
      if (read.status === 200) ok++;
      else refused++;
    }
    // The corpus exercises both outcomes: answers, and refusals.
    expect(ok).toBeGreaterThan(100);
    expect(refused).toBeGreaterThan(100);
  }, 120_000);
});
