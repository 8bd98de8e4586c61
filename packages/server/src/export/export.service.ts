import type { AgeRating, User } from '@maqam/contract';
import { DomainError } from '../errors.ts';
import { resolveLocalizedString } from '../locale/negotiation.ts';
import { rfc3339 } from '../library/rendered-items.ts';
import type { ExportRepo, PlayExportRow, SavedKind, StoredTitle } from './export.repo.ts';
import { capOf } from '../video/age-rating.ts';

/** Rows read a page at a time: what one page holds in memory, and one chunk of the document. */
const PAGE_ROWS = 500;
/** Titles resolved and kept, so a song played a thousand times is parsed once; emptied when full. */
const TITLES_KEPT = 10_000;

export interface ExportDeps {
  repo: ExportRepo;
  clock: () => number;
}

/** A user's export, ready to stream: who it is, and the document as text chunks, one page of rows each. */
export interface OpenedExport {
  readonly user: User;
  readonly exportedAt: number;
  readonly chunks: AsyncIterable<string>;
}

const SAVED_LISTS: readonly { member: string; kind: SavedKind; idMember: string; titleMember: string; timeMember: string }[] = [
  { member: 'savedSongs', kind: 'song', idMember: 'songId', titleMember: 'title', timeMember: 'savedAt' },
  { member: 'savedAlbums', kind: 'album', idMember: 'albumId', titleMember: 'title', timeMember: 'savedAt' },
  { member: 'followedArtists', kind: 'artist', idMember: 'artistId', titleMember: 'name', timeMember: 'followedAt' },
];

/**
 * A person's own data as one JSON document (contract: UserExport), written
 * as it is read: each list is read in keyset pages and each page becomes one
 * chunk, so the document is never whole in memory, and a reader that takes
 * it slowly (a phone's connection) holds the next page back (the stream
 * pulls a chunk only when the last one has been taken). The same document
 * for the HTTP route and `maqam users export`.
 */
export function createExportService({ repo, clock }: ExportDeps) {
  return {
    /** The export of `userId` with texts in the languages of `chain`; DomainError accessTokenInvalid (401) if the user is gone. */
    async open(userId: string, chain: readonly string[]): Promise<OpenedExport> {
      const row = await repo.user(userId);
      if (row === undefined) throw new DomainError('accessTokenInvalid');
      const user: User = {
        id: row.id, username: row.username, displayName: row.username, createdAt: rfc3339(row.createdAt),
        ...(row.maxAgeRating !== null && { maxAgeRating: row.maxAgeRating as AgeRating }),
      };
      const exportedAt = clock();
      return { user, exportedAt, chunks: documentChunks(repo, user, exportedAt, titleResolver(chain)) };
    },
  };
}

export type ExportService = ReturnType<typeof createExportService>;

/** A stored title in the chain's language, or undefined where the catalog has no such item. */
function titleResolver(chain: readonly string[]): (stored: StoredTitle) => string | undefined {
  const kept = new Map<string, string>();
  return ({ texts, language }) => {
    if (texts === null || language === null) return undefined;
    const key = `${language}\u0000${texts}`;
    let resolved = kept.get(key);
    if (resolved === undefined) {
      if (kept.size >= TITLES_KEPT) kept.clear();
      resolved = resolveLocalizedString(JSON.parse(texts) as Record<string, string>, language, chain).value;
      kept.set(key, resolved);
    }
    return resolved;
  };
}

/** `,"name":` then the items of a list, page by page, as `[...]`. */
async function* list<Row>(name: string, pages: AsyncIterable<readonly Row[]>, render: (row: Row) => string): AsyncGenerator<string> {
  let text = `,${JSON.stringify(name)}:[`;
  let count = 0;
  for await (const page of pages) {
    for (const row of page) text += (count++ === 0 ? '' : ',') + render(row);
    yield text;
    text = '';
  }
  yield `${text}]`;
}

/** Every page a keyset read gives, each read after the last row of the one before. */
async function* pagesOf<Row, Position>(read: (after: Position | null) => Promise<Row[]>, positionOf: (row: Row) => Position): AsyncGenerator<Row[]> {
  let after: Position | null = null;
  for (;;) {
    const rows = await read(after);
    if (rows.length > 0) yield rows;
    if (rows.length < PAGE_ROWS) return;
    after = positionOf(rows[rows.length - 1]!);
  }
}

/** GetHistory's order: the newest play first, then by playId. */
const newerFirst = (a: PlayExportRow, b: PlayExportRow) => a.startedAt > b.startedAt || (a.startedAt === b.startedAt && a.playId < b.playId);

