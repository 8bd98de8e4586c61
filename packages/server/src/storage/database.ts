import type { Generated, Kysely } from 'kysely';

/**
 * Table types of the Maqam database, one interface per table.
 *
 * Texts that vary by language are stored as a JSON object from language tag to
 * text (`*_i18n`), and small lists (genres, artwork) as JSON arrays: the catalog
 * reads them whole, and the song hot path splices the stored JSON into responses
 * without re-serializing it. Booleans are 0/1 integers and times are Unix
 * milliseconds, so one set of queries serves SQLite and PostgreSQL.
 */
export interface Database {
  settings: SettingsTable;
  catalog_languages: CatalogLanguagesTable;
  artists: ArtistsTable;
  albums: AlbumsTable;
  songs: SongsTable;
  song_templates: SongTemplatesTable;
  related_artists: RelatedArtistsTable;
  lyrics: LyricsTable;
  song_artists: SongArtistsTable;
  album_artists: AlbumArtistsTable;
  search_segments: SearchSegmentsTable;
  search_items: SearchItemsTable;
  search_doclists: SearchDoclistsTable;
  search_vocabulary: SearchVocabularyTable;
  api_keys: ApiKeysTable;
  api_key_usage: ApiKeyUsageTable;
  users: UsersTable;
  oauth_clients: OAuthClientsTable;
  oauth_grants: OAuthGrantsTable;
  oauth_codes: OAuthCodesTable;
  oauth_refresh_tokens: OAuthRefreshTokensTable;
  oauth_access_tokens: OAuthAccessTokensTable;
  song_media: SongMediaTable;
  stream_ledger: StreamLedgerTable;
  stream_entitlements: StreamEntitlementsTable;
  library_items: LibraryItemsTable;
  library_changes: LibraryChangesTable;
  library_counters: LibraryCountersTable;
  play_history: PlayHistoryTable;
  idempotency_records: IdempotencyRecordsTable;
  playlists: PlaylistsTable;
  playlist_items: PlaylistItemsTable;
  shows: ShowsTable;
  seasons: SeasonsTable;
  episodes: EpisodesTable;
  movies: MoviesTable;
  title_songs: TitleSongsTable;
  video_packages: VideoPackagesTable;
  video_entitlements: VideoEntitlementsTable;
  watch_reports: WatchReportsTable;
  watch_progress: WatchProgressTable;
}

export interface SettingsTable {
  key: string;
  value: string;
}

/** Every language tag that some catalog text is written in; locale negotiation matches against it. */
export interface CatalogLanguagesTable {
  tag: string;
}

export interface ArtistsTable {
  id: string;
  name_i18n: string;
  original_language: string;
  bio_i18n: string | null;
  genres: string;
  /** Counts are decimal strings: the wire carries them as strings and they may exceed 2^53. */
  follower_count: string;
  monthly_listeners: string;
  is_verified: number;
  social_links: string;
  artwork: string;
  nationality: string;
  withdrawn: Generated<number>;
  updated_at: number;
}

export interface AlbumsTable {
  id: string;
  title_i18n: string;
  original_language: string;
  artist_ids: string;
  release_date: string;
  artwork: string;
  /** One of the contract's AlbumType values. */
  album_type: Generated<string>;
  label: Generated<string>;
  genres: Generated<string>;
  withdrawn: Generated<number>;
  updated_at: number;
}

export interface SongsTable {
  id: string;
  title_i18n: string;
  original_language: string;
  album_id: string;
  /**
   * JSON array of the credited artist ids, in credit order. A JSON column
   * rather than a join table: every read wants the whole ordered list, and
   * nothing yet queries songs by artist (an index table can be added then).
   */
  artist_ids: string;
  duration_ms: number;
  track_number: number;
  disc_number: number;
  release_date: string;
  genres: string;
  is_explicit: number;
  isrc: string;
  has_lyrics: number;
  popularity: number;
  artwork: string;
  preview_url: string;
  withdrawn: Generated<number>;
  updated_at: number;
}

/** A song's answer pre-rendered (catalog/song-template.ts); a row for each song that is not withdrawn. */
export interface SongTemplatesTable {
  id: string;
  /** Buffer on both dialects when read through the repos (node:sqlite gives a Uint8Array). */
  template: Uint8Array;
}

