// Prints the query plan of every list query of the catalog, as the repository
// runs it: each query is run once with a logger that captures its SQL and
// parameters, then explained (EXPLAIN QUERY PLAN on SQLite, EXPLAIN on
// PostgreSQL). A plan that scans the songs table is reported as a failure.
//
//   DATABASE_URL=sqlite:bench/.data/bench-1000000.db node bench/catalog-pages/explain.ts
import { CompiledQuery } from 'kysely';
import { createCatalogRepo, openStorage } from '@maqam/server';

const url = process.env.DATABASE_URL!;
const captured: { sql: string; parameters: readonly unknown[] }[] = [];
const storage = openStorage(url, { logQuery: (sql, parameters) => captured.push({ sql, parameters }) });
const repo = createCatalogRepo(storage);

const lists: [string, () => Promise<unknown>][] = [
  ['GetAlbumTracks, first page', () => repo.albumTracks('album-1', null, 21)],
  ['GetAlbumTracks, next page', () => repo.albumTracks('album-1', [1, 3, 'song-1'], 21)],
  ['GetArtistDiscography', () => repo.artistAlbums('artist-1', undefined, ['2000-01-01', 'album-1'], 21)],
  ['GetArtistDiscography with album_type', () => repo.artistAlbums('artist-1', 'ALBUM_TYPE_SINGLE', ['2000-01-01', 'album-1'], 21)],
  ['GetArtistTopTracks', () => repo.artistTopTracks('artist-1', 10)],
  ['GetRelatedArtists, next page', () => repo.relatedArtists('artist-1', [0.5, 'artist-9'], 21)],
  ['Album totals (trackCount, totalDurationMs)', () => repo.albumTotals(['album-1', 'album-2'])],
  ['GetLyrics', () => repo.lyrics('song-1')],
];

let scans = 0;
for (const [name, run] of lists) {
  captured.length = 0;
  await run();
  const { sql, parameters } = captured[0]!;
  const explain = storage.dialect === 'sqlite' ? 'explain query plan ' : 'explain ';
  const plan = await storage.db.executeQuery<Record<string, unknown>>(CompiledQuery.raw(explain + sql, [...parameters]));
  const lines = plan.rows.map((row) => String(storage.dialect === 'sqlite' ? row.detail : row['QUERY PLAN']));
  const scansSongs = lines.some((line) => /^SCAN songs\b/.test(line) || /Seq Scan on songs\b/.test(line));
  if (scansSongs) scans++;
  console.log(`${name}${scansSongs ? '  <-- SCANS songs' : ''}\n\n    ${sql}\n\n${lines.map((line) => `    ${line}`).join('\n')}\n`);
}
await storage.close();
if (scans > 0) {
  console.error(`${scans} list queries scan the songs table`);
  process.exitCode = 1;
}
