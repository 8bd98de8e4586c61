import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SearchResponse, ValidationErrorBody, type ImportRecord } from '@maqam/contract';
import { importNdjsonFile, runImport } from '@maqam/server';
import { createAjv } from '../../src/schema-validator.ts';
import { decodeChunk } from '../../src/search/doclist.ts';
import { dialects } from '../dialects.ts';
import { writeNdjson } from '../fixtures.ts';
import { startTestServer, type TestServer } from '../harness.ts';

const ajv = createAjv();
const isPage = ajv.compile(SearchResponse);
const isValidationError = ajv.compile(ValidationErrorBody);

function artist(id: string, name: Record<string, string>, originalLanguage: string, monthlyListeners: number): ImportRecord {
  return {
    kind: 'artist', id, name, originalLanguage, genres: [], followerCount: 1, monthlyListeners, isVerified: false, socialLinks: [], artwork: [],
    nationality: 'EG',
  };
}

function song(id: string, title: Record<string, string>, originalLanguage: string, artistIds: string[], popularity: number, albumId = 'album-1'): ImportRecord {
  return {
    kind: 'song', id, title, originalLanguage, artistIds, albumId, durationMs: 200_000, trackNumber: 1, discNumber: 1, releaseDate: '1970-01-01',
    genres: [], isExplicit: false, isrc: '', popularity, artwork: [], previewUrl: '',
  } as ImportRecord;
}

/**
 * On top of the shared fixture (artist-ar "عمرو دياب" / "Amr Diab" with song-ar
 * "تملي معاك", artist-en "Maya Stone" with song-en "Midnight City"): names
 * written one way only, so that only the contract's rules can find them.
 */
const EXTRA: ImportRecord[] = [
  artist('umm', { ar: 'أُمّ كُلثوم' }, 'ar', 5_000_000),
  artist('fairuz', { ar: 'فيروز' }, 'ar', 4_000_000),
  artist('adele', { en: 'Adele' }, 'en', 9_000_000),
  artist('hamaki', { ar: 'محمد حماقي' }, 'ar', 3_000_000),
  artist('elissa', { ar: 'إليسا' }, 'ar', 2_000_000),
  { kind: 'album', id: 'atlal-album', title: { ar: 'الأطلال' }, originalLanguage: 'ar', artistIds: ['umm'], releaseDate: '1966-01-01', artwork: [] },
  song('atlal', { ar: 'الأطلال' }, 'ar', ['umm'], 90, 'atlal-album'),
  song('enta-omri', { ar: 'إنت عمري' }, 'ar', ['umm'], 95, 'atlal-album'),
  song('helwa', { ar: 'حلوة يا بلدي' }, 'ar', ['fairuz'], 40),
  song('hello', { en: 'Hello' }, 'en', ['adele'], 99),
  song('ahla', { ar: 'أحلى واحدة' }, 'ar', ['hamaki'], 70),
  song('gone', { ar: 'أم كلثوم تغني' }, 'ar', ['umm'], 100),
  // Many songs of one word, for paging and ties.
  ...Array.from({ length: 7 }, (_, i) => song(`layl-${i}`, { ar: 'يا ليل' }, 'ar', ['fairuz'], i % 2 === 0 ? 50 : 60)),
];

const ids = (body: { results: Record<string, { id: { value: string } }>[] }) =>
  body.results.map((result) => {
    const [kind, item] = Object.entries(result)[0]!;
    return `${kind}:${item.id.value}`;
  });

