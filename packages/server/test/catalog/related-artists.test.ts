import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetRelatedArtistsResponse, ValidationErrorBody } from '@maqam/contract';
import { importNdjsonFile } from '@maqam/server';
import { createAjv } from '../../src/schema-validator.ts';
import { dialects } from '../dialects.ts';
import { RELATED_COUNT, writeNdjson } from '../fixtures.ts';
import { startTestServer, type TestServer } from '../harness.ts';

const ajv = createAjv();
const isPage = ajv.compile(GetRelatedArtistsResponse);
const isValidationError = ajv.compile(ValidationErrorBody);

/** The fixture's order: scores 1.0, 0.9, ... in ties of three, each tie by id. */
const EXPECTED_ORDER = Array.from({ length: RELATED_COUNT }, (_, i) => `rel-${String(i + 1).padStart(2, '0')}`);

describe.each(dialects.map((d) => [d.name, d] as const))('GetRelatedArtists on %s', (_name, dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(dialect);
  });
  afterAll(async () => server?.close());

  const related = (artistId: string, query = '', headers: Record<string, string> = {}) =>
    server.call({ method: 'GET', url: `/v1/music/artists/${encodeURIComponent(artistId)}/related${query}`, headers: { 'accept-language': 'en', ...headers } });

  const fieldsOf = (res: Awaited<ReturnType<typeof related>>) => {
    expect(res.statusCode).toBe(400);
    expect(isValidationError(res.json())).toBe(true);
    return res.json().violations.map((v: { field: string }) => v.field);
  };

  it('pages by 20 by default, in score order with the id as tiebreak, to an empty token', async () => {
    const first = await related('artist-ar');
    expect(first.statusCode).toBe(200);
    expect(isPage(first.json())).toBe(true);
    expect(first.json().artists.map((a: { id: { value: string } }) => a.id.value)).toEqual(EXPECTED_ORDER.slice(0, 20));
    const token = first.json().nextPageToken;
    expect(token).not.toBe('');
    const second = await related('artist-ar', `?page_token=${encodeURIComponent(token)}`);
    expect(second.json().artists.map((a: { id: { value: string } }) => a.id.value)).toEqual(EXPECTED_ORDER.slice(20));
    expect(second.json().nextPageToken).toBe('');
  });

  it('renders full, localized artists with counts as exact strings', async () => {
    const en = (await related('artist-ar', '?page_size=1')).json().artists[0];
    expect(en).toEqual({
      id: { value: 'rel-01' },
      name: { value: 'Artist 1', originalValue: 'فنان 1' },
      genres: ['tarab'],
      followerCount: '12345678901234567',
      monthlyListeners: '42',
      isVerified: true,
      socialLinks: [{ platform: 'instagram', url: 'https://instagram.com/rel-01' }],
      artwork: [{ url: 'https://img.test/rel-01.jpg', width: 300, height: 300 }],
      nationality: 'EG',
    });
    const ar = await related('artist-ar', '?page_size=1', { 'accept-language': 'ar-SA' });
    expect(ar.headers['content-language']).toBe('ar');
    expect(ar.json().artists[0].name).toEqual({ value: 'فنان 1', originalValue: 'فنان 1' });
  });

  it('walks every page whatever the page size, and the size may change between pages', async () => {
    const seen: string[] = [];
    let token = '';
    const sizes = [7, 1, 10, 100];
    for (let page = 0; ; page++) {
      const size = sizes[page % sizes.length];
      const res = await related('artist-ar', `?page_size=${size}${token ? `&page_token=${encodeURIComponent(token)}` : ''}`);
      expect(res.statusCode).toBe(200);
      seen.push(...res.json().artists.map((a: { id: { value: string } }) => a.id.value));
      token = res.json().nextPageToken;
      if (token === '') break;
    }
    expect(seen).toEqual(EXPECTED_ORDER);
  });

  it.each([
    ['pageSize', 'pageToken'],
    ['limit', 'pageToken'],
  ])('accepts the spellings %s and %s', async (sizeName, tokenName) => {
    const first = await related('artist-ar', `?${sizeName}=3`);
    expect(first.json().artists).toHaveLength(3);
    const second = await related('artist-ar', `?${sizeName}=3&${tokenName}=${encodeURIComponent(first.json().nextPageToken)}`);
    expect(second.json().artists[0].id.value).toBe(EXPECTED_ORDER[3]);
  });

  it('accepts two spellings with the same value and rejects different values, naming the client spelling', async () => {
    expect((await related('artist-ar', '?page_size=2&pageSize=2')).json().artists).toHaveLength(2);
    expect(fieldsOf(await related('artist-ar', '?page_size=2&limit=3'))).toEqual(['limit']);
    expect(fieldsOf(await related('artist-ar', '?page_token=a&pageToken=b'))).toEqual(['pageToken']);
  });

  it.each([
    ['?page_size=0', 'page_size'],
    ['?page_size=101', 'page_size'],
    ['?page_size=abc', 'page_size'],
    ['?page_size=1.5', 'page_size'],
    ['?page_size=1&page_size=2', 'page_size'],
    ['?pageSize=0', 'pageSize'],
    ['?limit=1000', 'limit'],
  ])('rejects %s naming %s', async (query, field) => {
    expect(fieldsOf(await related('artist-ar', query))).toEqual([field]);
  });

  it('rejects a tampered, foreign or garbage page token naming the parameter as spelled', async () => {
    const token: string = (await related('artist-ar', '?page_size=2')).json().nextPageToken;
    const flip = (at: number) => token.slice(0, at) + (token[at] === 'A' ? 'B' : 'A') + token.slice(at + 1);
    const respelled = [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_']
      .map((c) => token.slice(0, -1) + c)
      .filter((t) => t !== token && Buffer.from(t, 'base64url').equals(Buffer.from(token, 'base64url')));
    for (const variant of [flip(0), flip(token.length >> 1), flip(token.length - 1), `${token}=`, `${token}.x`, ...respelled]) {
      expect(fieldsOf(await related('artist-ar', `?page_token=${encodeURIComponent(variant)}`)), variant).toEqual(['page_token']);
    }
    expect(fieldsOf(await related('artist-en', `?page_token=${encodeURIComponent(token)}`))).toEqual(['page_token']);
    expect(fieldsOf(await related('artist-ar', '?pageToken=garbage'))).toEqual(['pageToken']);
  });

  it('keeps the page boundary when the catalog changes between pages (keyset, not offset)', async () => {
    const first = (await related('artist-ar', '?page_size=5')).json();
    // A new artist that sorts first: an offset cursor would now repeat rel-05.
    const dir = mkdtempSync(join(tmpdir(), 'maqam-related-'));
    const outcome = await importNdjsonFile(
      server.storage,
      writeNdjson(dir, 'new.ndjson', [
        { kind: 'artist', id: 'rel-new', name: { ar: 'جديد' }, originalLanguage: 'ar', genres: [], followerCount: 1, monthlyListeners: 1, isVerified: false, socialLinks: [], artwork: [], nationality: 'EG' },
        { kind: 'related', artistId: 'artist-ar', relatedId: 'rel-new', score: 1 },
      ]),
    );
    expect(outcome.errors).toEqual([]);
    const second = (await related('artist-ar', `?page_size=5&page_token=${encodeURIComponent(first.nextPageToken)}`)).json();
    expect(second.artists.map((a: { id: { value: string } }) => a.id.value)).toEqual(EXPECTED_ORDER.slice(5, 10));
  });

  it('answers an unknown artist with 404 NOT_FOUND', async () => {
    const res = await related('no-such-artist');
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ code: 'ERROR_CODE_NOT_FOUND', message: 'No artist with id "no-such-artist".' });
  });

  it('answers a known artist without related artists with an empty last page', async () => {
    const res = await related('artist-lonely');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ artists: [], nextPageToken: '' });
  });

  it('rejects an artist id over 128 characters naming artist_id', async () => {
    expect(fieldsOf(await related('a'.repeat(129)))).toEqual(['artist_id']);
  });
});

describe('page tokens expire (MAQAM_PAGE_TOKEN_TTL=1)', () => {
  let server: TestServer;
  // The server's clock: moved past the lifetime rather than waited out.
  let now = Date.now();
  beforeAll(async () => {
    server = await startTestServer(dialects[0]!, { MAQAM_PAGE_TOKEN_TTL: '1' }, { clock: () => now });
  });
  afterAll(async () => server?.close());

  it('rejects a token after its lifetime', async () => {
    const first = await server.call({ method: 'GET', url: '/v1/music/artists/artist-ar/related?page_size=2' });
    const token = encodeURIComponent(first.json().nextPageToken);
    // Still good within its second (sealed with whole seconds: up to a second less), refused once it has passed.
    expect((await server.call({ method: 'GET', url: `/v1/music/artists/artist-ar/related?page_token=${token}` })).statusCode).toBe(200);
    now += 2000;
    const res = await server.call({ method: 'GET', url: `/v1/music/artists/artist-ar/related?page_token=${token}` });
    expect(res.statusCode).toBe(400);
    expect(res.json().violations[0].field).toBe('page_token');
  });
});