export interface LyricsTable {
  song_id: string;
  language: string;
  /** JSON array of the texts, as answered in `lyrics.lines`. */
  lines: string;
  /** JSON array of SyncedLyricsLine in time order, as answered; null for plain lyrics. */
  synced_lines: string | null;
  updated_at: number;
}

/** Index of the songs (not withdrawn) crediting an artist, in GetArtistTopTracks' order. */
export interface SongArtistsTable {
  artist_id: string;
  song_id: string;
  popularity: number;
}

/** Index of the albums (not withdrawn) crediting an artist, in GetArtistDiscography's order. */
export interface AlbumArtistsTable {
  artist_id: string;
  album_id: string;
  release_date: string;
  album_type: string;
}

/** A segment of the search index (search/doclist.ts): items numbered 0..size-1 in walk order. */
export interface SearchSegmentsTable {
  id: number;
  size: number;
  /** Bitmap of the item numbers re-indexed or withdrawn since (bit n of byte n >> 3), or null when none. */
  deleted: Uint8Array | null;
  /** How many bits `deleted` has set: it only grows, so it names the bitmap's content. */
  deleted_count: number;
}

/** An indexed item: its number in its segment, and what the order needs of it. */
export interface SearchItemsTable {
  segment: number;
  number: number;
  kind: 'song' | 'album' | 'artist' | 'show' | 'movie';
  item_id: string;
  /** The item's popularity (song popularity, artist monthly listeners, album's most popular song): the walk order. */
  popularity: number | string;
}

/** A word's postings in one chunk of a segment: 16-bit offsets of item numbers (search/doclist.ts). */
export interface SearchDoclistsTable {
  segment: number;
  chunk: number;
  /** A search word ('=' + words for a whole name, '#' + kind for an item's kind). */
  word: string;
  offsets: Uint8Array;
}

/** Every indexed word, with its space-separated phonetic keys. */
export interface SearchVocabularyTable {
  word: string;
  keys: string;
}

export interface RelatedArtistsTable {
  artist_id: string;
  related_id: string;
  score: number;
}

export interface ApiKeysTable {
  id: string;
  name: string;
  /** Hex SHA-256 of the secret part of `mk_<id>_<secret>`; the secret itself is never stored. */
  secret_hash: string;
  created_at: number;
  expires_at: number | null;
  revoked_at: number | null;
  /** When the key last authenticated a request, to the minute (each node writes it at most once a minute). */
  last_used_at: number | null;
  /** The developer who made it (contract section 16); null: an operator's, made with the CLI. */
  owner_id: Generated<string | null>;
  /** Space-separated key scopes: catalog, video, playlists. */
  scopes: Generated<string>;
  /** The key's own calls a minute (at most MAQAM_RATE_LIMIT); null: the server's. */
  rate_limit_per_minute: Generated<number | null>;
  /** 1: `mk_<id>_<secret>`; 2: with a CRC32 checksum (keys/key-format.ts). */
  format: Generated<number>;
  /** When it was rotated: it works until expires_at, answered with Deprecation and Sunset. */
  rotated_at: Generated<number | null>;
}

/** Calls of a key per day and operation, added to by every node's flush (keys/key-usage.ts). */
export interface ApiKeyUsageTable {
  key_id: string;
  /** UTC, YYYY-MM-DD. */
  day: string;
  operation: string;
  calls: number | string;
  client_errors: number | string;
  rate_limited: number | string;
}

export interface UsersTable {
  id: string;
  username: string;
  /** NFKC-normalized, lower-cased username: the unique sign-in key. */
  username_key: string;
  /** `scrypt$N$r$p$salt$hash` (base64url); never the password. */
  password_hash: string;
  created_at: number;
  /** Set while the user may not sign in; their grants were revoked when it was set. */
  disabled_at: number | null;
  /** The parental cap (an AgeRating) the operator set; null: none. */
  max_age_rating: Generated<string | null>;
  /** Space-separated roles ('developer'); empty: none. */
  roles: Generated<string>;
}