describe.each(dialects.map((d) => [d.name, d] as const))('Search on %s', (_name, dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(dialect);
    const dir = mkdtempSync(join(tmpdir(), 'maqam-search-'));
    const outcome = await importNdjsonFile(server.storage, writeNdjson(dir, 'extra.ndjson', EXTRA));
    // Withdrawn by a later import: a withdrawn song is not found.
    const withdrawal = await importNdjsonFile(server.storage, writeNdjson(dir, 'withdrawn.ndjson', [{ ...(EXTRA.find((r) => r.kind === 'song' && r.id === 'gone') as object), withdrawn: true }]));
    rmSync(dir, { recursive: true, force: true });
    expect([...outcome.errors, ...withdrawal.errors]).toEqual([]);
  });
  afterAll(async () => server?.close());

  const search = async (query: Record<string, string>, headers: Record<string, string> = {}) => {
    const res = await server.call({ method: 'GET', url: `/v1/search?${new URLSearchParams(query)}`, headers: { 'accept-language': 'en', ...headers } });
    return res;
  };
  const found = async (q: string, types?: string) => {
    const res = await search({ q, page_size: '20', ...(types ? { types } : {}) });
    expect(res.statusCode, res.body).toBe(200);
    expect(isPage(res.json())).toBe(true);
    return ids(res.json());
  };

  describe('matching', () => {
    it.each([
      ['ام كلثوم', 'artist:umm'], // rule 1: hamza, and the diacritics of the stored name
      ['اُمّ كلثوم', 'artist:umm'],
      ['انت عمري', 'song:enta-omri'],
      ['حلوه يا بلدى', 'song:helwa'], // ة/ه, ى/ي
      ['  ADELE!! ', 'artist:adele'], // rule 2
      ['اطلال', 'song:atlal'], // rule 3: the article is optional
      ['والأطلال', 'song:atlal'],
      ['عمرو د', 'artist:artist-ar'], // rule 4: the last word as a prefix
      ['midnigt', 'song:song-en'], // rule 5: one typo in a word of 5+ letters
      ['Amro Diyab', 'artist:artist-ar'], // rule 6: another transliteration
      ['Om Kalthoum', 'artist:umm'],
      ['Oum Kalsoum', 'artist:umm'],
      ['Muhammad Hamaki', 'artist:hamaki'],
      ['3amr diab', 'artist:artist-ar'], // rule 7: Arabizi
      ['7amaki', 'artist:hamaki'],
      ['7elwa', 'song:helwa'],
      ['اديل', 'artist:adele'], // rule 8: across scripts, both ways
      ['Fairuz', 'artist:fairuz'],
      ['Elissa', 'artist:elissa'],
    ])('finds %s: %s', async (q, wanted) => {
      expect((await found(q)).slice(0, 5)).toContain(wanted);
    });

    it('finds a song through its artist and its album, and an album through its artist', async () => {
      expect(await found('Om Kalthoum', 'song')).toEqual(expect.arrayContaining(['song:atlal', 'song:enta-omri']));
      expect(await found('الأطلال', 'song')).toEqual(['song:atlal', 'song:enta-omri']);
      expect(await found('كلثوم', 'album')).toEqual(['album:atlal-album']);
    });

    it('stores one posting an item for a word it has more than once (a song named like its album)', async () => {
      // الأطلال is both the song atlal's title and its album's: the word is the song's twice.
      const chunks = await server.storage.db.selectFrom('search_doclists').select(['segment', 'chunk', 'offsets']).where('word', '=', 'اطلال').execute();
      expect(chunks.length).toBeGreaterThan(0);
      for (const chunk of chunks) {
        const offsets = [...decodeChunk(chunk.offsets)];
        expect(new Set(offsets).size, `segment ${chunk.segment} chunk ${chunk.chunk}`).toBe(offsets.length);
      }
      expect(await found('الأطلال', 'song')).toEqual(['song:atlal', 'song:enta-omri']); // the other through its album
    });

    it('needs every word to match', async () => {
      expect(await found('عمرو فيروز')).toEqual([]);
      expect(await found('zzzzqqq')).toEqual([]);
    });

    it('does not find withdrawn items', async () => {
      expect(await found('تغني')).toEqual([]);
    });
  });

  describe('order', () => {
    it('puts the artist whose name is the query above the songs crediting it', async () => {
      const results = await found('ام كلثوم');
      expect(results[0]).toBe('artist:umm');
      expect(results).toEqual(expect.arrayContaining(['song:atlal', 'song:enta-omri', 'album:atlal-album']));
    });

    it('ranks whole words above prefixes above variants, then popularity, then id', async () => {
      // "layl" songs tie on relevance: popularity 60 first, then ids.
      expect(await found('يا ليل', 'song')).toEqual(['song:layl-1', 'song:layl-3', 'song:layl-5', 'song:layl-0', 'song:layl-2', 'song:layl-4', 'song:layl-6']);
      // "حل" begins حلوة (a prefix match) and sounds like "Hello" and أحلى (variants): the prefix first, variants by popularity.
      expect(await found('حل', 'song')).toEqual(['song:helwa', 'song:hello', 'song:ahla']);
    });
  });

  describe('paging', () => {
    it('pages to the end with tokens bound to q and types', async () => {
      const seen: string[] = [];
      let token = '';
      let pages = 0;
      do {
        const res = await search({ q: 'ليل', types: 'song', page_size: '3', ...(token ? { page_token: token } : {}) });
        expect(res.statusCode).toBe(200);
        seen.push(...ids(res.json()));
        token = res.json().nextPageToken;
        pages++;
      } while (token);
      expect(pages).toBe(3);
      expect(seen).toEqual(await found('ليل', 'song'));
      const first = (await search({ q: 'ليل', types: 'song', page_size: '3' })).json().nextPageToken;
      for (const other of [{ q: 'ليل', types: 'song,artist' }, { q: 'فيروز', types: 'song' }]) {
        const res = await search({ ...other, page_size: '3', page_token: first });
        expect(res.statusCode).toBe(400);
        expect(res.json().violations[0].field).toBe('page_token');
      }
    });
  });

  describe('validation', () => {
    const fields = async (query: Record<string, string>) => {
      const res = await search(query);
      expect(res.statusCode).toBe(400);
      expect(isValidationError(res.json())).toBe(true);
      return res.json().violations.map((v: { field: string }) => v.field);
    };

    it('needs q of 1 to 200 characters after trimming', async () => {
      expect(await fields({})).toEqual(['q']);
      expect(await fields({ q: '   ' })).toEqual(['q']);
      expect(await fields({ q: 'a'.repeat(201) })).toEqual(['q']);
      expect((await search({ q: ` ${'a'.repeat(200)} ` })).statusCode).toBe(200);
    });

    it('takes types as a comma-separated subset of song, artist, album', async () => {
      expect(await fields({ q: 'x', types: 'songs' })).toEqual(['types']);
      expect(await fields({ q: 'x', types: 'song,,album' })).toEqual(['types']);
      expect(await found('ام كلثوم', 'artist')).toEqual(['artist:umm']);
    });

    it('needs a credential', async () => {
      expect((await server.app.inject({ method: 'GET', url: '/v1/search?q=x' })).statusCode).toBe(401);
    });
  });

  it('renders results exactly as the catalog operations do, in the locale asked for', async () => {
    const res = await search({ q: 'Amr Diab', types: 'artist' }, { 'accept-language': 'ar' });
    const artistPage = await server.call({ method: 'GET', url: '/v1/music/artists/artist-ar', headers: { 'accept-language': 'ar' } });
    expect(res.json().results[0]).toEqual(artistPage.json());
  });

  it('sees a re-import once the node notices the catalog changed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'maqam-search-reimport-'));
    try {
      const renamed = artist('fairuz', { ar: 'فيروز', en: 'Fairouz Haddad' }, 'ar', 4_000_000);
      expect((await importNdjsonFile(server.storage, writeNdjson(dir, 'renamed.ndjson', [renamed]))).errors).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    // The postings change with the import; the vocabulary of a new word arrives with the catalog poll.
    await expect.poll(async () => found('Haddad', 'artist')).toEqual(['artist:fairuz']);
  });

  it('indexes an import\'s later batches by the names another import gave meanwhile', async () => {
    // An import remembers the names it read between its batches; a rename by anyone else must not be missed.
    const dir = mkdtempSync(join(tmpdir(), 'maqam-search-memo-'));
    try {
      await runImport(server.storage, async (writeBatch) => {
        await writeBatch([{ line: 1, record: song('memo-1', { en: 'Qwv one' }, 'en', ['elissa'], 10) }]);
        const renamed = artist('elissa', { ar: 'إليسا', en: 'Zyxwel Renamed' }, 'ar', 2_000_000);
        expect((await importNdjsonFile(server.storage, writeNdjson(dir, 'renamed.ndjson', [renamed]))).errors).toEqual([]);
        await writeBatch([{ line: 1, record: song('memo-2', { en: 'Qwv two' }, 'en', ['elissa'], 20) }]);
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    await expect.poll(async () => found('Zyxwel Qwv', 'song')).toEqual(['song:memo-2', 'song:memo-1']);
  });

  it('ranks a half-typed word\'s matches by popularity, whichever of its many words finds them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'maqam-search-prefix-'));
    try {
      const letters = 'abcdefgh';
      const songs = [...letters].map((letter, i) => song(`qzx-${letter}`, { en: `Qzx${letter}` }, 'en', ['adele'], i + 1));
      songs.push(song('qzx-z', { en: 'Qzxz' }, 'en', ['adele'], 99));
      expect((await importNdjsonFile(server.storage, writeNdjson(dir, 'prefix.ndjson', songs))).errors).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    // Nine words begin "qzx"; the last in the alphabet holds the most popular song, and pages stay in popularity order.
    const page = async (token = '') => (await search({ q: 'Qzx', types: 'song', page_size: '3', ...(token && { page_token: token }) })).json();
    await expect.poll(async () => ids(await page())).toEqual(['song:qzx-z', 'song:qzx-h', 'song:qzx-g']);
    const second = await page((await page()).nextPageToken);
    expect(ids(second)).toEqual(['song:qzx-f', 'song:qzx-e', 'song:qzx-d']);
  });

  it('pages the few items two common words share, most popular first, whichever word is typed first', async () => {
    // Each word is on more songs than a first walk passes (1,000 postings), and the 30 songs with both are the least
    // popular of them: walking either word from its most popular postings finds none, and the walk must go on.
    const dir = mkdtempSync(join(tmpdir(), 'maqam-search-sparse-'));
    try {
      const songs = [
        ...Array.from({ length: 1_500 }, (_, i) => song(`vb-${i}`, { en: `Vorbal ${i}` }, 'en', ['adele'], 31 + (i % 70))),
        ...Array.from({ length: 2_500 }, (_, i) => song(`qt-${i}`, { en: `Quenty ${i}` }, 'en', ['adele'], 31 + (i % 70))),
        ...Array.from({ length: 30 }, (_, i) => song(`both-${String(i).padStart(2, '0')}`, { en: `Vorbal Quenty ${i}` }, 'en', ['adele'], i + 1)),
      ];
      expect((await importNdjsonFile(server.storage, writeNdjson(dir, 'sparse.ndjson', songs))).errors).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const both = (from: number, to: number) => Array.from({ length: from - to + 1 }, (_, i) => `song:both-${String(from - i).padStart(2, '0')}`);
    for (const q of ['Vorbal Quenty', 'Quenty Vorbal']) {
      const first = async () => (await search({ q, types: 'song', page_size: '20' })).json();
      // New words reach the vocabulary with the catalog poll.
      await expect.poll(async () => ids(await first())).toEqual(both(29, 10));
      const second = (await search({ q, types: 'song', page_size: '20', page_token: (await first()).nextPageToken })).json();
      expect(ids(second)).toEqual(both(9, 0));
      expect(second.nextPageToken).toBe('');
    }
  });

  it('orders albums by their most popular song as songs arrive, move, change and leave', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'maqam-search-albums-'));
    const album = (id: string): ImportRecord => ({ kind: 'album', id, title: { en: `Zumurrud ${id}` }, originalLanguage: 'en', artistIds: ['adele'], releaseDate: '2001-01-01', artwork: [] });
    let file = 0;
    const write = async (records: ImportRecord[]) => {
      expect((await importNdjsonFile(server.storage, writeNdjson(dir, `albums-${file++}.ndjson`, records))).errors).toEqual([]);
    };
    const albums = () => found('Zumurrud', 'album');
    try {
      await write([album('zm-a'), album('zm-b')]);
      // A new word reaches the vocabulary with the catalog poll.
      await expect.poll(albums).toEqual(['album:zm-a', 'album:zm-b']); // no songs: a tie, by id
      await write([song('zm-a1', { en: 'One' }, 'en', ['adele'], 10, 'zm-a'), song('zm-b1', { en: 'Two' }, 'en', ['adele'], 20, 'zm-b')]);
      expect(await albums()).toEqual(['album:zm-b', 'album:zm-a']);
      await write([song('zm-a2', { en: 'Three' }, 'en', ['adele'], 30, 'zm-a')]); // a new song raises its album
      expect(await albums()).toEqual(['album:zm-a', 'album:zm-b']);
      await write([song('zm-a2', { en: 'Three' }, 'en', ['adele'], 5, 'zm-a')]); // less popular now: back to zm-a1's 10
      expect(await albums()).toEqual(['album:zm-b', 'album:zm-a']);
      await write([song('zm-b1', { en: 'Two' }, 'en', ['adele'], 20, 'zm-a')]); // moved: zm-b has no song left
      expect(await albums()).toEqual(['album:zm-a', 'album:zm-b']);
      await write([{ ...song('zm-b1', { en: 'Two' }, 'en', ['adele'], 20, 'zm-a'), withdrawn: true } as ImportRecord, song('zm-b2', { en: 'Four' }, 'en', ['adele'], 11, 'zm-b')]);
      expect(await albums()).toEqual(['album:zm-b', 'album:zm-a']); // zm-b 11 > zm-a 10
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('raises an album in an import\'s later batch from the popularity another import gave it meanwhile', async () => {
    // An import remembers the popularity it indexed albums at; a change by anyone else must not be missed.
    const dir = mkdtempSync(join(tmpdir(), 'maqam-search-album-memo-'));
    const album = (id: string): ImportRecord => ({ kind: 'album', id, title: { en: `Yaqut ${id}` }, originalLanguage: 'en', artistIds: ['adele'], releaseDate: '2001-01-01', artwork: [] });
    const albums = () => found('Yaqut', 'album');
    try {
      const first = [album('yq-x'), album('yq-z'), song('yq-x1', { en: 'One' }, 'en', ['adele'], 10, 'yq-x'), song('yq-z1', { en: 'Two' }, 'en', ['adele'], 12, 'yq-z')];
      expect((await importNdjsonFile(server.storage, writeNdjson(dir, 'first.ndjson', first))).errors).toEqual([]);
      await expect.poll(albums).toEqual(['album:yq-z', 'album:yq-x']);
      await runImport(server.storage, async (writeBatch) => {
        await writeBatch([{ line: 1, record: song('yq-x2', { en: 'Three' }, 'en', ['adele'], 20, 'yq-x') }]); // yq-x at 20
        expect(await albums()).toEqual(['album:yq-x', 'album:yq-z']);
        // Another import makes yq-x2 less popular: yq-x is back to yq-x1's 10.
        const lowered = song('yq-x2', { en: 'Three' }, 'en', ['adele'], 5, 'yq-x');
        expect((await importNdjsonFile(server.storage, writeNdjson(dir, 'lowered.ndjson', [lowered]))).errors).toEqual([]);
        expect(await albums()).toEqual(['album:yq-z', 'album:yq-x']);
        // 15 raises yq-x from 10 (not from the 20 this import indexed it at), above yq-z's 12.
        await writeBatch([{ line: 1, record: song('yq-x3', { en: 'Four' }, 'en', ['adele'], 15, 'yq-x') }]);
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(await albums()).toEqual(['album:yq-x', 'album:yq-z']);
  });
});

describe('Search answers the same on both dialects', () => {
  it.skipIf(dialects.length < 2)('gives the same pages for the same queries', async () => {
    const servers = await Promise.all(dialects.map((dialect) => startTestServer(dialect)));
    try {
      for (const server of servers) {
        const dir = mkdtempSync(join(tmpdir(), 'maqam-search-both-'));
        await importNdjsonFile(server.storage, writeNdjson(dir, 'extra.ndjson', EXTRA));
        rmSync(dir, { recursive: true, force: true });
      }
      for (const q of ['ام كلثوم', 'ليل', 'Amr', 'a', 'حب', 'Midnight', 'Fairuz', 'يا']) {
        const pages = await Promise.all(servers.map(async (server) => {
          const res = await server.call({ method: 'GET', url: `/v1/search?${new URLSearchParams({ q, page_size: '50' })}` });
          return res.json().results;
        }));
        expect(pages[1], q).toEqual(pages[0]);
      }
    } finally {
      for (const server of servers) await server.close();
    }
  });
});
