// bench/video/miss-path.ts: what one item the fragment cache lacks costs to read and render, song against film
// and episode, in one process (no HTTP, no load generator), on the SQLite catalog bench/video/profile.ts
// imports (run it first). Each kind's read path as the server runs it (its FragmentKind's render through
// fragmentsOf, over a cache of 0 bytes, so every id is rendered), split into:
//
// - the statement as the repo runs it (catalog.repo.ts songTemplates; video.repo.ts movieTemplatesByIds, episodeTemplatesByIds);
// - the same SQL counting its rows (the songs': the length of their templates' concatenation) instead of
//   returning them: the database's work without turning each row's columns into a JS object (SQLite only;
//   the SQL mirrors the repos' and may drift from them);
// - the render: the rest of the read path (every kind's templates expanded).
//
// Ids: 100 a call, from the first 200 bodies of each kind's Zipf stream. The kinds alternate in BENCH_ROUNDS
// rounds (5), each BENCH_CALLS calls (400); the medians are printed.
//
//   node bench/video/miss-path.ts
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { sql } from 'kysely';
import { createCatalogRepo, openStorage } from '@maqam/server';
import { ArtistNames } from '../../packages/server/src/catalog/artist-names.ts';
import { BufferPool } from '../../packages/server/src/catalog/buffer-pool.ts';
import { createCatalogService } from '../../packages/server/src/catalog/catalog.service.ts';
import { FragmentCache } from '../../packages/server/src/catalog/fragment-cache.ts';
import { createFragmentReads } from '../../packages/server/src/catalog/fragment-reads.ts';
import type { PageCursorCodec } from '../../packages/server/src/catalog/page-cursor.ts';
import { LocaleNegotiator } from '../../packages/server/src/locale/negotiation.ts';
import { NO_CAP } from '../../packages/server/src/video/age-rating.ts';
import { createVideoRepo } from '../../packages/server/src/video/video.repo.ts';
import { createVideoService } from '../../packages/server/src/video/video.service.ts';
import { median } from '../lib/compare.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const DATA = join(ROOT, 'bench/.data/video');
const DB = join(DATA, 'profile.db');
const EPISODES = Number(process.env.BENCH_EPISODES ?? 100_000);
const MOVIES = Number(process.env.BENCH_MOVIES ?? 100_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CALLS = Number(process.env.BENCH_CALLS ?? 400);
if (!existsSync(DB)) throw new Error(`${DB} is missing: run node bench/video/profile.ts first`);

const storage = openStorage(`sqlite:${DB}`);
const catalogRepo = createCatalogRepo(storage);
const videoRepo = createVideoRepo(storage);
const reads = createFragmentReads({ cache: new FragmentCache(0), buffers: new BufferPool(8 << 20) });
const cursors = {} as PageCursorCodec;
const publicUrl = 'http://127.0.0.1:18000';
const catalog = createCatalogService({ repo: catalogRepo, reads, artistNames: new ArtistNames(catalogRepo), cursors, publicUrl });
const video = createVideoService({ repo: videoRepo, reads, catalog, cursors, publicUrl });
const negotiator = new LocaleNegotiator('ar');
negotiator.setCatalogLanguages(['ar', 'en']);
const negotiation = negotiator.negotiate('en')!;

const idLists = (file: string, member: string) =>
  readFileSync(join(DATA, file), 'utf8').split('\n').slice(0, 200).map((line) => (JSON.parse(line) as Record<string, { value: string }[]>)[member]!.map((id) => id.value));

// The repos' SQL with its rows counted (video.repo.ts, catalog.repo.ts): the statement without rows to JS.
const counted = {
  // The templates' concatenation is the database's work too: its length stands for the value.
  song: (ids: string) => sql`select length(cast(group_concat(template, '') as blob)) as n from song_templates where id in (select value from json_each(${ids}))`,
  movie: (ids: string) => sql`select sum(length(m.template)) as n from movies as m where m.id in (select value from json_each(${ids})) and m.withdrawn = 0 and m.rating_rank <= ${NO_CAP}`,
  episode: (ids: string) => sql`select sum(length(e.template)) + count(se.show_id) + sum(se.season_number) as n from episodes as e inner join seasons as se on se.id = e.season_id inner join shows as sh on sh.id = se.show_id
    where e.id in (select value from json_each(${ids})) and e.withdrawn = 0 and se.withdrawn = 0 and sh.withdrawn = 0 and e.rating_rank <= ${NO_CAP} and sh.rating_rank <= ${NO_CAP}`,
};

const kinds = [
  { name: 'song', ids: idLists(`bodies-songIdList-${EPISODES}.txt`, 'songIdList'), statement: (ids: string[]) => catalogRepo.songTemplates(ids), path: (ids: string[]) => catalog.fragments('song', ids, negotiation) },
  { name: 'movie', ids: idLists(`bodies-movieIdList-${MOVIES}.txt`, 'movieIdList'), statement: (ids: string[]) => videoRepo.movieTemplatesByIds(ids, NO_CAP), path: (ids: string[]) => video.fragments('movie', ids, negotiation, NO_CAP) },
  { name: 'episode', ids: idLists(`bodies-episodeIdList-${EPISODES}.txt`, 'episodeIdList'), statement: (ids: string[]) => videoRepo.episodeTemplatesByIds(ids, NO_CAP), path: (ids: string[]) => video.fragments('episode', ids, negotiation, NO_CAP) },
] as const;

/** CPU microseconds of this process (user and system: what others' processes on the machine do not add) a call. */
async function timed(lists: readonly string[][], call: (ids: string[]) => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 50; i++) await call(lists[i % lists.length]!);
  const started = process.cpuUsage();
  for (let i = 0; i < CALLS; i++) await call(lists[i % lists.length]!);
  const { user, system } = process.cpuUsage(started);
  return (user + system) / CALLS;
}

