import type {
  Album, AlbumType, Artist, GetAlbumTracksResponse, GetArtistDiscographyResponse, GetLyricsResponse, GetRelatedArtistsResponse,
  GetSongAppearancesResponse, Page, SearchResponse, SearchResult, SearchType, Song, VideoTitle,
} from './types.ts';
import type * as wire from '@maqam/contract';
import type { BatchItemError, CallContext, PageOptions, Transport } from './request.ts';
import { assert, every } from './pages.ts';
import { catalogReads, pathId } from './reads.ts';

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

/**
 * The catalog's songs, albums, artists and search, readable with an API key
 * or a user's token. `batchConcurrency` is read at each batch, so the
 * client's options may be given after this is made.
 */
export function createCatalog(transport: Transport, batchConcurrency: () => number) {
  const { get, item, page } = catalogReads(transport, batchConcurrency);
  const songReads = item<Song, SongResult>('/v1/music/songs', 'song');
  const albumReads = item<Album, AlbumResult>('/v1/music/albums', 'album');
  const artistReads = item<Artist, ArtistResult>('/v1/music/artists', 'artist');

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
    batchGet: songReads.batchGet,

    /**
     * One song; NotFoundError if it is unknown or withdrawn.
     *
     * @example
     * const song = await maqam.songs.get('song-1', { locale: 'en' });
     */
    get: songReads.get as ((songId: string, context?: CallContext) => Promise<Song>),

    /**
     * A song's lyrics; `syncedLyrics` when they are time-synced. NotFoundError
     * if the song has none (see `song.hasLyrics`).
     *
     * @example
     * const { lyrics, syncedLyrics } = await maqam.songs.lyrics('song-1');
     * const line = syncedLyrics?.lines.findLast((l) => Number(l.startTimeMs) <= audio.currentTime * 1000);
     */
    lyrics: async (songId: string, context: CallContext = {}): Promise<GetLyricsResponse> =>
      get(`/v1/music/songs/${pathId(songId)}/lyrics`, context),

    /**
     * One page of the shows and films whose soundtrack lists a song; each
     * title holds one of `show` or `movie`.
     *
     * @example
     * const { items, nextPageToken } = await maqam.songs.listAppearances('song-1', { pageSize: 10 });
     */
    listAppearances: async (songId: string, options: PageOptions = {}): Promise<GetSongAppearancesResponse> =>
      page<wire.GetSongAppearancesResponse, 'titles'>(`/v1/music/songs/${pathId(songId)}/appearances`, 'titles', options),

    /**
     * Every show and film whose soundtrack lists a song, fetching pages as the loop asks for them.
     *
     * @example
     * for await (const title of maqam.songs.appearances('song-1')) console.log(title.show?.title.value ?? title.movie?.title.value);
     */
    appearances: (songId: string, options: PageOptions = {}): AsyncIterable<VideoTitle> =>
      every((pageOptions) => songs.listAppearances(songId, pageOptions), options),
  };

  const albums = {
    /**
     * One album; NotFoundError if it is unknown or withdrawn.
     *
     * @example
     * const album = await maqam.albums.get('album-1');
     * console.log(album.title.value, album.trackCount, album.albumType);
     */
    get: albumReads.get as ((albumId: string, context?: CallContext) => Promise<Album>),

    /**
     * Any number of albums by id, chunked like `songs.batchGet`.
     *
     * @example
     * const results = await maqam.albums.batchGet(['album-1', 'album-2']);
     */
    batchGet: albumReads.batchGet,

    /**
     * One page of an album's songs, by disc and track.
     *
     * @example
     * const { items, nextPageToken } = await maqam.albums.listTracks('album-1', { pageSize: 50 });
     */
    listTracks: async (albumId: string, options: PageOptions = {}): Promise<GetAlbumTracksResponse> =>
      page<wire.GetAlbumTracksResponse, 'tracks'>(`/v1/music/albums/${pathId(albumId)}/tracks`, 'tracks', options),

    /**
     * Every song of an album, fetching pages as the loop asks for them.
     *
     * @example
     * for await (const song of maqam.albums.tracks('album-1')) console.log(song.discNumber, song.trackNumber, song.title.value);
     */
    tracks: (albumId: string, options: PageOptions = {}): AsyncIterable<Song> =>
      every((pageOptions) => albums.listTracks(albumId, pageOptions), options),
  };

  const artists = {
    /**
     * An artist's full profile; NotFoundError if it is unknown or withdrawn.
     *
     * @example
     * const artist = await maqam.artists.get('artist-1', { locale: 'ar' });
     */
    get: artistReads.get as ((artistId: string, context?: CallContext) => Promise<Artist>),

    /**
     * Any number of artists by id, chunked like `songs.batchGet`.
     *
     * @example
     * const results = await maqam.artists.batchGet(['artist-1', 'artist-2']);
     */
    batchGet: artistReads.batchGet,

    /**
     * The artist's most popular songs (`pageSize` 1..50, default 10), as one
     * page like every list: the API pages no further, so `nextPageToken` is
     * always empty.
     *
     * @example
     * const { items } = await maqam.artists.listTopTracks('artist-1', { pageSize: 5 });
     */
    listTopTracks: async (artistId: string, options: CallContext & { pageSize?: number | undefined } = {}): Promise<Page<Song>> => {
      const { tracks } = await get<wire.GetArtistTopTracksResponse>(`/v1/music/artists/${pathId(artistId)}/top-tracks`, options, { page_size: options.pageSize });
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
      page<wire.GetArtistDiscographyResponse, 'albums'>(`/v1/music/artists/${pathId(artistId)}/albums`, 'albums', options, { album_type: options.albumType }),

    /**
     * An artist's whole discography, fetching pages as the loop asks for them.
     *
     * @example
     * for await (const album of maqam.artists.albums('artist-1', { albumType: 'ALBUM_TYPE_ALBUM' })) console.log(album.releaseDate);
     */
    albums: (artistId: string, options: PageOptions & { albumType?: AlbumType | undefined } = {}): AsyncIterable<Album> =>
      every((pageOptions) => artists.listAlbums(artistId, pageOptions), options),

    /**
     * One page of artists related to an artist.
     *
     * @example
     * const { items, nextPageToken } = await maqam.artists.listRelated('artist-1', { pageSize: 10 });
     */
    listRelated: async (artistId: string, options: PageOptions = {}): Promise<GetRelatedArtistsResponse> =>
      page<wire.GetRelatedArtistsResponse, 'artists'>(`/v1/music/artists/${pathId(artistId)}/related`, 'artists', options),

    /**
     * Every related artist, fetching pages as the loop asks for them.
     *
     * @example
     * for await (const artist of maqam.artists.related('artist-1')) console.log(artist.name.value);
     */
    related: (artistId: string, options: PageOptions = {}): AsyncIterable<Artist> =>
      every((pageOptions) => artists.listRelated(artistId, pageOptions), options),
  };

  // search and searchAll are documented where apps meet them, on MaqamClient's fields of the same names.
  const search = async (q: string, options: PageOptions & { types?: readonly SearchType[] | undefined } = {}): Promise<SearchResponse> => {
    assert(typeof q === 'string' && q.trim() !== '', 'q must be a non-empty string');
    return page<wire.SearchResponse, 'results'>('/v1/search', 'results', options, { q, types: options.types?.join(',') });
  };

  const searchAll = (q: string, options: PageOptions & { types?: readonly SearchType[] | undefined } = {}): AsyncIterable<SearchResult> =>
    every((pageOptions) => search(q, pageOptions), options);

  return { songs, albums, artists, search, searchAll };
}

/** The catalog's resources, by name: the client's fields are typed by it, so their members' TSDoc reaches the published declarations. */
export type Catalog = ReturnType<typeof createCatalog>;