/** Public OAuth clients (no secret): they prove themselves with PKCE and exact redirect URIs. */
export interface OAuthClientsTable {
  id: string;
  name: string;
  /** JSON array of the exact redirect URIs registered for the client. */
  redirect_uris: string;
  /** Space-separated scopes the client may ask for. */
  scopes: string;
  created_at: number;
}

/** One sign-in of a user to a client: the family of everything issued from its code. */
export interface OAuthGrantsTable {
  id: string;
  client_id: string;
  user_id: string;
  scope: string;
  created_at: number;
  revoked_at: number | null;
  /** The sign-in form that made the grant (unique: a form yields one code); null for grants made otherwise. */
  form_id: string | null;
}

export interface OAuthCodesTable {
  code_hash: string;
  grant_id: string;
  redirect_uri: string;
  code_challenge: string;
  expires_at: number;
  /** Set by the one exchange that wins (or by the last failed check); a second exchange is a replay. */
  used_at: number | null;
  /** Exchanges refused for a wrong verifier, client or redirect URI; the fifth spends the code. */
  failed_checks: Generated<number>;
}

export interface OAuthRefreshTokensTable {
  token_hash: string;
  grant_id: string;
  issued_at: number;
  /** Set by the one refresh that rotates it; presenting it again is reuse. */
  spent_at: number | null;
}

export interface OAuthAccessTokensTable {
  token_hash: string;
  grant_id: string;
  issued_at: number;
  expires_at: number;
  revoked_at: number | null;
}

export interface SongMediaTable {
  song_id: string;
  /** AUDIO_QUALITY_LOW, _STANDARD or _HIGH. */
  quality: string;
  codec: string;
  bitrate_kbps: number;
  /** The HLS directory (index.m3u8 and segments), relative to MAQAM_MEDIA_DIR. */
  directory: string;
  created_at: number;
}

export interface StreamLedgerTable {
  id: string;
  user_id: string;
  client_id: string;
  song_id: string;
  quality: string;
  acquired_at: number;
  /** 'song', 'movie' or 'episode' (migration 020): what song_id names. */
  content_kind: Generated<string>;
}

export interface StreamEntitlementsTable {
  user_id: string;
  song_id: string;
  quality: string;
  ledger_id: string;
  expires_at: number;
}

/** A song or album a user saved, or an artist they follow. */
export interface LibraryItemsTable {
  user_id: string;
  kind: 'song' | 'album' | 'artist';
  item_id: string;
  /** The first save (saving again keeps it). */
  saved_at: number | string;
}

/** One change to a user's library, numbered 1, 2, ... per user in commit order. */
export interface LibraryChangesTable {
  user_id: string;
  number: number | string;
  kind: 'song' | 'album' | 'artist' | 'playlist' | 'movie' | 'episode';
  item_id: string;
  change: 'CHANGE_SAVED' | 'CHANGE_REMOVED' | 'CHANGE_UPDATED';
  changed_at: number | string;
}

/** How many changes a user's library has had: the number of the last one in library_changes. */
export interface LibraryCountersTable {
  user_id: string;
  changes: number | string;
}

/** A play as its client reported it; `counted` 0 is a skip. */
export interface PlayHistoryTable {
  user_id: string;
  play_id: string;
  song_id: string;
  started_at: number | string;
  ms_played: number;
  counted: number;
  /** The PlayContext as JSON, or null. */
  context: string | null;
}

/** A request that carried an Idempotency-Key, and its answer once it has one (null while it runs). */
export interface IdempotencyRecordsTable {
  user_id: string;
  key: string;
  /** What the request was: its method, path and body, hashed. */
  fingerprint: string;
  created_at: number | string;
  status: number | null;
  /** The answer's headers to replay, as JSON. */
  headers: string | null;
  body: string | null;
}

/** A user's playlist (contract section 14). */
export interface PlaylistsTable {
  id: string;
  owner_id: string;
  name: string;
  description: string;
  visibility: 'PLAYLIST_VISIBILITY_PRIVATE' | 'PLAYLIST_VISIBILITY_PUBLIC';
  created_at: number | string;
  updated_at: number | string;
  version: number | string;
  item_count: number;
  total_duration_ms: number | string;
  /** JSON array of up to four album ids, the first distinct albums of its entries. */
  cover_album_ids: string;
}

