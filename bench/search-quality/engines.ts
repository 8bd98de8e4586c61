// The three search engines bench/search-quality compares, over the same
// catalog (catalog.ts): Maqam as served, MiniSearch and Orama. Each answers
// the `kind:id` of its first five results.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import MiniSearch from 'minisearch';
import { create, insert, search as oramaSearch } from '@orama/orama';
import type { ImportRecord } from '@maqam/contract';
import { buildApp, createApiKeysRepo, createApiKeysService, importNdjsonFile, loadConfig, prepareDatabase, openStorage } from '@maqam/server';
import { QUALITY_RECORDS } from './catalog.ts';

export type Engine = (q: string) => Promise<string[]>;

/** Every item as one document of all its searchable texts (a song with its artists and album; an album with its artists). */
function documents(records: readonly ImportRecord[]): { id: string; text: string }[] {
  const names = new Map<string, string[]>();
  for (const record of records) {
    if (record.kind === 'artist') names.set(`artist:${record.id}`, Object.values(record.name));
    if (record.kind === 'album') names.set(`album:${record.id}`, Object.values(record.title));
  }
  const docs: { id: string; text: string }[] = [];
  for (const record of records) {
    if (record.kind === 'artist') docs.push({ id: `artist:${record.id}`, text: Object.values(record.name).join(' ') });
    if (record.kind === 'album') {
      docs.push({ id: `album:${record.id}`, text: [...Object.values(record.title), ...record.artistIds.flatMap((a) => names.get(`artist:${a}`) ?? [])].join(' ') });
    }
    if (record.kind === 'song') {
      const texts = [...Object.values(record.title), ...record.artistIds.flatMap((a) => names.get(`artist:${a}`) ?? []), ...(names.get(`album:${record.albumId}`) ?? [])];
      docs.push({ id: `song:${record.id}`, text: texts.join(' ') });
    }
  }
  return docs;
}

export async function maqamEngine(): Promise<{ engine: Engine; close(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'maqam-search-quality-'));
  const url = `sqlite:${join(dir, 'quality.db')}`;
  const storage = openStorage(url);
  await prepareDatabase(storage);
  const file = join(dir, 'catalog.ndjson');
  writeFileSync(file, QUALITY_RECORDS.map((r) => JSON.stringify(r)).join('\n'));
  const outcome = await importNdjsonFile(storage, file);
  if (outcome.errors.length > 0) throw new Error(`catalog import failed: ${JSON.stringify(outcome.errors)}`);
  const { key } = await createApiKeysService(createApiKeysRepo(storage.db)).create({ name: 'quality' });
  const app = await buildApp({ config: loadConfig({ DATABASE_URL: url, MAQAM_SECRET: 'x'.repeat(40), MAQAM_RATE_LIMIT: '0' }), storage, logger: false });
  return {
    async engine(q) {
      const res = await app.inject({ method: 'GET', url: `/v1/search?${new URLSearchParams({ q, page_size: '5' })}`, headers: { 'x-api-key': key } });
      if (res.statusCode !== 200) throw new Error(`search ${q}: ${res.statusCode} ${res.body}`);
      return (res.json() as { results: Record<string, { id: { value: string } }>[] }).results.map((result) => {
        const [kind, item] = Object.entries(result)[0]!;
        return `${kind}:${item.id.value}`;
      });
    },
    async close() {
      await app.close();
      await storage.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function miniSearchEngine(): Engine {
  const index = new MiniSearch<{ id: string; text: string }>({ fields: ['text'], storeFields: ['id'] });
  index.addAll(documents(QUALITY_RECORDS));
  return async (q) => index.search(q, { prefix: true, fuzzy: 0.2, combineWith: 'OR' }).slice(0, 5).map((hit) => String(hit.id));
}

export async function oramaEngine(): Promise<Engine> {
  const db = create({ schema: { id: 'string', text: 'string' } as const });
  for (const doc of documents(QUALITY_RECORDS)) await insert(db, doc);
  return async (q) => (await oramaSearch(db, { term: q, properties: ['text'], limit: 5 })).hits.map((hit) => String(hit.document.id));
}
