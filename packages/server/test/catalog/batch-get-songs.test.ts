import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatchGetSongsResponse, ValidationErrorBody } from '@maqam/contract';
import { createAjv } from '../../src/schema-validator.ts';
import { dialects } from '../dialects.ts';
import { fixtureRecords, writeNdjson } from '../fixtures.ts';
import { batchGet, ids, startTestServer, type TestServer } from '../harness.ts';
import { importNdjsonFile } from '@maqam/server';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ajv = createAjv();
const isBatchResponse = ajv.compile(BatchGetSongsResponse);
const isValidationError = ajv.compile(ValidationErrorBody);

describe.each(dialects.map((d) => [d.name, d] as const))('BatchGetSongs on %s', (_name, dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(dialect);
  });
  afterAll(async () => server?.close());

  it('answers every requested id, with the song in the requested locale', async () => {
    const res = await batchGet(server, ids('song-ar', 'song-en'), { 'accept-language': 'en' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['content-language']).toBe('en, ar');
    expect(res.headers.vary).toContain('Accept-Language');
    const body = res.json();
    expect(isBatchResponse(body)).toBe(true);
    expect(body.results['song-ar']).toEqual({
      song: {
        id: { value: 'song-ar' },
        title: { value: 'Tamally Maak', originalValue: 'تملي معاك' },
        artists: [
          { id: { value: 'artist-ar' }, name: { value: 'Amr Diab', originalValue: 'عمرو دياب' } },
          { id: { value: 'artist-en' }, name: { value: 'Maya Stone', originalValue: 'Maya Stone' } },
        ],
        albumId: { value: 'album-1' },
        durationMs: 215000,
        trackNumber: 1,
        discNumber: 1,
        releaseDate: '1999-07-01',
        genres: ['arabic-pop'],
        isExplicit: false,
        isrc: 'EGA019900001',
        hasLyrics: true,
        popularity: 87,
        artwork: [{ url: 'https://img.test/song-ar.jpg', width: 300, height: 300 }],
        previewUrl: 'https://preview.test/song-ar.mp3',
      },
    });
    expect(body.results['song-en'].song).toMatchObject({ isExplicit: true, isrc: '', previewUrl: '' });
  });

  it('gives ids not in the catalog, and withdrawn songs, a per-item NOT_FOUND', async () => {
    const res = await batchGet(server, ids('song-ar', 'no-such-song', 'song-withdrawn'), { 'accept-language': 'en' });
    expect(res.statusCode).toBe(200);
    const { results } = res.json();
    expect(Object.keys(results)).toEqual(['song-ar', 'no-such-song', 'song-withdrawn']);
    expect(results['no-such-song']).toEqual({ error: { code: 'ERROR_CODE_NOT_FOUND', message: 'No song with id "no-such-song".' } });
    expect(results['song-withdrawn'].error.code).toBe('ERROR_CODE_NOT_FOUND');
    expect(results['song-ar'].song.id.value).toBe('song-ar');
  });

  it('answers duplicated ids once', async () => {
    const res = await batchGet(server, ids('song-ar', 'song-ar', 'song-en', 'song-ar'));
    const raw = res.body;
    expect(Object.keys(res.json().results)).toEqual(['song-ar', 'song-en']);
    expect(raw.match(/"song-ar":/g)).toHaveLength(1);
  });

  it('answers a full batch of 100 and serves repeated requests identically from cache', async () => {
    const list = Array.from({ length: 100 }, (_, i) => (i % 3 === 0 ? 'song-ar' : `missing-${i}`));
    const first = await batchGet(server, ids(...list));
    const second = await batchGet(server, ids(...list));
    expect(first.statusCode).toBe(200);
    expect(second.body).toBe(first.body);
    expect(Object.keys(first.json().results)).toHaveLength(new Set(list).size);
  });

  it('accepts unicode ids and keeps them as keys', async () => {
    const res = await batchGet(server, ids('أغنية-١', '🎵"quoted"\\'));
    expect(res.statusCode).toBe(200);
    expect(Object.keys(res.json().results)).toEqual(['أغنية-١', '🎵"quoted"\\']);
  });

  it('finds songs whose ids need escaping in JSON, read from the database together, each under its own id', async () => {
    const odd = ['🎵"quoted"\\', 'back\\slash', 'ctl\u0001', 'أغنية-٢'];
    const template = fixtureRecords().find((r) => r.kind === 'song' && r.id === 'song-fr')!;
    const dir = mkdtempSync(join(tmpdir(), 'maqam-odd-ids-'));
    const outcome = await importNdjsonFile(server.storage, writeNdjson(dir, 'odd.ndjson', odd.map((id) => ({ ...template, id }))));
    expect(outcome.errors).toEqual([]);
    const together = await batchGet(server, ids(...odd, 'song-ar'));
    expect(together.statusCode).toBe(200);
    const results = together.json().results;
    expect(Object.keys(results)).toEqual([...odd, 'song-ar']);
    for (const id of odd) {
      expect(results[id].song.id).toEqual({ value: id });
      expect(results[id].song.title.originalValue).toBe('La Nuit');
      expect((await batchGet(server, ids(id))).json().results[id]).toEqual(results[id]);
    }
  });

  it('accepts proto3 snake_case field names and ignores unknown members', async () => {
    const res = await batchGet(server, { song_id_list: [{ value: 'song-ar', extra: 1 }], unknownMember: true });
    expect(res.statusCode).toBe(200);
    expect(Object.keys(res.json().results)).toEqual(['song-ar']);
  });

  describe('locale negotiation', () => {
    const title = async (id: string, acceptLanguage?: string) => {
      const res = await batchGet(server, ids(id), acceptLanguage === undefined ? {} : { 'accept-language': acceptLanguage });
      return { title: res.json().results[id].song.title, language: res.headers['content-language'] };
    };

    it('falls back from ar-EG to ar (RFC 4647 lookup)', async () => {
      expect(await title('song-ar', 'ar-EG')).toEqual({ title: { value: 'تملي معاك', originalValue: 'تملي معاك' }, language: 'ar' });
    });
    it('names in Content-Language each language texts were looked up in: French, then the default', async () => {
      // song-ar has no French title: it is served in Arabic, and the header says so instead of claiming French.
      expect(await title('song-ar', 'fr')).toEqual({ title: { value: 'تملي معاك', originalValue: 'تملي معاك' }, language: 'fr, ar' });
      expect(await title('song-fr', 'fr')).toEqual({ title: { value: 'La Nuit', originalValue: 'La Nuit' }, language: 'fr, ar' });
    });
    it('uses the default locale (ar) without a header', async () => {
      expect(await title('song-fr')).toEqual({ title: { value: 'الليل', originalValue: 'La Nuit' }, language: 'ar' });
    });
    it('uses the original text when neither the request nor the default locale has one', async () => {
      expect(await title('song-en', 'ar')).toEqual({ title: { value: 'Midnight City', originalValue: 'Midnight City' }, language: 'ar' });
    });
    it('honours q-values over header order', async () => {
      expect((await title('song-fr', 'ar;q=0.2, fr-CA;q=0.9')).title.value).toBe('La Nuit');
    });
    it('treats a valid tag the catalog lacks as no preference, not an error', async () => {
      expect(await title('song-ar', 'de-DE, *;q=0.5')).toEqual({ title: { value: 'تملي معاك', originalValue: 'تملي معاك' }, language: 'ar' });
    });
    it.each(['en;q=2', 'en;;', '12', 'en-', 'en;q=0.1234', 'en;level=1'])('rejects the malformed header %j naming Accept-Language', async (header) => {
      const res = await batchGet(server, ids('song-ar'), { 'accept-language': header });
      expect(res.statusCode).toBe(400);
      expect(res.json().violations).toEqual([expect.objectContaining({ field: 'Accept-Language' })]);
    });
  });

  describe('validation', () => {
    const violationsOf = async (body: unknown, headers: Record<string, string> = {}) => {
      const res = await batchGet(server, body, { 'accept-language': 'en', ...headers });
      expect(res.statusCode).toBe(400);
      const json = res.json();
      expect(isValidationError(json)).toBe(true);
      expect(json.code).toBe('ERROR_CODE_INVALID_REQUEST');
      expect(json.requestId).toBe(res.headers['x-request-id']);
      return json.violations.map((v: { field: string }) => v.field);
    };

    it('needs songIdList', async () => expect(await violationsOf({})).toEqual(['songIdList']));
    it('needs at least one id', async () => expect(await violationsOf({ songIdList: [] })).toEqual(['songIdList']));
    it('takes at most 100 ids', async () => {
      expect(await violationsOf(ids(...Array.from({ length: 101 }, (_, i) => `s${i}`)))).toEqual(['songIdList']);
    });
    it('names the failing item with a bracketed index', async () => {
      expect(await violationsOf({ songIdList: [{ value: 'ok' }, {}, { value: '' }, { value: 7 }, { value: 'x'.repeat(129) }] })).toEqual([
        'songIdList[1].value',
        'songIdList[2].value',
        'songIdList[3].value',
        'songIdList[4].value',
      ]);
    });
    it('rejects a list that is not an array', async () => expect(await violationsOf({ songIdList: 'song-ar' })).toEqual(['songIdList']));
    it('rejects a body that is not an object', async () => expect(await violationsOf([1, 2])).toEqual(['body']));
    it('rejects unparsable JSON naming body', async () => expect(await violationsOf('{"songIdList": [')).toEqual(['body']));
    it('rejects an empty body naming body', async () => expect(await violationsOf('')).toEqual(['body']));
    it('rejects a field given in both spellings', async () => {
      expect(await violationsOf({ songIdList: [{ value: 'a' }], song_id_list: [{ value: 'b' }] })).toEqual(['songIdList']);
      // Inside a list, the field is named by its path.
      expect(await violationsOf({ songIdList: [{ value: 'a' }, { value: 'b', extra_field: 1, extraField: 2 }] })).toEqual(['songIdList[1].extraField']);
    });
    it('rejects a body that is not application/json, naming Content-Type', async () => {
      expect(await violationsOf('songIdList=1', { 'content-type': 'application/x-www-form-urlencoded' })).toEqual(['Content-Type']);
      expect(await violationsOf('hello', { 'content-type': 'text/plain' })).toEqual(['Content-Type']);
    });
    it('localizes messages but never code or field', async () => {
      const en = (await batchGet(server, {}, { 'accept-language': 'en' })).json();
      const ar = (await batchGet(server, {}, { 'accept-language': 'ar' })).json();
      expect(en.code).toBe(ar.code);
      expect(en.violations[0].field).toBe(ar.violations[0].field);
      expect(en.message).toMatch(/not valid/);
      expect(ar.message).toMatch(/[\u0600-\u06FF]/);
      expect(ar.violations[0].description).toMatch(/[\u0600-\u06FF]/);
    });
    it('answers a body over 1 MiB with 413 in the error shape', async () => {
      const res = await batchGet(server, JSON.stringify({ songIdList: [{ value: 'a' }], pad: 'x'.repeat(1024 * 1024) }));
      expect(res.statusCode).toBe(413);
      expect(res.json()).toMatchObject({ code: 'ERROR_CODE_INVALID_REQUEST', message: expect.any(String), requestId: expect.any(String) });
    });
    it.each([
      ['a __proto__ member', '{"songIdList":[{"value":"a"}],"__proto__":{"polluted":true}}', 400],
      ['an operator object as id', '{"songIdList":[{"value":{"$ne":1}}]}', 400],
      ['5,000 nested arrays', `{"songIdList":[${'['.repeat(5000)}${']'.repeat(5000)}]}`, 400],
      ['a lone surrogate id', '{"songIdList":[{"value":"\\ud800"}]}', 200],
      ['null', 'null', 400],
      ['a JSON string', '"string"', 400],
      ['a null list', '{"songIdList":null}', 400],
    ])('answers %s with %i, no internals', async (_what, payload, status) => {
      const res = await batchGet(server, payload);
      expect(res.statusCode).toBe(status);
      expect(res.body).not.toMatch(/at .*\.ts:\d+|SELECT|sqlite|node_modules/i);
      if (status === 400) expect(isValidationError(res.json())).toBe(true);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });
  });

  it('shows a re-imported song on the next requests (the cache follows the catalog version)', async () => {
    await batchGet(server, ids('song-ar'), { 'accept-language': 'en' }); // warm the cache
    const changed = fixtureRecords().map((r) =>
      r.kind === 'song' && r.id === 'song-ar' ? { ...r, title: { ar: 'تملي معاك', en: 'Always With You' } } : r,
    );
    const dir = mkdtempSync(join(tmpdir(), 'maqam-reimport-'));
    const outcome = await importNdjsonFile(server.storage, writeNdjson(dir, 'changed.ndjson', changed));
    expect(outcome.errors).toEqual([]);
    await expect
      .poll(async () => (await batchGet(server, ids('song-ar'), { 'accept-language': 'en' })).json().results['song-ar'].song.title.value, {
        timeout: 5000,
        interval: 200,
      })
      .toBe('Always With You');
  });
});

describe('BatchGetSongs with MAQAM_DEFAULT_LOCALE=en', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(dialects[0]!, { MAQAM_DEFAULT_LOCALE: 'en' });
  });
  afterAll(async () => server?.close());

  it('resolves texts and messages in English without a header', async () => {
    const res = await batchGet(server, ids('song-ar', 'missing'));
    expect(res.headers['content-language']).toBe('en');
    expect(res.json().results['song-ar'].song.title.value).toBe('Tamally Maak');
    expect(res.json().results.missing.error.message).toBe('No song with id "missing".');
  });
});
