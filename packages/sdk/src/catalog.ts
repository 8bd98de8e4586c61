import type {
  Album, AlbumType, Artist, GetAlbumTracksResponse, GetArtistDiscographyResponse, GetLyricsResponse, GetRelatedArtistsResponse, Page,
  SearchResponse, SearchResult, SearchType, Song,
} from './types.ts';
import type * as wire from '@maqam/contract';
import { jsonCalls, requestJson, type BatchItemError, type CallContext, type PageOptions, type Transport } from './request.ts';
import { assert, pages, withItems } from './pages.ts';

/**
 * One entry of a batch: the song, or why it could not be had (its `code` is
 * `ERROR_CODE_NOT_FOUND` for unknown and withdrawn songs).
 *
 * @example
 * const result: SongResult = (await maqam.songs.batchGet(['song-1'])).get('song-1')!;
 * if (result.song) play(result.song);
 * else console.warn(result.error.code);
 */
export type SongResult = { readonly song: Song; readonly error?: undefined } | { readonly song?: undefined; readonly error: BatchItemError };

/**
 * One entry of `albums.batchGet`: the album, or why it could not be had.
 *
 * @example
 * const result = (await maqam.albums.batchGet(['album-1'])).get('album-1')!;
 * console.log(result.album?.title.value ?? result.error?.code);
 */
export type AlbumResult = { readonly album: Album; readonly error?: undefined } | { readonly album?: undefined; readonly error: BatchItemError };

/**
 * One entry of `artists.batchGet`: the artist, or why it could not be had.
 *
 * @example
 * const result = (await maqam.artists.batchGet(['artist-1'])).get('artist-1')!;
 * console.log(result.artist?.name.value ?? result.error?.code);
 */
export type ArtistResult = { readonly artist: Artist; readonly error?: undefined } | { readonly artist?: undefined; readonly error: BatchItemError };

const BATCH_SIZE = 100;

/** A path segment from an id the caller gave: checked, then percent-encoded. */
function id(value: string): string {
  assert(typeof value === 'string' && value !== '', 'ids must be non-empty strings');
  return encodeURIComponent(value);
}

/**
 * The catalog's songs, albums, artists and search, readable with an API key
 * or a user's token. `batchConcurrency` is read at each batch, so the
 * client's options may be given after this is made.
 */
