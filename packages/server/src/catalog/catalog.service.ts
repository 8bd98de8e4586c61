import { DomainError } from '../errors.ts';
import type { Negotiation } from '../locale/negotiation.ts';
import type { ArtistNames } from './artist-names.ts';
import type { CatalogRepo, KeysetRow } from './catalog.repo.ts';
import type { FragmentKind, FragmentReads } from './fragment-reads.ts';
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
  /** The read path (cached fragments, lent answer memory) the catalog's kinds are served through. */
  reads: FragmentReads;
  artistNames: ArtistNames;
  cursors: PageCursorCodec;
  /** MAQAM_PUBLIC_URL: what server-relative image URLs resolve against. */
  publicUrl: string;
}

export function createCatalogService({ repo, reads, artistNames, cursors, publicUrl }: CatalogServiceDeps) {
  const { keyed, batchGet, fragmentsOf, getOne, listBody } = reads;
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
    releaseAnswer: reads.releaseAnswer,
    /** A list answer of these items in lent memory (see above); give it back with releaseAnswer once its response has closed. */
    listAnswer: reads.listAnswer,
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
