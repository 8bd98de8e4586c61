// The API's wire shapes, as the SDK hands them out. They come from
// @maqam/contract at build time; the published package carries them as plain
// declarations (scripts/wire-types.ts).
import type * as wire from '@maqam/contract';

/**
 * A song of the catalog, every field present (the wire's schema marks none
 * required, but Maqam always sends each one); names and titles are
 * LocalizedStrings: `value` in the language asked for, `originalValue` as
 * the artist wrote it.
 *
 * @example
 * const song: Song | undefined = (await maqam.songs.batchGet(['song-1'])).get('song-1')?.song;
 * console.log(song?.title.value, song?.artists.map((a) => a.name.value).join(', '));
 */
export type Song = wire.Song;

/**
 * One page of any list: its `items`, and the token of the next page (empty
 * on the last). Every `list*` method answers one; the wire's own name for the
 * items (`tracks`, `albums`, `artists`, `results`) is kept beside `items`
 * for code written before, and is deprecated.
 *
 * @example
 * const { items, nextPageToken }: Page<Song> = await maqam.albums.listTracks('album-1');
 */
export interface Page<Item> {
  readonly items: Item[];
  readonly nextPageToken: string;
}

/**
 * An artist, as GetRelatedArtists lists them.
 *
 * @example
 * const { artists: [first] } = await maqam.artists.listRelated('artist-1', { pageSize: 1 });
 * console.log(first?.name.value, first?.nationality, Number(first?.monthlyListeners));
 */
export type Artist = wire.Artist;

/**
 * One page of related artists; `nextPageToken` is empty on the last page.
 *
 * @example
 * const page: GetRelatedArtistsResponse = await maqam.artists.listRelated('artist-1');
 * if (page.nextPageToken) await maqam.artists.listRelated('artist-1', { pageToken: page.nextPageToken });
 */
export type GetRelatedArtistsResponse = wire.GetRelatedArtistsResponse & Page<Artist>;

/**
 * A stream the signed-in user may play: a signed HLS playlist URL that
 * expires after `expiresInSeconds`.
 *
 * @example
 * const { stream }: AcquireMusicStreamResponse = await maqam.streaming.acquireMusic('song-1');
 * audio.src = stream.manifestUrl;
 */
export type AcquireMusicStreamResponse = wire.AcquireMusicStreamResponse;

/**
 * The quality tiers of a stream, lowest to best.
 *
 * @example
 * const maxQuality: AudioQuality = onMeteredConnection ? 'AUDIO_QUALITY_LOW' : 'AUDIO_QUALITY_HIGH';
 */
export type AudioQuality = wire.AudioQuality;

/**
 * What the server knows of the signed-in user's access token.
 *
 * @example
 * const { sub, scope, expires_in }: TokenInfoResponse = await maqam.auth.tokenInfo();
 */
export type TokenInfoResponse = wire.TokenInfoResponse;

/**
 * An album: its type, label, genres, and `trackCount` / `totalDurationMs`
 * over the songs that are not withdrawn.
 *
 * @example
 * const album: Album = await maqam.albums.get('album-1');
 * console.log(album.title.value, album.albumType, album.releaseDate);
 */
export type Album = wire.Album;

/**
 * The four kinds of album a discography can be filtered by.
 *
 * @example
 * const singles = maqam.artists.albums('artist-1', { albumType: 'ALBUM_TYPE_SINGLE' satisfies AlbumType });
 */
export type AlbumType = wire.AlbumType;

/**
 * One page of an album's songs; `nextPageToken` is empty on the last page.
 *
 * @example
 * const { items }: GetAlbumTracksResponse = await maqam.albums.listTracks('album-1');
 */
export type GetAlbumTracksResponse = wire.GetAlbumTracksResponse & Page<Song>;

/**
 * One page of an artist's albums, newest first.
 *
 * @example
 * const { items }: GetArtistDiscographyResponse = await maqam.artists.listAlbums('artist-1');
 */