export function createCatalog(transport: Transport, batchConcurrency: () => number) {
  const { get } = jsonCalls(transport);

  /**
   * Any number of ids through a Batch* operation: chunks of 100 with bounded
   * concurrency, answered as one Map in the order the ids were given
   * (duplicates once).
   */
  async function batchGet<Result>(path: string, member: string, ids: readonly string[], context: CallContext): Promise<Map<string, Result>> {
    assert(Array.isArray(ids) && ids.every((id) => typeof id === 'string' && id !== ''), 'ids must be non-empty strings');
    const unique = [...new Set(ids)];
    const chunks: string[][] = [];
    for (let i = 0; i < unique.length; i += BATCH_SIZE) chunks.push(unique.slice(i, i + BATCH_SIZE));
    const answers: Record<string, Result>[] = new Array(chunks.length);
    // The first chunk that fails fails the batch: the chunks still in flight are cancelled, none more is sent.
    const failed = new AbortController();
    const signal = context.signal ? AbortSignal.any([context.signal, failed.signal]) : failed.signal;
    let next = 0;
    const worker = async () => {
      while (next < chunks.length && !signal.aborted) {
        const index = next++;
        // A batch read changes nothing on the server: safe to repeat after a network failure.
        const body = { [member]: chunks[index]!.map((value) => ({ value })) };
        answers[index] = (await requestJson<{ results: Record<string, Result> }>(transport, {
          method: 'POST', path, body, idempotent: true, context: { ...context, signal },
        })).results;
      }
    };
    const workers = Array.from({ length: Math.min(batchConcurrency(), chunks.length) }, () =>
      worker().catch((error: unknown) => {
        failed.abort(error);
        throw error;
      }));
    await Promise.all(workers);
    const merged = new Map<string, Result>();
    chunks.forEach((chunk, index) => {
      for (const id of chunk) merged.set(id, answers[index]![id]!);
    });
    return merged;
  }

  const songs = {
    /**
     * Any number of songs by id: sent in chunks of 100 with bounded
     * concurrency, answered as one Map in the order the ids were given
     * (duplicates once). Each entry has `song` or `error`.
     *
     * @example
     * const results = await maqam.songs.batchGet(ids, { locale: 'ar' });
     * for (const [id, result] of results) console.log(id, result.song?.title.value ?? result.error?.code);
     */
    batchGet: (ids: readonly string[], context: CallContext = {}): Promise<Map<string, SongResult>> =>
      batchGet('/v1/music/songs:batchGet', 'songIdList', ids, context),

    /**
     * One song; NotFoundError if it is unknown or withdrawn.
     *
     * @example
     * const song = await maqam.songs.get('song-1', { locale: 'en' });
     */
    get: async (songId: string, context: CallContext = {}): Promise<Song> =>
      (await get<{ song: Song }>(`/v1/music/songs/${id(songId)}`, context)).song,

    /**
     * A song's lyrics; `syncedLyrics` when they are time-synced. NotFoundError
     * if the song has none (see `song.hasLyrics`).
     *
     * @example
     * const { lyrics, syncedLyrics } = await maqam.songs.lyrics('song-1');
     * const line = syncedLyrics?.lines.findLast((l) => Number(l.startTimeMs) <= audio.currentTime * 1000);
     */
    lyrics: async (songId: string, context: CallContext = {}): Promise<GetLyricsResponse> =>
      get(`/v1/music/songs/${id(songId)}/lyrics`, context),
  };

  const albums = {
    /**
     * One album; NotFoundError if it is unknown or withdrawn.
     *
     * @example
     * const album = await maqam.albums.get('album-1');
     * console.log(album.title.value, album.trackCount, album.albumType);
     */
    get: async (albumId: string, context: CallContext = {}): Promise<Album> =>
      (await get<{ album: Album }>(`/v1/music/albums/${id(albumId)}`, context)).album,

    /**
     * Any number of albums by id, chunked like `songs.batchGet`.
     *
     * @example
     * const results = await maqam.albums.batchGet(['album-1', 'album-2']);
     */
    batchGet: (ids: readonly string[], context: CallContext = {}): Promise<Map<string, AlbumResult>> =>
      batchGet('/v1/music/albums:batchGet', 'albumIdList', ids, context),

    /**
     * One page of an album's songs, by disc and track.
     *
     * @example
     * const { items, nextPageToken } = await maqam.albums.listTracks('album-1', { pageSize: 50 });
     */
    listTracks: async (albumId: string, options: PageOptions = {}): Promise<GetAlbumTracksResponse> =>
      withItems(await get<wire.GetAlbumTracksResponse>(`/v1/music/albums/${id(albumId)}/tracks`, options, {
        page_size: options.pageSize, page_token: options.pageToken,
      }), 'tracks'),

    /**
     * Every song of an album, fetching pages as the loop asks for them.
     *
     * @example
     * for await (const song of maqam.albums.tracks('album-1')) console.log(song.discNumber, song.trackNumber, song.title.value);
     */
    tracks: (albumId: string, options: PageOptions = {}): AsyncIterable<Song> =>
      pages((pageToken) => albums.listTracks(albumId, { ...options, pageToken }), (page) => page.items, options.pageToken),
  };

  const artists = {
    /**
     * An artist's full profile; NotFoundError if it is unknown or withdrawn.
     *
     * @example
     * const artist = await maqam.artists.get('artist-1', { locale: 'ar' });
     */
    get: async (artistId: string, context: CallContext = {}): Promise<Artist> =>
      (await get<{ artist: Artist }>(`/v1/music/artists/${id(artistId)}`, context)).artist,

    /**
     * Any number of artists by id, chunked like `songs.batchGet`.
     *
     * @example
     * const results = await maqam.artists.batchGet(['artist-1', 'artist-2']);
     */
    batchGet: (ids: readonly string[], context: CallContext = {}): Promise<Map<string, ArtistResult>> =>
      batchGet('/v1/music/artists:batchGet', 'artistIdList', ids, context),

    /**
     * The artist's most popular songs (`pageSize` 1..50, default 10), as one
     * page like every list: the API pages no further, so `nextPageToken` is
     * always empty.
     *
     * @example
     * const { items } = await maqam.artists.listTopTracks('artist-1', { pageSize: 5 });
     */
    listTopTracks: async (artistId: string, options: CallContext & { pageSize?: number | undefined } = {}): Promise<Page<Song>> => {
      const { tracks } = await get<wire.GetArtistTopTracksResponse>(`/v1/music/artists/${id(artistId)}/top-tracks`, options, { page_size: options.pageSize });
      return { items: tracks, nextPageToken: '' };
    },

    /**
     * The artist's most popular songs as a bare array.
     *
     * @deprecated Use `listTopTracks`, which answers `{ items, nextPageToken }` as every list does.
     * @example
     * const top = await maqam.artists.topTracks('artist-1', { pageSize: 5 });
     */
    topTracks: async (artistId: string, options: CallContext & { pageSize?: number | undefined } = {}): Promise<Song[]> =>
      (await artists.listTopTracks(artistId, options)).items,

    /**
     * One page of the albums crediting an artist, newest first; `albumType` keeps one type.
     *
     * @example
     * const { items } = await maqam.artists.listAlbums('artist-1', { albumType: 'ALBUM_TYPE_SINGLE' });
     */
    listAlbums: async (artistId: string, options: PageOptions & { albumType?: AlbumType | undefined } = {}): Promise<GetArtistDiscographyResponse> =>
      withItems(await get<wire.GetArtistDiscographyResponse>(`/v1/music/artists/${id(artistId)}/albums`, options, {
        album_type: options.albumType, page_size: options.pageSize, page_token: options.pageToken,
      }), 'albums'),

    /**
     * An artist's whole discography, fetching pages as the loop asks for them.
     *
     * @example
     * for await (const album of maqam.artists.albums('artist-1', { albumType: 'ALBUM_TYPE_ALBUM' })) console.log(album.releaseDate);
     */
    albums: (artistId: string, options: PageOptions & { albumType?: AlbumType | undefined } = {}): AsyncIterable<Album> =>
      pages((pageToken) => artists.listAlbums(artistId, { ...options, pageToken }), (page) => page.items, options.pageToken),

    /**
     * One page of artists related to an artist.
     *
     * @example
     * const { items, nextPageToken } = await maqam.artists.listRelated('artist-1', { pageSize: 10 });
     */
    listRelated: async (artistId: string, options: PageOptions = {}): Promise<GetRelatedArtistsResponse> =>
      withItems(await get<wire.GetRelatedArtistsResponse>(`/v1/music/artists/${id(artistId)}/related`, options, {
        page_size: options.pageSize, page_token: options.pageToken,
      }), 'artists'),

    /**
     * Every related artist, fetching pages as the loop asks for them.
     *
     * @example
     * for await (const artist of maqam.artists.related('artist-1')) console.log(artist.name.value);
     */
    related: (artistId: string, options: PageOptions = {}): AsyncIterable<Artist> =>
      pages((pageToken) => artists.listRelated(artistId, { ...options, pageToken }), (page) => page.items, options.pageToken),
  };

  // search and searchAll are documented where apps meet them, on MaqamClient's fields of the same names.
  const search = async (q: string, options: PageOptions & { types?: readonly SearchType[] | undefined } = {}): Promise<SearchResponse> => {
    assert(typeof q === 'string' && q.trim() !== '', 'q must be a non-empty string');
    return withItems(await get<wire.SearchResponse>('/v1/search', options, {
      q, types: options.types?.join(','), page_size: options.pageSize, page_token: options.pageToken,
    }), 'results');
  };

  const searchAll = (q: string, options: PageOptions & { types?: readonly SearchType[] | undefined } = {}): AsyncIterable<SearchResult> =>
    pages((pageToken) => search(q, { ...options, pageToken }), (page) => page.items, options.pageToken);

  return { songs, albums, artists, search, searchAll };
}

/** The catalog's resources, by name: the client's fields are typed by it, so their members' TSDoc reaches the published declarations. */
export type Catalog = ReturnType<typeof createCatalog>;