/** The rows of two ordered page streams as one ordered stream of rows (`before(a, b)`: a comes first). */
async function* merged<Row>(first: AsyncIterable<readonly Row[]>, second: AsyncIterable<readonly Row[]>, before: (a: Row, b: Row) => boolean): AsyncGenerator<Row> {
  const rowsOf = async function* (pages: AsyncIterable<readonly Row[]>) {
    for await (const page of pages) yield* page;
  };
  const a = rowsOf(first);
  const b = rowsOf(second);
  let nextA = await a.next();
  let nextB = await b.next();
  while (!nextA.done || !nextB.done) {
    if (nextB.done || (!nextA.done && before(nextA.value, nextB.value))) {
      yield nextA.value as Row;
      nextA = await a.next();
    } else {
      yield nextB.value;
      nextB = await b.next();
    }
  }
}

/** Rows as pages of PAGE_ROWS: a chunk of the document each. */
async function* inPages<Row>(rows: AsyncIterable<Row>): AsyncGenerator<Row[]> {
  let page: Row[] = [];
  for await (const row of rows) {
    page.push(row);
    if (page.length === PAGE_ROWS) {
      yield page;
      page = [];
    }
  }
  if (page.length > 0) yield page;
}

const withTitle = (member: string, value: string | undefined) => (value === undefined ? '' : `,${JSON.stringify(member)}:${JSON.stringify(value)}`);
const typedId = (value: string) => `{"value":${JSON.stringify(value)}}`;

async function* documentChunks(repo: ExportRepo, user: User, exportedAt: number, titleOf: (stored: StoredTitle) => string | undefined): AsyncGenerator<string> {
  const userId = user.id;
  yield `{"exportedAt":"${rfc3339(exportedAt)}","user":${JSON.stringify(user)}`;

  for (const { member, kind, idMember, titleMember, timeMember } of SAVED_LISTS) {
    yield* list(member, pagesOf((after: readonly [number, string] | null) => repo.saved(userId, kind, after, PAGE_ROWS), (row) => [row.savedAt, row.id] as const),
      (row) => `{"${idMember}":${typedId(row.id)}${withTitle(titleMember, titleOf(row))},"${timeMember}":"${rfc3339(row.savedAt)}"}`);
  }

  // Counted plays and skips are read apart (export.repo.ts plays) and merged into one order here.
  const walk = (counted: boolean) => pagesOf((after: readonly [number, string] | null) => repo.plays(userId, counted, after, PAGE_ROWS), (row) => [row.startedAt, row.playId] as const);
  yield* list('plays', inPages(merged(walk(true), walk(false), newerFirst)),
    (row) => `{"playId":${JSON.stringify(row.playId)},"songId":${typedId(row.songId)}${withTitle('title', titleOf(row))},"startedAt":"${rfc3339(row.startedAt)}",`
      + `"msPlayed":${row.msPlayed},"counted":${row.counted}${row.context === null ? '' : `,"context":${row.context}`}}`);

  // Each playlist opens its object, then its entries page by page: a playlist of 10,000 entries is never one chunk.
  yield ',"playlists":[';
  let playlists = 0;
  for await (const page of pagesOf((after: readonly [number, string] | null) => repo.playlists(userId, after, PAGE_ROWS), (row) => [row.createdAt, row.id] as const)) {
    for (const playlist of page) {
      yield `${playlists++ === 0 ? '' : ','}{"id":${typedId(playlist.id)},"name":${JSON.stringify(playlist.name)},"description":${JSON.stringify(playlist.description)},`
        + `"visibility":"${playlist.visibility}","createdAt":"${rfc3339(playlist.createdAt)}","updatedAt":"${rfc3339(playlist.updatedAt)}","version":"${playlist.version}"`;
      let position = 0;
      yield* list('items', pagesOf((after: readonly [string, string] | null) => repo.playlistItems(userId, playlist.id, after, PAGE_ROWS), (row) => [row.orderKey, row.itemId] as const),
        (row) => `{"itemId":${JSON.stringify(row.itemId)},"position":${position++},"songId":${typedId(row.songId)}${withTitle('title', titleOf(row))},"addedAt":"${rfc3339(row.addedAt)}"}`);
      yield '}';
    }
  }
  yield ']';

  yield* list('watchPositions', pagesOf((after: readonly [number, 'movie' | 'episode', string] | null) => repo.watchPositions(userId, capOf(user.maxAgeRating), after, PAGE_ROWS), (row) => [row.updatedAt, row.kind, row.id] as const),
    (row) => `{"${row.kind === 'movie' ? 'movieId' : 'episodeId'}":${typedId(row.id)}${withTitle('title', titleOf(row))},"positionMs":${row.positionMs},`
      + `"updatedAt":"${rfc3339(row.updatedAt)}","finished":${row.finished},"hidden":${row.hidden}}`);
  yield '}';
}

/** The file an export is saved as: `maqam-export-<username>-<UTC date>.json`. */
export function exportFileName(user: Pick<User, 'username'>, exportedAt: number): string {
  return `maqam-export-${user.username}-${rfc3339(exportedAt).slice(0, 10)}.json`;
}
