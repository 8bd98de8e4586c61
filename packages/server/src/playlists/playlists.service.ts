import { randomBytes } from 'node:crypto';
import { MAX_PLAYLIST_DESCRIPTION, MAX_PLAYLIST_NAME, MAX_PLAYLISTS_PER_USER, type PlaylistVisibility } from '@maqam/contract';
import { DomainError, invalidRequest, localizedError, type MessageLocale, type Violation } from '../errors.ts';
import type { Negotiation } from '../locale/negotiation.ts';
import type { CatalogFragments } from '../catalog/catalog.service.ts';
import { keysetPage, type PageCursorCodec, type PageRequest } from '../catalog/page-cursor.ts';
import { listAnswer, type AnswerPart } from '../catalog/answer-writer.ts';
import { rfc3339 } from '../library/rendered-items.ts';
import { firstKeys, keyBefore018, keysBetween } from './order-keys.ts';
import { coverAfter, type CoverEntry, type NewEntry, type PlayableSong, type PlaylistChanges, type PlaylistRead, type PlaylistRow, type PlaylistWrite, type PlaylistsRepo, type Spot } from './playlists.repo.ts';
import type { BeforeCommit, UserStore } from '../library/user-write.ts';

/** Who reads: a user (their token), or an API key (no user). */
export interface Reader {
  readonly userId: string | undefined;
}

/** An entry as answered: where it stands now. */
export interface PlacedEntry {
  readonly itemId: string;
  readonly position: number;
  readonly addedAt: number;
  readonly songId: string;
}

/** A read's answer: its version (the ETag), and its body, rendered only when the client lacks it. */
export interface VersionedAnswer {
  readonly version: number;
  body(): Promise<Buffer>;
}

/** Songs' rendered fragments by id, read before a write that answers them (undefined: withdrawn). */
export type SongFragments = ReadonlyMap<string, Buffer | undefined>;

/** What a write of entries did: the playlist as it now is, and the entries it placed. */
export interface EntriesWritten {
  readonly playlist: PlaylistRow;
  readonly entries: PlacedEntry[];
}

/** If-Match's versions (strong comparison, RFC 9110 §13.1.1); undefined: no precondition (also `*`, as the playlist must exist). */
export type IfMatch = readonly string[] | undefined;

export interface PlaylistServiceDeps {
  /** The playlists' reads. */
  repo: Pick<PlaylistsRepo, 'read' | 'owned'>;
  /** The user's writes, with their playlists bound to each (user-write.ts). */
  writes: UserStore<{ playlists: PlaylistWrite }>;
  catalog: CatalogFragments;
  /** Page tokens (bound to the list they page). */
  cursors: PageCursorCodec;
  clock: () => number;
  /** MAQAM_PLAYLIST_MAX_ITEMS. */
  maxItems: number;
  /** Where the server's drawn artwork is (MAQAM_PUBLIC_URL). */
  publicUrl: string;
}

const PUBLIC: PlaylistVisibility = 'PLAYLIST_VISIBILITY_PUBLIC';
/** A page token of a playlist's entries: the version its walk began at, and the key and position of the last entry it showed. */
type ItemsPosition = readonly [since: number, orderKey: string, position: number];
const ITEMS_POSITION: readonly ('string' | 'number')[] = ['number', 'string', 'number'];
/** A token made while keys were whole numbers (before migration 018), with the last entry's id: still good, its key written as text. */
type WholeKeyPosition = readonly [since: number, orderKey: number, itemId: string, position: number];
const WHOLE_KEY_POSITION: readonly ('string' | 'number')[] = ['number', 'number', 'string', 'number'];
type OwnedPosition = readonly [createdAt: number, id: string];

/** The most entries a page's walk reads at a time (entriesPage). */
const MAX_WALK_CHUNK = 1024;

const newId = (bytes: number) => randomBytes(bytes).toString('base64url');
const distinct = (ids: readonly string[]) => [...new Set(ids)];
/** Characters as a reader counts them: code points, not UTF-16 units. */
const lengthOf = (text: string) => [...text].length;

