import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { importNdjsonFile } from '@maqam/server';
import type { TestServer } from '../harness.ts';
import { writeNdjson } from '../fixtures.ts';

export type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

/** A call to `node` (the test server's app unless told) as the holder of `token` (or with the API key `x-api-key`), in English unless told. */
export function caller(node: FastifyInstance, credential: { token: string } | { apiKey: string }) {
  return (method: Method, url: string, body?: unknown, headers: Record<string, string> = {}) =>
    node.inject({
      method,
      url,
      headers: {
        ...('token' in credential ? { authorization: `Bearer ${credential.token}` } : { 'x-api-key': credential.apiKey }),
        'accept-language': 'en',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      ...(body === undefined ? {} : { payload: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
}

export const songIds = (...values: string[]) => values.map((value) => ({ value }));

/** Albums album-2 to album-5 with a song each (song-2 ... song-5), for covers drawn from several albums. */
export async function importMoreAlbums(server: TestServer, records: readonly object[] = []): Promise<void> {
  const more: object[] = [];
  for (let i = 2; i <= 5; i++) {
    more.push({ kind: 'album', id: `album-${i}`, title: { ar: `ألبوم ${i}`, en: `Album ${i}` }, originalLanguage: 'ar', artistIds: ['artist-ar'], releaseDate: '2001-01-01', artwork: [] });
    more.push({
      kind: 'song', id: `song-${i}`, title: { en: `Song ${i}` }, originalLanguage: 'en', artistIds: ['artist-ar'], albumId: `album-${i}`, durationMs: 100_000 + i,
      trackNumber: 1, discNumber: 1, releaseDate: '2001-01-01', genres: [], isExplicit: false, isrc: '', hasLyrics: false, popularity: 10, artwork: [], previewUrl: '',
    });
  }
  await importRecords(server, [...more, ...records]);
}

/** Imports records into the test server's catalog, as `maqam import` would. */
export async function importRecords(server: TestServer, records: readonly object[]): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'maqam-playlists-'));
  try {
    const outcome = await importNdjsonFile(server.storage, writeNdjson(dir, 'more.ndjson', records));
    if (outcome.errors.length > 0) throw new Error(`import failed: ${JSON.stringify(outcome.errors)}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface Entry {
  itemId: string;
  position: number;
  addedAt: string;
  song?: { id: { value: string } };
  error?: { code: string; message: string };
}

/** Every entry of a playlist, page by page, with the versions the pages answered. */
export async function allEntries(call: ReturnType<typeof caller>, playlistId: string, pageSize = 100): Promise<Entry[]> {
  const entries: Entry[] = [];
  let token = '';
  do {
    const page = await call('GET', `/v1/playlists/${playlistId}/items?page_size=${pageSize}${token ? `&page_token=${token}` : ''}`);
    if (page.statusCode !== 200) throw new Error(`${page.statusCode} ${page.body}`);
    const body = page.json() as { items: Entry[]; nextPageToken: string };
    entries.push(...body.items);
    token = body.nextPageToken;
  } while (token !== '');
  return entries;
}

export const songsOf = (entries: readonly Entry[]) => entries.map((entry) => entry.song?.id.value ?? `!${entry.error?.code}`);