/** One entry of a playlist; entries stand in the order of their keys. */
export interface PlaylistItemsTable {
  playlist_id: string;
  item_id: string;
  /** Base-62 digits compared by their bytes (playlists/order-keys.ts); never changes while the entry stays where it is. */
  order_key: string;
  song_id: string;
  duration_ms: number;
  added_at: number | string;
  placed_version: number | string;
}

export type Db = Kysely<Database>;

/** The SQL dialect of a database: told once by openStorage (Storage.dialect), asked nowhere else. */
export type DialectName = 'sqlite' | 'postgres';

/** Video (migration 019). JSON columns as the importer wrote them; rating_rank as AGE_RATINGS orders them. */
export interface ShowsTable {
  id: string;
  title_i18n: string;
  description_i18n: string | null;
  original_language: string;
  genres: string;
  age_rating: string | null;
  rating_rank: number;
  release_year: number;
  /** JSON array of stored cast members (video/cast.ts). */
  cast_members: string;
  artwork: string;
  withdrawn: Generated<number>;
  updated_at: number;
}

export interface SeasonsTable {
  id: string;
  show_id: string;
  season_number: number;
  title_i18n: string;
  description_i18n: string | null;
  original_language: string;
  air_date: string | null;
  artwork: string;
  withdrawn: Generated<number>;
  updated_at: number;
}

export interface EpisodesTable {
  id: string;
  season_id: string;
  episode_number: number;
  title_i18n: string;
  description_i18n: string | null;
  original_language: string;
  duration_ms: number;
  air_date: string | null;
  guest_cast: string;
  artwork: string;
  audio_languages: string;
  subtitle_languages: string;
  /** The episode's own rating; its show's decides where this is lower or absent. */
  age_rating: string | null;
  /** The own rating's rank, 0 when it has none. */
  rating_rank: number;
  credits_start_ms: number | null;
  /** The title's answer as a template (video/title-template.ts); null until written by this version's import or rebuild. */
  template: Uint8Array | null;
  withdrawn: Generated<number>;
  updated_at: number;
}

export interface MoviesTable {
  id: string;
  title_i18n: string;
  description_i18n: string | null;
  original_language: string;
  genres: string;
  age_rating: string | null;
  rating_rank: number;
  release_date: string;
  duration_ms: number;
  cast_members: string;
  artwork: string;
  audio_languages: string;
  subtitle_languages: string;
  credits_start_ms: number | null;
  /** The title's answer as a template (video/title-template.ts); null until written by this version's import or rebuild. */
  template: Uint8Array | null;
  withdrawn: Generated<number>;
  updated_at: number;
}

export interface TitleSongsTable {
  title_kind: 'show' | 'movie';
  title_id: string;
  position: number;
  song_id: string;
}

/** A title's packaged HLS (migration 020; streaming/video-package.ts says what the JSON columns hold). */
export interface VideoPackagesTable {
  title_kind: 'movie' | 'episode';
  title_id: string;
  /** Relative to MAQAM_MEDIA_DIR; a new one each packaging, so a node never serves half of one. */
  directory: string;
  renditions: string;
  audio: string;
  subtitles: string;
  key_hex: string;
  iv_hex: string;
  duration_ms: number;
  created_at: number;
}

export interface VideoEntitlementsTable {
  user_id: string;
  title_kind: 'movie' | 'episode';
  title_id: string;
  quality: string;
  ledger_id: string;
  expires_at: number;
}

export interface WatchReportsTable {
  user_id: string;
  title_kind: 'movie' | 'episode';
  title_id: string;
  reported_at: number;
  position_ms: number;
  restart: number;
}

export interface WatchProgressTable {
  user_id: string;
  title_kind: 'movie' | 'episode';
  title_id: string;
  /** An episode's show, so a show's entry is found by its episodes; null for a film. */
  show_id: string | null;
  position_ms: number;
  /** The client's time of the report that set the resume point. */
  reported_at: number;
  updated_at: number;
  finished: number;
  hidden: number;
}