export type GetArtistDiscographyResponse = wire.GetArtistDiscographyResponse & Page<Album>;

/**
 * A song's lyrics: `lyrics.lines` always, and `syncedLyrics` (each line with
 * `startTimeMs`, a decimal string) when they are time-synced.
 *
 * @example
 * const { language, lyrics, syncedLyrics }: GetLyricsResponse = await maqam.songs.lyrics('song-1');
 */
export type GetLyricsResponse = wire.GetLyricsResponse;

/**
 * One page of search results; `nextPageToken` is empty on the last page.
 *
 * @example
 * const page: SearchResponse = await maqam.search('fairuz');
 */
export type SearchResponse = wire.SearchResponse & Page<SearchResult>;

/**
 * A search result: exactly one of `song`, `artist`, `album`, `show` or
 * `movie` (the last two only when `types` asks for them).
 *
 * @example
 * const title = (r: SearchResult) => r.song?.title.value ?? r.artist?.name.value ?? r.album?.title.value ?? r.show?.title.value ?? r.movie?.title.value;
 */
export type SearchResult = wire.SearchResult;

/**
 * What a search may return: `song`, `artist`, `album`, `show` or `movie`.
 * Without `types` a search looks for songs, artists and albums: shows and
 * films are asked for by name.
 *
 * @example
 * const types: SearchType[] = ['show', 'movie'];
 */
export type SearchType = wire.SearchType;

/**
 * A signed-in user, as `library.me()` answers; `maxAgeRating` is the
 * parental cap the operator set, absent when there is none.
 *
 * @example
 * const user: User = await maqam.library.me();
 * greet(user.displayName);
 */
export type User = wire.User;

/**
 * A saved song or album (exactly one of them) and when it was first saved.
 *
 * @example
 * for await (const item of maqam.library.list()) console.log(item.song?.title.value ?? item.album?.title.value, item.savedAt);
 */
export type SavedItem = wire.SavedItem;

/**
 * A followed artist and when it was first followed.
 *
 * @example
 * for await (const { artist, followedAt } of maqam.library.followed()) console.log(artist.name.value, followedAt);
 */
export type FollowedArtist = wire.FollowedArtist;

/**
 * A counted play of the user's history.
 *
 * @example
 * for await (const entry of maqam.history.list()) console.log(entry.song.title.value, entry.playedAt);
 */
export type HistoryEntry = wire.HistoryEntry;

/**
 * One change to the user's library, in commit order.
 *
 * @example
 * for await (const change of maqam.library.changes({ cursor })) console.log(change.kind, change.id, change.change);
 */
export type Change = wire.Change;

/**
 * A play as the API takes it: the client's own `playId` makes reporting it twice harmless.
 *
 * @example
 * const play: Play = { playId: 'p-1', songId: 'song-1', startedAt: new Date().toISOString(), msPlayed: 31_000 };
 */
export type Play = wire.Play;

/**
 * Where a play started: exactly one of albumId, artistId, playlistId or searchQuery.
 *
 * @example
 * reporter.start('song-1', { durationMs: 215_000, context: { albumId: 'album-1' } satisfies PlayContext });
 */
export type PlayContext = wire.PlayContext;

/**
 * A playlist: its details, its cover (drawn by the server from its first
 * albums), how many entries it holds and its `version`, which every change
 * makes one more.
 *
 * @example
 * const { playlist } = await maqam.playlists.get('pl-1');
 * console.log(playlist.name.value, playlist.itemCount, playlist.version);
 */
export type Playlist = wire.Playlist;

/**
 * One entry of a playlist: `itemId` is the entry's own (two entries of one
 * song have two), `position` counts from 0. An entry whose song was withdrawn
 * carries `error` instead of `song`.
 *
 * @example
 * for await (const { itemId, song } of maqam.playlists.items('pl-1')) console.log(itemId, song?.title.value);
 */
export type PlaylistItem = wire.PlaylistItem;