for (const kind of kinds) {
  const fragments = await kind.path(kind.ids[0]!);
  const found = fragments.filter((f) => f !== undefined);
  if (found.length !== 100) throw new Error(`${kind.name}: ${found.length} of 100 found`);
  console.log(`${kind.name}: ${Math.round(found.reduce((a, f) => a + f!.length, 0) / found.length)} bytes a fragment`);
}
const figures: Record<string, { path: number[]; statement: number[]; sqlOnly: number[] }> = {};
for (let round = 0; round < ROUNDS; round++) {
  const order = round % 2 === 0 ? kinds : [...kinds].reverse();
  for (const kind of order) {
    const f = (figures[kind.name] ??= { path: [], statement: [], sqlOnly: [] });
    const jsonLists = kind.ids.map((ids) => JSON.stringify(ids));
    f.path.push(await timed(kind.ids, kind.path));
    f.statement.push(await timed(kind.ids, kind.statement));
    let n = 0;
    f.sqlOnly.push(await timed(kind.ids, () => counted[kind.name](jsonLists[n++ % jsonLists.length]!).execute(storage.db)));
  }
  console.log(`round ${round + 1}: ${kinds.map((k) => `${k.name} ${figures[k.name]!.path.at(-1)!.toFixed(0)} us`).join(', ')} (100 ids, the whole read path)`);
}
await storage.close();

const song = median(figures.song!.path);
console.log(`\nCPU us a call of 100 ids, medians of ${ROUNDS} rounds of ${CALLS} calls; per item: / 100\n`);
console.log('| kind | read path | x song | statement (repo) | of it, SQL with rows counted | rows to JS objects | render (the rest) |');
console.log('|---|---:|---:|---:|---:|---:|---:|');
for (const kind of kinds) {
  const f = figures[kind.name]!;
  const [path, statement, sqlOnly] = [median(f.path), median(f.statement), median(f.sqlOnly)];
  console.log(`| ${kind.name} | ${path.toFixed(0)} | ${(path / song).toFixed(2)} | ${statement.toFixed(0)} | ${sqlOnly.toFixed(0)} | ${(statement - sqlOnly).toFixed(0)} | ${(path - statement).toFixed(0)} |`);
}
