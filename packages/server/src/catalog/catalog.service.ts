import { DomainError, ERRORS, formatMessage, type ErrorReason, type MessageLocale } from '../errors.ts';
import type { Negotiation } from '../locale/negotiation.ts';
import { batchFrameBytes, listAnswer, writeBatchAnswer } from './answer-writer.ts';
import type { ArtistNames } from './artist-names.ts';
import type { BufferPool } from './buffer-pool.ts';
import type { CatalogRepo, KeysetRow } from './catalog.repo.ts';
import { NOT_CACHED, REPEATED, type FragmentCache } from './fragment-cache.ts';
import { keysetPage, type KeysetPosition, type PageCursorCodec, type PageRequest } from './page-cursor.ts';

/** A keyset row's position and id (catalog.repo.ts KeysetRow). */
const keyOf = <P extends KeysetPosition>(row: KeysetRow<P>) => row.key;
const idOf = (row: KeysetRow<KeysetPosition>) => row.id;
import { renderAlbumResult, renderArtistResult, renderLyrics } from './render.ts';
import { databaseUnavailable } from '../storage/unavailable.ts';
import { expandSongTemplate, parseSongTemplates, SongTemplateFormatError, type SongTemplates } from './song-template.ts';

const quote = JSON.stringify as (value: string) => string;

export interface CatalogServiceDeps {
  repo: CatalogRepo;
  cache: FragmentCache;
  /** Memory for Batch* and list answers and their scratch copies, given back through `releaseAnswer`. */
  buffers: BufferPool;
  artistNames: ArtistNames;
  cursors: PageCursorCodec;
  /** MAQAM_PUBLIC_URL: what server-relative image URLs resolve against. */
  publicUrl: string;
}

/**
 * One kind of catalog item served as cached JSON fragments `{"<member>":{...}}`:
 * how to render the ones the cache lacks, and what to answer for an unknown id.
 */
interface FragmentKind {
  /** The member that wraps the item in a batch result and in its Get answer. */
  readonly member: 'song' | 'album' | 'artist';
  /** Prefix of the cache chain, so kinds never share keys. */
  readonly chainPrefix: string;
  readonly notFound: ErrorReason;
  /** The fragments of the ids found, each behind its key (`keyed`). */
  render(ids: string[], negotiation: Negotiation): Promise<Map<string, Buffer>>;
}