/**
 * Who may read a playlist: its owner alone, or anyone.
 *
 * @example
 * await maqam.playlists.update('pl-1', { visibility: 'PLAYLIST_VISIBILITY_PUBLIC' });
 */
export type PlaylistVisibility = wire.PlaylistVisibility;

/**
 * How old a viewer must be for a title, least restrictive first. A title
 * without one counts as `AGE_RATING_18` for a user with a cap.
 *
 * @example
 * const forKids = (rating: AgeRating | undefined) => rating === 'AGE_RATING_ALL' || rating === 'AGE_RATING_7';
 */
export type AgeRating = wire.AgeRating;

/**
 * A person in a title's cast: `role` is the part played or the work done
 * (may be empty), `isLead` marks the leads.
 *
 * @example
 * const leads = (cast: CastMember[]) => cast.filter((member) => member.isLead).map((member) => member.name.value);
 */
export type CastMember = wire.CastMember;

/**
 * A show: its cast, its rating (absent: unrated) and its seasons by number,
 * each with its id, number, episode count and air date.
 *
 * @example
 * const show: Show = await maqam.video.shows.get('show-1');
 * for (const season of show.seasons) console.log(season.seasonNumber, season.episodeCount);
 */
export type Show = wire.Show;

/**
 * A season as its show lists it (`Show.seasons`): read the whole season with `video.seasons.get`.
 *
 * @example
 * const first: ShowSeason | undefined = (await maqam.video.shows.get('show-1')).seasons[0];
 */
export type ShowSeason = wire.Show['seasons'][number];

/**
 * A season of a show; `episodeCount` counts the episodes the caller may see.
 *
 * @example
 * const { season }: { season: Season } = await maqam.video.seasons.get('season-1');
 * console.log(season.seasonNumber, season.title.value);
 */
export type Season = wire.Season;

/**
 * An episode: its show, season and number, duration, languages and guest
 * cast; `ageRating` when it has its own, `creditsStartMs` when known.
 *
 * @example
 * const episode: Episode = await maqam.video.episodes.get('episode-1');
 * console.log(`S${episode.seasonNumber}E${episode.episodeNumber}`, episode.title.value);
 */
export type Episode = wire.Episode;

/**
 * A film: release date, duration, cast, languages and rating (absent: unrated).
 *
 * @example
 * const movie: Movie = await maqam.video.movies.get('movie-1');
 * console.log(movie.title.value, movie.releaseDate, movie.durationMs / 60_000, 'min');
 */
export type Movie = wire.Movie;

/**
 * A show or a film: exactly one of `show` or `movie`.
 *
 * @example
 * const name = (title: VideoTitle) => title.show?.title.value ?? title.movie?.title.value;
 */
export type VideoTitle = wire.VideoTitle;

/**
 * A season and one page of its episodes by number (`items`, also under
 * `episodes`); `nextPageToken` is empty on the last page.
 *
 * @example
 * const { season, items, nextPageToken }: GetSeasonResponse = await maqam.video.seasons.get('season-1', { pageSize: 10 });
 */
export type GetSeasonResponse = wire.GetSeasonResponse & Page<Episode>;

/**
 * One page of a show's or a film's soundtrack, in the order the title lists its songs.
 *
 * @example
 * const { items }: GetSoundtrackResponse = await maqam.video.listSoundtrack({ movieId: 'movie-1' });
 */
export type GetSoundtrackResponse = wire.GetSoundtrackResponse & Page<Song>;

/**
 * One page of the shows and films whose soundtrack lists a song.
 *
 * @example
 * const { items }: GetSongAppearancesResponse = await maqam.songs.listAppearances('song-1');
 */
export type GetSongAppearancesResponse = wire.GetSongAppearancesResponse & Page<VideoTitle>;

/**
 * The quality tiers of a video stream, lowest to best: SD 480p, HD 720p,
 * FULL_HD 1080p, UHD 2160p.
 *
 * @example
 * const maxQuality: VideoQuality = navigator.connection?.saveData ? 'VIDEO_QUALITY_SD' : 'VIDEO_QUALITY_FULL_HD';
 */
