import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SaxesParser } from 'saxes';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ImportRecord } from '@maqam/contract';
import { importNdjsonFile } from '@maqam/server';
import { dialects } from '../dialects.ts';
import { fixtureRecords, writeNdjson } from '../fixtures.ts';
import { startTestServer, type TestServer } from '../harness.ts';

const PUBLIC_URL = 'https://music.example:8443';

const EXTRA: ImportRecord[] = [
  {
    kind: 'artist', id: 'artist-markup', name: { en: '<script>alert("x")</script> & Co' }, originalLanguage: 'en', genres: [], followerCount: 1,
    monthlyListeners: 1, isVerified: false, socialLinks: [], artwork: [{ url: '/artwork/artists/artist-markup.svg', width: 300, height: 300 }],
    nationality: 'GB',
  },
  {
    kind: 'album', id: 'album-drawn', title: { ar: 'الليالي الحلوة' }, originalLanguage: 'ar', artistIds: ['artist-ar'], releaseDate: '2001-01-01',
    artwork: [{ url: '/artwork/albums/album-drawn.svg', width: 300, height: 300 }, { url: 'https://cdn.example/a.jpg', width: 64, height: 64 }],
  },
  { kind: 'album', id: 'album-gone', title: { ar: 'مسحوب' }, originalLanguage: 'ar', artistIds: ['artist-ar'], releaseDate: '2001-01-01', artwork: [], withdrawn: true },
];

describe.each(dialects.map((d) => [d.name, d] as const))('artwork on %s', (_name, dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(dialect, { MAQAM_PUBLIC_URL: PUBLIC_URL });
    const dir = mkdtempSync(join(tmpdir(), 'maqam-artwork-'));
    const outcome = await importNdjsonFile(server.storage, writeNdjson(dir, 'extra.ndjson', EXTRA));
    rmSync(dir, { recursive: true, force: true });
    expect(outcome.errors).toEqual([]);
  });
  afterAll(async () => server?.close());

  it('resolves server-relative image URLs against MAQAM_PUBLIC_URL and leaves absolute ones alone', async () => {
    const { album } = (await server.call({ method: 'GET', url: '/v1/music/albums/album-drawn' })).json();
    expect(album.artwork).toEqual([
      { url: `${PUBLIC_URL}/artwork/albums/album-drawn.svg`, width: 300, height: 300 },
      { url: 'https://cdn.example/a.jpg', width: 64, height: 64 },
    ]);
    const { artist } = (await server.call({ method: 'GET', url: '/v1/music/artists/artist-markup' })).json();
    expect(artist.artwork[0].url).toBe(`${PUBLIC_URL}/artwork/artists/artist-markup.svg`);
  });

  it('draws a cover of its own, in no language, without a credential, cacheably', async () => {
    const res = await server.app.inject({ method: 'GET', url: '/artwork/albums/album-drawn.svg' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('image/svg+xml; charset=utf-8');
    expect(res.headers['content-security-policy']).toContain("default-src 'none'");
    expect(res.body).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    // A picture, not letters: a listener reading English saw Arabic initials.
    expect(res.body).not.toContain('<text');
    const portrait = await server.app.inject({ method: 'GET', url: '/artwork/artists/artist-markup.svg' });
    expect(portrait.body).not.toContain('<text');
    expect(portrait.body).not.toBe(res.body);
    const again = await server.app.inject({ method: 'GET', url: '/artwork/albums/album-drawn.svg', headers: { 'if-none-match': res.headers.etag as string } });
    expect(again.statusCode).toBe(304);
  });

  it('escapes the name it draws', async () => {
    const res = await server.app.inject({ method: 'GET', url: '/artwork/artists/artist-markup.svg' });
    expect(res.statusCode).toBe(200);
    expect(res.body).not.toContain('<script');
    expect(res.body).toContain('aria-label="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; Co"');
  });

  it('draws well-formed XML, whatever a stored name holds', async () => {
    /** Parses as a strict XML 1.0 parser does: a character XML cannot hold, or bad markup, throws; answers the image's label. */
    const wellFormed = (xml: string) => {
      const parser = new SaxesParser({ xmlns: true });
      let label = '';
      parser.on('opentag', (tag) => {
        if (tag.name === 'svg' && label === '') label = (tag.attributes['aria-label'] as { value: string } | undefined)?.value ?? '';
      });
      parser.on('error', (error) => {
        throw error;
      });
      parser.write(xml).close();
      return label;
    };
    expect(wellFormed((await server.app.inject({ method: 'GET', url: '/artwork/artists/artist-markup.svg' })).body)).toBe('<script>alert("x")</script> & Co');
    // A name stored before the import refused such characters: C0 controls and a lone surrogate.
    await server.storage.db.updateTable('artists').set({ name_i18n: JSON.stringify({ en: '\u0001Bell\u0007 \ud800Tone\u001f' }) }).where('id', '=', 'artist-markup').execute();
    const res = await server.app.inject({ method: 'GET', url: '/artwork/artists/artist-markup.svg' });
    expect(res.statusCode).toBe(200);
    expect(() => new SaxesParser().write('<a>\u0001</a>').close()).toThrow(); // the parser is strict about them
    expect(wellFormed(res.body)).toBe('Bell Tone');
  });

  it('refuses, at import, texts holding control characters or lone surrogates, naming the line and the field', async () => {
    const artist = fixtureRecords().find((record) => record.kind === 'artist')!;
    const dir = mkdtempSync(join(tmpdir(), 'maqam-artwork-'));
    try {
      const outcome = await importNdjsonFile(server.storage, writeNdjson(dir, 'bad.ndjson', [
        { ...artist, id: 'artist-tab', name: { en: 'Tab\tand\nnewline\r\n are fine' } } as ImportRecord,
        { ...artist, id: 'artist-bell', name: { en: 'Bell\u0007' } } as ImportRecord,
        { ...artist, id: 'artist-surrogate', name: { ar: 'نص', en: 'half \ud83d' } } as ImportRecord,
        { kind: 'lyrics', songId: 'song-ar', language: 'ar', lines: ['سطر', 'escape\u001b[0m'] },
      ]));
      expect(outcome.errors).toEqual([
        { line: 2, message: expect.stringMatching(/^artist name\.en holds U\+0007, a character no text may hold/) },
        { line: 3, message: expect.stringMatching(/^artist name\.en holds U\+D83D/) },
        { line: 4, message: expect.stringMatching(/^lyrics lines\.1 holds U\+001B/) },
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('answers an unknown or withdrawn item, or another kind, in the error shape', async () => {
    for (const url of ['/artwork/albums/nope.svg', '/artwork/albums/album-gone.svg']) {
      const res = await server.app.inject({ method: 'GET', url });
      expect(res.statusCode).toBe(404);
      expect(res.json().code).toBe('ERROR_CODE_NOT_FOUND');
    }
    const wrongKind = await server.app.inject({ method: 'GET', url: '/artwork/songs/song-ar.svg' });
    expect(wrongKind.statusCode).toBe(400);
    expect(wrongKind.json().violations[0].field).toBe('kind');
    const notSvg = await server.app.inject({ method: 'GET', url: '/artwork/albums/album-drawn.png' });
    expect(notSvg.statusCode).toBe(400);
  });
});
