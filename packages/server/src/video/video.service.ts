import { DomainError, type ErrorReason } from '../errors.ts';
import type { Negotiation } from '../locale/negotiation.ts';
import type { CatalogLists } from '../catalog/catalog.service.ts';
import type { FragmentKind, FragmentReads } from '../catalog/fragment-reads.ts';
import { keysetPage, type PageCursorCodec, type PageRequest } from '../catalog/page-cursor.ts';
import type { ViewerCap } from './age-rating.ts';
import { episodeHoles, seasonTemplate, showTemplate, TITLE_TEMPLATE_FORMAT } from './render.ts';
import { databaseUnavailable } from '../storage/unavailable.ts';
import { expandTitleTemplate, TitleTemplateFormatError, type TitleTemplateWriter } from './title-template.ts';
import type { ShowSeasonRow, VideoRepo } from './video.repo.ts';

export interface VideoServiceDeps {
  repo: VideoRepo;
  /** The catalog's read path: video titles are cached and framed as songs are. */
  reads: FragmentReads;
  /** Soundtracks answer with the catalog's songs. */
  catalog: CatalogLists;
  cursors: PageCursorCodec;
  /** MAQAM_PUBLIC_URL: what server-relative image URLs resolve against. */
  publicUrl: string;
}

export type VideoKind = 'show' | 'season' | 'episode' | 'movie';
type Kinds = Readonly<Record<VideoKind, FragmentKind>>;

/**
 * VideoCatalogService (contract section 15). Every title is read through
 * the catalog's read path (fragment-reads.ts) as a kind per parental cap:
 * the cap is part of the cache chain and of the render's query, so a viewer
 * is served only from renderings made for their cap, and a title above it
 * is rendered for no one of them: absent from batches and lists, and the
 * NOT_FOUND of an unknown id.
 */