export type VideoQuality = wire.VideoQuality;

/**
 * A stream of a film or an episode: a signed HLS master playlist URL (one
 * variant per packaged rendition up to the quality asked for, an audio
 * rendition per language, WebVTT subtitles) that must be first fetched
 * within `expiresInSeconds`; `availableQualities` lists every quality the
 * title is packaged in, lowest first.
 *
 * @example
 * const { stream }: AcquireVideoStreamResponse = await maqam.streaming.acquireVideo({ episodeId: 'episode-1' });
 * hls.loadSource(stream.manifestUrl);
 */
export type AcquireVideoStreamResponse = wire.AcquireVideoStreamResponse;

/**
 * Where the viewer is in a film or an episode (exactly one of `movieId` and
 * `episodeId`), and when the player saw it: of two reports of a title the
 * later `reportedAt` wins, and the same one again changes nothing, so a
 * report may be sent late or twice. `restart: true` says the viewer started
 * over (a position under 5 % then replaces the resume point).
 *
 * @example
 * const report: ProgressReport = { movieId: { value: 'movie-1' }, positionMs: 1_250_000, reportedAt: new Date().toISOString() };
 */
export type ProgressReport = wire.ProgressReport;

/**
 * A title of continue watching: exactly one of `movie` or `episode` (for a
 * show, its episode in progress or the next one), where to resume, and when
 * the viewer last moved in it.
 *
 * @example
 * for await (const { movie, episode, positionMs } of maqam.library.continueWatching()) shelf.add(movie ?? episode, positionMs);
 */
export type ContinueWatchingItem = wire.GetContinueWatchingResponse['items'][number];

/**
 * One page of continue watching, latest first; `nextPageToken` is empty on the last page.
 *
 * @example
 * const { items, nextPageToken }: GetContinueWatchingResponse = await maqam.library.listContinueWatching({ pageSize: 10 });
 */
export type GetContinueWatchingResponse = wire.GetContinueWatchingResponse;

/**
 * One of a developer's API keys, never its secret: `keyPrefix` (`mk_<id>_`)
 * recognises it; `status` is ACTIVE, ROTATING (replaced, working until
 * `expiresAt`), REVOKED or EXPIRED; `lastUsedAt` is to the minute.
 *
 * @example
 * const { apiKey }: CreatedApiKey = await maqam.developer.keys.create({ name: 'my app' });
 * console.log(apiKey.keyPrefix, apiKey.status, apiKey.scopes.join(' '));
 */
export type ApiKey = wire.ApiKey;

/**
 * What a key may be used for: `catalog` (music and search), `video`, `playlists` (public ones).
 *
 * @example
 * const scopes: ApiKeyScope[] = ['catalog'];
 */
export type ApiKeyScope = ApiKey['scopes'][number];

/**
 * A new key (made or rotated) and its `secret`, the whole key
 * `mk_<id>_<secret><checksum>`: shown this once, never again, so keep it now.
 *
 * @example
 * const { apiKey, secret }: CreatedApiKey = await maqam.developer.keys.rotate(keyId, { graceSeconds: 3600 });
 * await vault.put(`maqam/${apiKey.id}`, secret);
 */
export type CreatedApiKey = wire.CreatedApiKeyResponse;

/**
 * A key's use per day (UTC) and operation over `from`..`to`: `calls`
 * answered, of them `clientErrors` (4xx, 429 included) and `rateLimited`
 * (429). Counted in memory and written at most once a minute, so the last
 * minute may not show yet.
 *
 * @example
 * const { usage }: ApiKeyUsage = await maqam.developer.keys.usage(keyId, { from: '2026-03-01' });
 * const limited = usage.reduce((sum, row) => sum + row.rateLimited, 0);
 */
export type ApiKeyUsage = wire.ApiKeyUsageResponse;