export function createCatalogService({ repo, cache, buffers, artistNames, cursors, publicUrl }: CatalogServiceDeps) {
  /** What a song template's public URL marks become: the URL as it reads inside a JSON string. */
  const publicUrlInJson = Buffer.from(quote(publicUrl).slice(1, -1));

  const song: FragmentKind = {
    member: 'song',
    chainPrefix: '',
    notFound: 'songNotFound',
    async render(ids, negotiation) {
      // One row, whose value is null when no song was found: the templates one after another.
      const bytes = (await repo.songTemplates(ids))[0]?.templates ?? null;
      const rendered = new Map<string, Buffer>();
      if (bytes === null) return rendered;
      const templates = readTemplates(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
      const artistRefs = await artistNames.songArtistRefs(templates.artistIds, negotiation);
      for (let n = 0; n < templates.ids.length; n++) rendered.set(templates.ids[n]!, expandSongTemplate(templates, n, negotiation.chain, artistRefs, publicUrlInJson));
      return rendered;
    },
  };

  const album: FragmentKind = {
    member: 'album',
    chainPrefix: 'album\u0000',
    notFound: 'albumNotFound',
    async render(ids, negotiation) {
      const rows = await repo.albumsByIds(ids);
      const rendered = new Map<string, Buffer>();
      if (rows.length === 0) return rendered;
      const totals = new Map((await repo.albumTotals(rows.map((row) => row.id))).map((t) => [t.album_id, t]));
      const artistIdsByAlbum = rows.map((row) => JSON.parse(row.artist_ids) as string[]);
      const names = await artistNames.load(artistIdsByAlbum.flat());
      for (let i = 0; i < rows.length; i++) {
        const row = rows[i]!;
        const total = totals.get(row.id);
        // COUNT and SUM come back as strings from PostgreSQL (int8) and numbers from SQLite.
        const counts = { trackCount: Number(total?.track_count ?? 0), totalDurationMs: Number(total?.total_duration_ms ?? 0) };
        rendered.set(row.id, keyed(row.id, renderAlbumResult(row, artistIdsByAlbum[i]!, counts, names, negotiation.chain, publicUrl)));
      }
      return rendered;
    },
  };

  const artist: FragmentKind = {
    member: 'artist',
    chainPrefix: 'artist\u0000',
    notFound: 'artistNotFound',
    async render(ids, negotiation) {
      const rendered = new Map<string, Buffer>();
      for (const row of await repo.artistsByIds(ids)) rendered.set(row.id, keyed(row.id, renderArtistResult(row, negotiation.chain, publicUrl)));
      return rendered;
    },
  };

  /**
   * Templates as the table holds them. One of another format (written by a node
   * of another version) is refused, not misread: the request answers 503.
   */
  function readTemplates(bytes: Buffer): SongTemplates {
    try {
      return parseSongTemplates(bytes);
    } catch (error) {
      if (error instanceof SongTemplateFormatError) throw databaseUnavailable(error);
      throw error;
    }
  }

  /** A fragment as the cache keeps it: behind its batch result key, `"<id>":`, so a Batch* answer is copies only. */
  function keyed(id: string, fragment: string): Buffer {
    return Buffer.from(`${quote(id)}:${fragment}`);
  }

  /** The length of the `"<id>":` key in front of a cached fragment. */
  function keyLength(id: string): number {
    return Buffer.byteLength(quote(id)) + 1;
  }

  function notFoundResult(kind: FragmentKind, id: string, locale: MessageLocale): Buffer {
    const message = formatMessage(ERRORS[kind.notFound].message[locale], { id });
    return keyed(id, `{"error":{"code":"ERROR_CODE_NOT_FOUND","message":${quote(message)}}}`);
  }

  /**
   * A Batch* answer as ready-to-send JSON bytes: cached per-locale fragments,
   * already behind their keys, are copied from the cache arena into one
   * buffer, and only misses touch the database. Duplicate ids are answered
   * once, in first-seen order.
   */
  async function batchGet(kind: FragmentKind, requested: readonly string[], negotiation: Negotiation): Promise<Buffer> {
    const chain = kind.chainPrefix + negotiation.chainKey;
    let entries = new Int32Array(requested.length);
    const hashes = new Int32Array(requested.length);
    const lease = cache.lease;
    const hitBytes = cache.findAll(chain, requested, entries, hashes);
    // Repeated ids: the cache told the hits apart by their entries; the misses are told apart here, by their hashes
    // in a small table (ids compared only when two hashes are equal): a Set hashed every missed id again.
    let missing: string[] | undefined;
    let missingSeen: Int32Array | undefined;
    let repeated = false;
    for (let i = 0; i < requested.length; i++) {
      if (entries[i] === REPEATED) repeated = true;
      else if (entries[i] === NOT_CACHED) {
        const id = requested[i]!;
        const hash = hashes[i]!;
        missingSeen ??= new Int32Array(2 ** Math.ceil(Math.log2(2 * requested.length)));
        const mask = missingSeen.length - 1;
        let slot = hash & mask;
        // Each slot holds the position + 1 of a missed id.
        while (missingSeen[slot] !== 0 && !(hashes[missingSeen[slot]! - 1] === hash && requested[missingSeen[slot]! - 1] === id)) slot = (slot + 1) & mask;
        if (missingSeen[slot] !== 0) {
          entries[i] = REPEATED;
          repeated = true;
        } else {
          missingSeen[slot] = i + 1;
          (missing ??= []).push(id);
        }
      }
    }
    let ids = requested;
    if (repeated) {
      ids = requested.filter((_, i) => entries[i] !== REPEATED);
      entries = entries.filter((entry) => entry !== REPEATED);
    }
    const frame = batchFrameBytes(ids.length);
    if (missing === undefined) {
      // Every id hit: nothing awaits between the lookups and these copies, so the lease holds.
      const body = buffers.take(frame + hitBytes);
      writeBatchAnswer(body, ids.length, (i, target, at) => cache.copyTo(entries[i]!, target, at, lease));
      return body;
    }

    // The database read below yields to other requests, whose inserts can
    // evict and reuse the entries found above (and the catalog watcher can
    // clear them): copy the hits out first, into one buffer.
    const fragments: Buffer[] = new Array(ids.length);
    const hits = buffers.take(hitBytes);
    try {
      let at = 0;
      for (let i = 0; i < ids.length; i++) {
        if (entries[i] === NOT_CACHED) continue;
        const length = cache.copyTo(entries[i]!, hits, at, lease);
        fragments[i] = hits.subarray(at, at + length);
        at += length;
      }
      const version = cache.version;
      const rendered = await kind.render(missing, negotiation);
      let size = frame;
      for (let i = 0; i < ids.length; i++) {
        fragments[i] ??= rendered.get(ids[i]!) ?? notFoundResult(kind, ids[i]!, negotiation.messageLocale);
        size += fragments[i]!.length;
      }
      for (const [id, fragment] of rendered) cache.set(chain, id, fragment, version);
      const body = buffers.take(size);
      writeBatchAnswer(body, ids.length, (i, target, at) => fragments[i]!.copy(target, at));
      return body;
    } finally {
      // Every hit was copied into the body (or the request failed): nothing reads the scratch copy any more.
      buffers.give(hits);
    }
  }

  /** The fragments of these ids, in order (without their keys); undefined for an id not in the catalog (or withdrawn). */
  async function fragmentsOf(kind: FragmentKind, ids: readonly string[], negotiation: Negotiation): Promise<(Buffer | undefined)[]> {
    const chain = kind.chainPrefix + negotiation.chainKey;
    const lease = cache.lease;
    const index = cache.index(chain);
    const fragments: (Buffer | undefined)[] = new Array(ids.length);
    const missing: string[] = [];
    for (let i = 0; i < ids.length; i++) {
      const entry = index?.get(ids[i]!);
      if (entry === undefined) {
        missing.push(ids[i]!);
        continue;
      }
      // Copied now: entries are only valid until the next await.
      const copy = Buffer.allocUnsafe(cache.lengthOf(entry));
      cache.copyTo(entry, copy, 0, lease);
      fragments[i] = copy;
    }
    if (missing.length > 0) {
      const version = cache.version;
      const rendered = await kind.render([...new Set(missing)], negotiation);
      for (let i = 0; i < ids.length; i++) fragments[i] ??= rendered.get(ids[i]!);
      for (const [id, fragment] of rendered) cache.set(chain, id, fragment, version);
    }
    return fragments.map((fragment, i) => fragment?.subarray(keyLength(ids[i]!)));
  }

  async function getOne(kind: FragmentKind, id: string, negotiation: Negotiation): Promise<Buffer> {
    const [fragment] = await fragmentsOf(kind, [id], negotiation);
    if (fragment === undefined) throw new DomainError(kind.notFound, { params: { id } });
    return fragment;
  }

  /**
   * `{"<member>":[items...],"nextPageToken":"..."}` from the fragments of these
   * ids, unwrapped from `{"<kind>":` ... `}`. An item withdrawn between the
   * list query and the render is left out.
   */
  async function listBody(
    member: string,
    kind: FragmentKind,
    ids: readonly string[],
    negotiation: Negotiation,
    nextPageToken: string | undefined,
  ): Promise<Buffer> {
    const wrapper = `{"${kind.member}":`.length;
    const items = (await fragmentsOf(kind, ids, negotiation))
      .filter((fragment): fragment is Buffer => fragment !== undefined)
      .map((fragment) => fragment.subarray(wrapper, fragment.length - 1));
    return lentListAnswer(member, items, nextPageToken);
  }

  /**
   * A list answer in memory the catalog lends, like a Batch* answer's: a
   * page of songs is tens of kilobytes, and allocated afresh for every
   * request they made the old space collect every 150 ms under load
   * (bench/README.md at 9b0c7f5, "the user's library under load"). Give it back with releaseAnswer.
   */
  function lentListAnswer(member: string, items: readonly (Buffer | readonly Buffer[])[], nextPageToken: string | undefined): Buffer {
    return listAnswer(member, items, nextPageToken, (size) => buffers.take(size));
  }

  async function requireArtist(id: string): Promise<void> {
    if (!(await repo.artistVisible(id))) throw new DomainError('artistNotFound', { params: { id } });
  }

  const kinds = { song, album, artist } as const;

  return {
    /** The rendered `{"<kind>":{...}}` fragments of these ids, in order; undefined where unknown or withdrawn. */
    fragments: (kind: 'song' | 'album' | 'artist', ids: readonly string[], negotiation: Negotiation) => fragmentsOf(kinds[kind], ids, negotiation),
    /**
     * Gives back the memory of a Batch* answer once nothing reads it: its
     * response has closed (written out, or its connection gone).
     */
    releaseAnswer: (body: Buffer) => buffers.give(body),
    /** A list answer of these items in lent memory (see above); give it back with releaseAnswer once its response has closed. */
    listAnswer: lentListAnswer,
    batchGetSongs: (ids: readonly string[], negotiation: Negotiation) => batchGet(song, ids, negotiation),
    batchGetAlbums: (ids: readonly string[], negotiation: Negotiation) => batchGet(album, ids, negotiation),
    batchGetArtists: (ids: readonly string[], negotiation: Negotiation) => batchGet(artist, ids, negotiation),
    getSong: (id: string, negotiation: Negotiation) => getOne(song, id, negotiation),
    getAlbum: (id: string, negotiation: Negotiation) => getOne(album, id, negotiation),
    getArtist: (id: string, negotiation: Negotiation) => getOne(artist, id, negotiation),

    async relatedArtists(artistId: string, request: PageRequest, negotiation: Negotiation): Promise<Buffer> {
      // The token is checked before the artist, so a bad token is a 400 whatever the artist.
      const page = keysetPage<[number, string]>(cursors, request, `related\u0000${artistId}`, ['number', 'string']);
      await requireArtist(artistId);
      const { rows, nextPageToken } = await page.read((after, limit) => repo.relatedArtists(artistId, after, limit), keyOf);
      return listBody('artists', artist, rows.map(idOf), negotiation, nextPageToken);
    },

    async albumTracks(albumId: string, request: PageRequest, negotiation: Negotiation): Promise<Buffer> {
      const page = keysetPage<[number, number, string]>(cursors, request, `tracks\u0000${albumId}`, ['number', 'number', 'string']);
      if (!(await repo.albumVisible(albumId))) throw new DomainError('albumNotFound', { params: { id: albumId } });
      const { rows, nextPageToken } = await page.read((after, limit) => repo.albumTracks(albumId, after, limit), keyOf);
      return listBody('tracks', song, rows.map(idOf), negotiation, nextPageToken);
    },

    async artistAlbums(artistId: string, albumType: string | undefined, request: PageRequest, negotiation: Negotiation): Promise<Buffer> {
      // The filter is part of the scope: a token of the unfiltered list does not page a filtered one.
      const page = keysetPage<[string, string]>(cursors, request, `albums\u0000${artistId}\u0000${albumType ?? ''}`, ['string', 'string']);
      await requireArtist(artistId);
      const { rows, nextPageToken } = await page.read((after, limit) => repo.artistAlbums(artistId, albumType, after, limit), keyOf);
      return listBody('albums', album, rows.map(idOf), negotiation, nextPageToken);
    },

    async artistTopTracks(artistId: string, size: number, negotiation: Negotiation): Promise<Buffer> {
      await requireArtist(artistId);
      return listBody('tracks', song, await repo.artistTopTracks(artistId, size), negotiation, undefined);
    },

    async lyrics(songId: string): Promise<Buffer> {
      const row = await repo.lyrics(songId);
      if (row === undefined) throw new DomainError('songNotFound', { params: { id: songId } });
      if (row.language === null || row.lines === null) throw new DomainError('lyricsNotFound', { params: { id: songId } });
      return Buffer.from(renderLyrics({ ...row, language: row.language, lines: row.lines }));
    },
  };
}


export type CatalogService = ReturnType<typeof createCatalogService>;

/** What a feature that answers with catalog items asks of the catalog: their rendered fragments (the read path, cached). */
export type CatalogFragments = Pick<CatalogService, 'fragments'>;

/** What a feature that answers lists of catalog items asks of it: the fragments, and list answers in lent memory. */
export type CatalogLists = Pick<CatalogService, 'fragments' | 'listAnswer'>;