export function createVideoService({ repo, reads, catalog, cursors, publicUrl }: VideoServiceDeps) {
  const kindsByCap = new Map<ViewerCap, Kinds>();

  function kindsFor(cap: ViewerCap): Kinds {
    let kinds = kindsByCap.get(cap);
    if (kinds === undefined) kindsByCap.set(cap, (kinds = makeKinds(cap)));
    return kinds;
  }

  const publicUrlInJson = Buffer.from(JSON.stringify(publicUrl).slice(1, -1));
  /** A template's answer for this chain; one of another format (written by a node of another version) is a 503, never misread. */
  function expand(template: Uint8Array | null, chain: readonly string[], holes: readonly string[] = []): Buffer {
    try {
      if (template === null) throw new TitleTemplateFormatError(-1, TITLE_TEMPLATE_FORMAT);
      return expandTitleTemplate(template, TITLE_TEMPLATE_FORMAT, chain, holes, publicUrlInJson);
    } catch (error) {
      if (error instanceof TitleTemplateFormatError) throw databaseUnavailable(error);
      throw error;
    }
  }
  /** Shows and seasons answer with what the cap lets them count: their templates are made per read. */
  const expandNow = (writer: TitleTemplateWriter, chain: readonly string[]) => expand(writer.build(TITLE_TEMPLATE_FORMAT), chain);

  function makeKinds(cap: ViewerCap): Kinds {
    const chainPrefix = (member: string) => `${member}\u0000${cap}\u0000`;
    /** A kind each of whose items renders from its own row alone. */
    const rowKind = <Row extends { id: string }>(
      member: VideoKind,
      notFound: ErrorReason,
      read: (ids: string[]) => Promise<Row[]>,
      render: (row: Row, chain: readonly string[]) => Buffer,
    ): FragmentKind => ({
      member,
      chainPrefix: chainPrefix(member),
      notFound,
      async render(ids, negotiation) {
        const rendered = new Map<string, Buffer>();
        for (const row of await read(ids)) rendered.set(row.id, render(row, negotiation.chain));
        return rendered;
      },
    });
    return {
      show: {
        member: 'show',
        chainPrefix: chainPrefix('show'),
        notFound: 'showNotFound',
        async render(ids, negotiation) {
          const rows = await repo.showsByIds(ids, cap);
          const rendered = new Map<string, Buffer>();
          if (rows.length === 0) return rendered;
          const seasons = new Map<string, ShowSeasonRow[]>();
          for (const season of await repo.seasonsOfShows(rows.map((row) => row.id), cap)) {
            const list = seasons.get(season.show_id) ?? [];
            list.push(season);
            seasons.set(season.show_id, list);
          }
          for (const row of rows) rendered.set(row.id, expandNow(showTemplate(row, seasons.get(row.id) ?? []), negotiation.chain));
          return rendered;
        },
      },
      season: rowKind('season', 'seasonNotFound', (ids) => repo.seasonsByIds(ids, cap), (row, chain) => expandNow(seasonTemplate(row), chain)),
      episode: rowKind('episode', 'episodeNotFound', (ids) => repo.episodeTemplatesByIds(ids, cap), (row, chain) =>
        expand(row.template, chain, episodeHoles(row))),
      movie: rowKind('movie', 'movieNotFound', (ids) => repo.movieTemplatesByIds(ids, cap), (row, chain) => expand(row.template, chain)),
    };
  }

  async function requireTitle(kind: 'show' | 'movie', id: string, cap: ViewerCap): Promise<void> {
    if (!(await repo.titleVisible(kind, id, cap))) throw new DomainError(kind === 'show' ? 'showNotFound' : 'movieNotFound', { params: { id } });
  }

  /** `{"<kind>":{...}}` fragments unwrapped to the item. */
  const unwrap = (member: string, fragments: readonly (Buffer | undefined)[]) =>
    fragments.filter((fragment): fragment is Buffer => fragment !== undefined).map((fragment) => fragment.subarray(member.length + 4, fragment.length - 1));

  return {
    /** The rendered `{"<kind>":{...}}` fragments of these ids for this cap, in order; undefined where unknown, withdrawn or above the cap. */
    fragments: (kind: VideoKind, ids: readonly string[], negotiation: Negotiation, cap: ViewerCap) => reads.fragmentsOf(kindsFor(cap)[kind], ids, negotiation),
    get: (kind: VideoKind, id: string, negotiation: Negotiation, cap: ViewerCap) => reads.getOne(kindsFor(cap)[kind], id, negotiation),
    batchGet: (kind: VideoKind, ids: readonly string[], negotiation: Negotiation, cap: ViewerCap) => reads.batchGet(kindsFor(cap)[kind], ids, negotiation),
    releaseAnswer: reads.releaseAnswer,

    /** GetSeason: the season and a page of its episodes, by number. */
    async season(id: string, request: PageRequest, negotiation: Negotiation, cap: ViewerCap): Promise<Buffer> {
      const page = keysetPage<[number, string]>(cursors, request, `episodes\u0000${id}`, ['number', 'string']);
      const kinds = kindsFor(cap);
      const season = await reads.getOne(kinds.season, id, negotiation);
      const { rows, nextPageToken } = await page.read((after, limit) => repo.seasonEpisodes(id, cap, after, limit), (row) => row.key);
      const episodes = unwrap('episode', await reads.fragmentsOf(kinds.episode, rows.map((row) => row.id), negotiation));
      // `{"season":{...}}` with its last brace dropped: the season member, then the list.
      return reads.listAnswer('episodes', episodes, nextPageToken, `${season.subarray(1, season.length - 1).toString()},`);
    },

    /** A show's or film's soundtrack: a page of its songs in listed order (withdrawn songs left out). */
    async soundtrack(kind: 'show' | 'movie', id: string, request: PageRequest, negotiation: Negotiation, cap: ViewerCap): Promise<Buffer> {
      const page = keysetPage<[number]>(cursors, request, `soundtrack\u0000${kind}\u0000${id}`, ['number']);
      await requireTitle(kind, id, cap);
      const { rows, nextPageToken } = await page.read((after, limit) => repo.soundtrack(kind, id, after, limit), (row) => row.key);
      const songs = unwrap('song', await catalog.fragments('song', rows.map((row) => row.id), negotiation));
      return catalog.listAnswer('songs', songs, nextPageToken);
    },

    /** The shows and films whose soundtrack lists the song, each `{"show":{...}}` or `{"movie":{...}}`. */
    async appearances(songId: string, request: PageRequest, negotiation: Negotiation, cap: ViewerCap): Promise<Buffer> {
      const page = keysetPage<['show' | 'movie', string]>(cursors, request, `appearances\u0000${songId}`, ['string', 'string']);
      if (!(await repo.songVisible(songId))) throw new DomainError('songNotFound', { params: { id: songId } });
      const { rows, nextPageToken } = await page.read((after, limit) => repo.appearances(songId, cap, after, limit), (row) => [row.kind, row.id]);
      const kinds = kindsFor(cap);
      const rendered = new Map<string, Buffer | undefined>();
      for (const kind of ['show', 'movie'] as const) {
        const ids = rows.filter((row) => row.kind === kind).map((row) => row.id);
        if (ids.length === 0) continue;
        const fragments = await reads.fragmentsOf(kinds[kind], ids, negotiation);
        ids.forEach((id, i) => rendered.set(`${kind}\u0000${id}`, fragments[i]));
      }
      const titles = rows.map((row) => rendered.get(`${row.kind}\u0000${row.id}`)).filter((fragment): fragment is Buffer => fragment !== undefined);
      return catalog.listAnswer('titles', titles, nextPageToken);
    },
  };
}

export type VideoService = ReturnType<typeof createVideoService>;