/**
 * Playlists (contract section 14). The owner reads and writes; anyone with a
 * token or an API key reads a public one; nobody else learns a private one
 * exists (404, as an unknown id). Every write makes the version one more and
 * is one of the owner's library writes, so it is numbered in their change
 * feed and takes turns with their other writes on every node: a write's
 * If-Match is checked against the version no other write can change before
 * it commits.
 */
export function createPlaylistService({ repo, writes, catalog, cursors, clock, maxItems, publicUrl }: PlaylistServiceDeps) {
  const userGone = () => new DomainError('accessTokenInvalid');
  const notFound = (id: string) => new DomainError('playlistNotFound', { params: { id } });

  const readable = (playlist: PlaylistRow, reader: Reader) => playlist.visibility === PUBLIC || playlist.ownerId === reader.userId;

  /** The playlist a user is about to change (as read): theirs, or a refusal that tells nothing of a private one. */
  function ownedForWrite(playlist: PlaylistRow | undefined, userId: string, id: string, ifMatch: IfMatch): PlaylistRow {
    if (playlist === undefined || !readable(playlist, { userId })) throw notFound(id);
    if (playlist.ownerId !== userId) throw new DomainError('playlistNotYours', { params: { id } });
    if (ifMatch !== undefined && !ifMatch.includes(String(playlist.version))) {
      throw new DomainError('playlistModified', { params: { expected: ifMatch.join(', '), version: playlist.version } });
    }
    return playlist;
  }

  /**
   * One of the user's writes; a user whose token is live but whose account is gone is answered as the token: 401.
   * The work answers something (not undefined), which is how a gone user is told apart.
   */
  async function write<T extends object | boolean>(userId: string, work: (write: PlaylistWrite, now: number) => Promise<T>, beforeCommit?: BeforeCommit<T>): Promise<T> {
    const result = await writes.write(userId, async ({ playlists: session }) => work(session, clock()), beforeCommit);
    if (result === undefined) throw userGone();
    return result;
  }

  function checkedTexts(texts: { name?: string | undefined; description?: string | undefined }): { name?: string; description?: string } {
    const violations: Violation[] = [];
    // A lone surrogate would be stored as U+FFFD without a word: the text is refused, not changed.
    for (const field of ['name', 'description'] as const) {
      if (texts[field] !== undefined && !texts[field].isWellFormed()) violations.push({ field, reason: 'textNotWellFormed' });
    }
    if (violations.length > 0) throw invalidRequest(...violations);
    const name = texts.name?.trim();
    const description = texts.description?.trim();
    if (name !== undefined && (lengthOf(name) < 1 || lengthOf(name) > MAX_PLAYLIST_NAME)) {
      violations.push({ field: 'name', reason: 'trimmedLength', params: { min: 1, max: MAX_PLAYLIST_NAME } });
    }
    if (description !== undefined && lengthOf(description) > MAX_PLAYLIST_DESCRIPTION) {
      violations.push({ field: 'description', reason: 'trimmedLength', params: { min: 0, max: MAX_PLAYLIST_DESCRIPTION } });
    }
    if (violations.length > 0) throw invalidRequest(...violations);
    return { ...(name !== undefined && { name }), ...(description !== undefined && { description }) };
  }

  /** The songs' durations, in order, from what was read of them; a 400 naming every song the catalog does not show, before anything changes. */
  function playable(songs: ReadonlyMap<string, PlayableSong>, songIds: readonly string[]): number[] {
    const violations = songIds.flatMap((id, i): Violation[] => (songs.has(id) ? [] : [{ field: `songIdList[${i}].value`, reason: 'songUnknown' }]));
    if (violations.length > 0) throw invalidRequest(...violations);
    return songIds.map((id) => songs.get(id)!.durationMs);
  }

  /** A 400 when a playlist of `count` entries cannot take `adding` more. */
  function checkRoom(count: number, adding: number): void {
    if (count + adding > maxItems) {
      throw new DomainError('playlistFull', {
        params: { limit: maxItems, count, adding },
        violations: [{ field: 'songIdList', reason: 'maxItems', params: { limit: maxItems - count } }],
      });
    }
  }

  /**
   * Keys for `count` entries just before the entry `beforeItemId` (at the
   * end without it), where its spot was read (PlaylistWrite.spot): there is
   * always room (order-keys.ts), so no other entry's key changes.
   */
  function keysFor(spot: Spot | null | undefined, count: number, beforeItemId: string | undefined): string[] {
    if (beforeItemId === undefined) return keysBetween(spot?.keyBefore ?? null, null, count)!;
    if (spot == null) throw new DomainError('playlistEntryNotFound', { params: { id: beforeItemId } });
    const keys = keysBetween(spot.keyBefore, spot.key, count);
    // Hundreds of entries put one at a time between the same two: order-keys.ts says why keys are bounded.
    if (keys === null) throw new DomainError('playlistSpotFull', { params: { id: beforeItemId } });
    return keys;
  }

  /**
   * The playlist's cover after a write that places `placed` and leaves out
   * `excluding`, from the first entries read with it (`scanned`), or, when
   * they do not tell (coverAfter), from all of them, read now: ask it
   * before writing.
   */
  async function coverOf(session: PlaylistWrite, playlistId: string, scanned: Parameters<typeof coverAfter>[0], placed: readonly CoverEntry[], excluding: readonly string[]) {
    const known = coverAfter(scanned, placed);
    if (known !== undefined) return known;
    const [all] = await session.read(session.coverScan(playlistId, excluding, null));
    return coverAfter(all, placed)!;
  }

  /**
   * The end of a write of entries: the playlist's count, total and cover as
   * they now are, its next version and time, and the change in the owner's feed.
   */
  function finishEntriesWrite(
    session: PlaylistWrite, playlist: PlaylistRow, now: number, changes: Pick<PlaylistChanges, 'itemCount' | 'totalDurationMs' | 'coverAlbumIds'>,
  ): PlaylistRow {
    const written: PlaylistChanges = { version: playlist.version + 1, updatedAt: now, ...changes };
    session.update(playlist.id, written);
    session.record({ kind: 'playlist', id: playlist.id, change: 'CHANGE_UPDATED' }, now);
    return { ...playlist, ...written };
  }

  /** The first four distinct albums of these songs (all shown), in order: the cover of a playlist of them alone. */
  const coverOfSongs = (entries: readonly NewEntry[], songs: ReadonlyMap<string, PlayableSong>) =>
    coverAfter({ entries: [], all: true }, entries.map((entry) => ({ orderKey: entry.orderKey, itemId: entry.itemId, albumId: songs.get(entry.songId)!.albumId })))!;

  /**
   * Entries added by the write of `version`. Their ids are that version and
   * their index (unique in the playlist, as no two writes share a version),
   * so one write's entries sit side by side in the primary key's index: an
   * add of 100 writes a page or two of it, not 100 (bench/README.md at 9b0c7f5, "playlists under load").
   */
  const newEntries = (songIds: readonly string[], durations: readonly number[], keys: readonly string[], now: number, version: number): NewEntry[] =>
    songIds.map((songId, i) => ({
      itemId: `${version.toString(36)}.${i.toString(36)}`, orderKey: keys[i]!, songId, durationMs: durations[i]!, addedAt: now, placedVersion: version,
    }));

  // ---- Answers ----

  function coverArtwork(albumIds: readonly string[]) {
    if (albumIds.length === 0) return [];
    // Four albums make a mosaic; fewer, the first one's cover.
    const drawn = albumIds.length >= 4 ? albumIds.slice(0, 4) : albumIds.slice(0, 1);
    return [{ url: `${publicUrl}/artwork/mosaics/${drawn.map(encodeURIComponent).join('/')}.svg`, width: 300, height: 300 }];
  }

  function playlistJson(playlist: PlaylistRow) {
    return {
      id: { value: playlist.id },
      name: { value: playlist.name, originalValue: playlist.name },
      description: { value: playlist.description, originalValue: playlist.description },
      visibility: playlist.visibility,
      ownerId: playlist.ownerId,
      ownerName: playlist.ownerName,
      coverArtwork: coverArtwork(playlist.coverAlbumIds),
      itemCount: playlist.itemCount,
      totalDurationMs: String(playlist.totalDurationMs),
      createdAt: rfc3339(playlist.createdAt),
      updatedAt: rfc3339(playlist.updatedAt),
      version: String(playlist.version),
    };
  }


  /**
   * The rendered `{"song":{...}}` fragments of these songs, by id (undefined
   * where withdrawn). A write that answers entries reads them before it
   * begins: its answer is then made inside its transaction from what was
   * read, and can neither fail nor wait once the write has committed.
   */
  async function songFragments(songIds: readonly string[], negotiation: Negotiation): Promise<SongFragments> {
    const ids = distinct(songIds);
    const fragments = await catalog.fragments('song', ids, negotiation);
    return new Map(ids.map((id, i) => [id, fragments[i]]));
  }

  /**
   * `{<members>,"items":[...],"nextPageToken"?}`: each entry as
   * `{"itemId","position","addedAt","song"}`, or with `error` where its song
   * is withdrawn, written once; the entry's own members as text, then the
   * song's rendered bytes, each copied once, into the answer.
   */
  function entriesBody(
    members: Record<string, unknown>, entries: readonly PlacedEntry[], nextPageToken: string | undefined, fragments: SongFragments, locale: MessageLocale,
  ): Buffer {
    const items = entries.map((entry): readonly AnswerPart[] => {
      const head = `{"itemId":${JSON.stringify(entry.itemId)},"position":${entry.position},"addedAt":"${rfc3339(entry.addedAt)}",`;
      const fragment = fragments.get(entry.songId);
      // The fragment is `{"song":{...}}`: its members follow the entry's.
      if (fragment !== undefined) return [head, fragment.subarray(1)];
      return [`${head}"error":${JSON.stringify(localizedError('songNotFound', { id: entry.songId }, locale))}}`];
    });
    const json = JSON.stringify(members);
    return listAnswer('items', items, nextPageToken, Buffer.allocUnsafe, json.length > 2 ? `${json.slice(1, -1)},` : '');
  }

  async function entriesAnswer(members: Record<string, unknown>, entries: readonly PlacedEntry[], nextPageToken: string | undefined, negotiation: Negotiation): Promise<Buffer> {
    return entriesBody(members, entries, nextPageToken, await songFragments(entries.map((entry) => entry.songId), negotiation), negotiation.messageLocale);
  }

  /**
   * The readable playlist and a page of its entries in order, on one
   * snapshot. A walk that goes on from a page token (made at the version its
   * first page was read) shows the entries that were there then and have not
   * moved since: an entry moved or added later is left out (it is new to the
   * walk), so none shows twice and none that stayed is skipped. It goes on
   * after the key of the last entry it showed, which is still that place in
   * the playlist whatever moved since, that entry too: no entry's key changes
   * but by its own move (order-keys.ts). The playlist and the first entries
   * are asked together: on PostgreSQL a page is a round trip and COMMIT.
   */
  async function playlistPage(read: PlaylistRead, id: string, reader: Reader, request: PageRequest): Promise<{ playlist: PlaylistRow; entries: PlacedEntry[]; nextPageToken: string }> {
    const scope = `playlist-items\u0000${id}`;
    const token = request.token !== undefined && request.token.value !== ''
      ? cursors.decode<ItemsPosition>(request.token.value, scope, ITEMS_POSITION) ?? await positionBefore018(read, id, request.token.value, scope)
      : undefined;
    const afterKey = token?.[1] ?? null;
    // A page and one more, in one query as a rule; entries new to the walk are passed over, so each further
    // query reads four times as many, up to MAX_WALK_CHUNK: a walk begun before a replace of 10,000 entries,
    // paged one at a time, read them two a query (about 5,000 queries in one request), now in about a dozen.
    let chunk = request.size + 1;
    const [playlist, firstRows] = await read.read(read.find(id), read.entriesAfter(id, afterKey, chunk));
    // Unknown or not the reader's: 404 before anything is said of the token.
    if (playlist === undefined || !readable(playlist, reader)) throw notFound(id);
    if (token === null) throw invalidRequest({ field: request.token!.field, reason: 'pageToken' });
    const since = token?.[0] ?? playlist.version;
    // Unchanged since the walk began: the positions go on from where they were. Else every entry up to the last one shown counts.
    let position = token !== undefined && playlist.version === since ? token[2] + 1 : afterKey === null ? 0 : (await read.read(read.countUpTo(id, afterKey)))[0];
    // The page, and whether an entry follows it; the last entry's key, for the token.
    const page: PlacedEntry[] = [];
    let more = false;
    let lastKey = '';
    for (let rows = firstRows; ; chunk = Math.min(chunk * 4, MAX_WALK_CHUNK)) {
      for (const row of rows) {
        if (row.placedVersion <= since) {
          if (page.length === request.size) {
            more = true;
            break;
          }
          page.push({ itemId: row.itemId, position, addedAt: row.addedAt, songId: row.songId });
          lastKey = row.orderKey;
        }
        position++;
      }
      if (more || rows.length < chunk) break;
      [rows] = await read.read(read.entriesAfter(id, rows[rows.length - 1]!.orderKey, Math.min(chunk * 4, MAX_WALK_CHUNK)));
    }
    const last = page[page.length - 1];
    const nextPageToken = more && last !== undefined ? cursors.encode(scope, [since, lastKey, last.position]) : '';
    return { playlist, entries: page, nextPageToken };
  }

  /**
   * A page token made before keys were text, as one of now: after its last
   * entry's key if that entry has not moved since, else after its key as
   * migration 018 wrote it (which a renumbering in the hours before the
   * upgrade may have moved; a token is good for a day).
   */
  async function positionBefore018(read: PlaylistRead, playlistId: string, token: string, scope: string): Promise<ItemsPosition | null> {
    const position = cursors.decode<WholeKeyPosition>(token, scope, WHOLE_KEY_POSITION);
    if (position === null) return null;
    const [since, key, itemId, shownAt] = position;
    const [[anchor]] = await read.read(read.entriesById(playlistId, [itemId]));
    return [since, anchor !== undefined && anchor.placedVersion <= since ? anchor.orderKey : keyBefore018(key), shownAt];
  }

  return {
    playlistJson,
    songFragments,
    entriesBody,

    async create(
      userId: string, details: { name: string; description?: string | undefined; visibility?: PlaylistVisibility | undefined; songIds: readonly string[] },
      beforeCommit?: BeforeCommit<PlaylistRow>,
    ): Promise<PlaylistRow> {
      const texts = checkedTexts({ name: details.name, description: details.description ?? '' });
      return write(userId, async (session, now) => {
        const [owner, songs] = await session.read(session.owner(userId), session.playableSongs(distinct(details.songIds)));
        if (owner.owned >= MAX_PLAYLISTS_PER_USER) {
          throw new DomainError('tooManyPlaylists', {
            params: { limit: MAX_PLAYLISTS_PER_USER },
            violations: [{ field: 'body', reason: 'playlistsPerUser', params: { limit: MAX_PLAYLISTS_PER_USER } }],
          });
        }
        checkRoom(0, details.songIds.length);
        const durations = playable(songs, details.songIds);
        const id = newId(12);
        const version = 1;
        const entries = newEntries(details.songIds, durations, firstKeys(details.songIds.length), now, version);
        const playlist: PlaylistRow = {
          id, ownerId: userId, ownerName: owner.name, name: texts.name!, description: texts.description!, visibility: details.visibility ?? 'PLAYLIST_VISIBILITY_PRIVATE',
          createdAt: now, updatedAt: now, version, itemCount: entries.length, totalDurationMs: durations.reduce((a, b) => a + b, 0), coverAlbumIds: coverOfSongs(entries, songs),
        };
        session.insert(playlist);
        session.insertEntries(id, entries);
        session.record({ kind: 'playlist', id, change: 'CHANGE_SAVED' }, now);
        return playlist;
      }, beforeCommit);
    },

    /** The user's playlists, newest first, then id: `{"playlists":[...],"nextPageToken"}`. */
    async owned(userId: string, request: PageRequest): Promise<Buffer> {
      const { rows: page, nextPageToken } = await keysetPage<OwnedPosition>(cursors, request, `playlists\u0000${userId}`, ['number', 'string'])
        .read((after, limit) => repo.owned(userId, after, limit), (row) => [row.createdAt, row.id]);
      return Buffer.from(JSON.stringify({ playlists: page.map(playlistJson), nextPageToken }));
    },

    /** GetPlaylist: the playlist and the first page of its entries, `{"playlist","items","nextPageToken"}`. */
    async get(id: string, reader: Reader, request: PageRequest, negotiation: Negotiation): Promise<VersionedAnswer> {
      const { playlist, entries, nextPageToken } = await repo.read((read) => playlistPage(read, id, reader, request));
      return { version: playlist.version, body: () => entriesAnswer({ playlist: playlistJson(playlist) }, entries, nextPageToken, negotiation) };
    },

    /** GetPlaylistItems: a page of its entries, `{"version","items","nextPageToken"}`. */
    async items(id: string, reader: Reader, request: PageRequest, negotiation: Negotiation): Promise<VersionedAnswer> {
      const { playlist, entries, nextPageToken } = await repo.read((read) => playlistPage(read, id, reader, request));
      return { version: playlist.version, body: () => entriesAnswer({ version: String(playlist.version) }, entries, nextPageToken, negotiation) };
    },

    async update(
      userId: string, id: string, changes: { name?: string | undefined; description?: string | undefined; visibility?: PlaylistVisibility | undefined }, ifMatch: IfMatch,
    ): Promise<PlaylistRow> {
      const texts = checkedTexts(changes);
      return write(userId, async (session, now) => {
        const [found] = await session.read(session.find(id));
        const playlist = ownedForWrite(found, userId, id, ifMatch);
        const version = playlist.version + 1;
        const written: PlaylistChanges = { version, updatedAt: now, ...texts, ...(changes.visibility !== undefined && { visibility: changes.visibility }) };
        session.update(id, written);
        session.record({ kind: 'playlist', id, change: 'CHANGE_UPDATED' }, now);
        return { ...playlist, ...written };
      });
    },

    async delete(userId: string, id: string, ifMatch: IfMatch): Promise<void> {
      await write(userId, async (session, now) => {
        const [found] = await session.read(session.find(id));
        ownedForWrite(found, userId, id, ifMatch);
        session.delete(id);
        session.record({ kind: 'playlist', id, change: 'CHANGE_REMOVED' }, now);
        return true;
      });
    },

    async add(
      userId: string, id: string, songIds: readonly string[], beforeItemId: string | undefined, ifMatch: IfMatch, beforeCommit?: BeforeCommit<EntriesWritten>,
    ): Promise<EntriesWritten> {
      return write(userId, async (session, now) => {
        const [found, songs, spot, scanned] = await session.read(
          session.find(id), session.playableSongs(distinct(songIds)), session.spot(id, beforeItemId, [], true), session.coverScan(id, []),
        );
        const playlist = ownedForWrite(found, userId, id, ifMatch);
        checkRoom(playlist.itemCount, songIds.length);
        const durations = playable(songs, songIds);
        const keys = keysFor(spot, songIds.length, beforeItemId);
        const entries = newEntries(songIds, durations, keys, now, playlist.version + 1);
        const coverAlbumIds = await coverOf(session, id, scanned, entries.map((entry) => ({ orderKey: entry.orderKey, itemId: entry.itemId, albumId: songs.get(entry.songId)!.albumId })), []);
        session.insertEntries(id, entries);
        // Where the first one stands: after every entry, or where the entry it goes before stood.
        const first = beforeItemId === undefined ? playlist.itemCount : spot!.countBefore;
        const added = entries.map((entry, i): PlacedEntry => ({ itemId: entry.itemId, position: first + i, addedAt: entry.addedAt, songId: entry.songId }));
        const totalDurationMs = durations.reduce((a, b) => a + b, playlist.totalDurationMs);
        return { playlist: finishEntriesWrite(session, playlist, now, { itemCount: playlist.itemCount + entries.length, totalDurationMs, coverAlbumIds }), entries: added };
      }, beforeCommit);
    },

    /** Removes these entries (those already gone are skipped); answers how many it removed. */
    async remove(
      userId: string, id: string, itemIds: readonly string[], ifMatch: IfMatch, beforeCommit?: BeforeCommit<{ playlist: PlaylistRow; removed: number }>,
    ): Promise<{ playlist: PlaylistRow; removed: number }> {
      return write(userId, async (session, now) => {
        const ids = distinct(itemIds);
        const [found, removed, scanned] = await session.read(session.find(id), session.entriesById(id, ids), session.coverScan(id, ids));
        const playlist = ownedForWrite(found, userId, id, ifMatch);
        const coverAlbumIds = await coverOf(session, id, scanned, [], ids);
        session.deleteEntries(id, ids);
        const totalDurationMs = playlist.totalDurationMs - removed.reduce((sum, entry) => sum + entry.durationMs, 0);
        return {
          playlist: finishEntriesWrite(session, playlist, now, { itemCount: playlist.itemCount - removed.length, totalDurationMs, coverAlbumIds }),
          removed: removed.length,
        };
      }, beforeCommit);
    },

    /** Puts these entries, in the order given, just before `beforeItemId` (at the end without it). */
    async move(
      userId: string, id: string, itemIds: readonly string[], beforeItemId: string | undefined, ifMatch: IfMatch, beforeCommit?: BeforeCommit<PlaylistRow>,
    ): Promise<PlaylistRow> {
      const violations = itemIds.flatMap((itemId, i): Violation[] => (itemIds.indexOf(itemId) < i ? [{ field: `itemIds[${i}]`, reason: 'entryTwice' }] : []));
      if (beforeItemId !== undefined && itemIds.includes(beforeItemId)) violations.push({ field: 'beforeItemId', reason: 'entryMovedBeforeItself' });
      if (violations.length > 0) throw invalidRequest(...violations);
      return write(userId, async (session, now) => {
        const [playlistRead, moving, spot, scanned] = await session.read(
          session.find(id), session.entriesById(id, itemIds), session.spot(id, beforeItemId, itemIds), session.coverScan(id, itemIds),
        );
        const playlist = ownedForWrite(playlistRead, userId, id, ifMatch);
        const found = new Map(moving.map((entry) => [entry.itemId, entry]));
        const gone = itemIds.find((itemId) => !found.has(itemId));
        if (gone !== undefined) throw new DomainError('playlistEntryNotFound', { params: { id: gone } });
        const keys = keysFor(spot, itemIds.length, beforeItemId);
        const placed = itemIds.map((itemId, i) => ({ ...found.get(itemId)!, orderKey: keys[i]! }));
        const coverAlbumIds = await coverOf(session, id, scanned, placed.filter((entry) => entry.shown), itemIds);
        session.place(id, new Map(placed.map((entry) => [entry.itemId, entry.orderKey])), playlist.version + 1);
        return finishEntriesWrite(session, playlist, now, { itemCount: playlist.itemCount, totalDurationMs: playlist.totalDurationMs, coverAlbumIds });
      }, beforeCommit);
    },

    /** Replaces every entry with these songs' (If-Match is required: the route asks for it). */
    async replace(userId: string, id: string, songIds: readonly string[], ifMatch: IfMatch): Promise<EntriesWritten> {
      return write(userId, async (session, now) => {
        const [found, songs] = await session.read(session.find(id), session.playableSongs(distinct(songIds)));
        const playlist = ownedForWrite(found, userId, id, ifMatch);
        checkRoom(0, songIds.length);
        const durations = playable(songs, songIds);
        const entries = newEntries(songIds, durations, firstKeys(songIds.length), now, playlist.version + 1);
        session.deleteAllEntries(id);
        session.insertEntries(id, entries);
        // Every entry is new, placed at this version: a walk begun before skips them all, whatever their keys.
        const totalDurationMs = durations.reduce((a, b) => a + b, 0);
        return {
          playlist: finishEntriesWrite(session, playlist, now, { itemCount: entries.length, totalDurationMs, coverAlbumIds: coverOfSongs(entries, songs) }),
          entries: entries.map((entry, i) => ({ ...entry, position: i })),
        };
      });
    },
  };
}

export type PlaylistService = ReturnType<typeof createPlaylistService>;
