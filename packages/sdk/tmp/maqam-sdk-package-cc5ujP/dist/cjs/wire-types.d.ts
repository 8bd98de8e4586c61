// Generated from @maqam/contract by packages/sdk/scripts/wire-types.ts. Do not edit.

export interface AcquireMusicStreamResponse {
  stream: {
    /** Signed HLS playlist URL, bound to the user, song and quality. */
    manifestUrl: string;
    expiresInSeconds: number;
    drmScheme: "DRM_SCHEME_UNSPECIFIED";
    licenseUrl: string;
    drmParams: Record<string, string>;
    availableQualities: Array<{
      label: string;
      bitrateKbps: number;
      codec: string;
    }>;
  };
}

export interface Artist {
  id: ArtistID;
  name: LocalizedString;
  bio?: LocalizedString;
  genres: Array<string>;
  /** Numeric count carried as a string */
  followerCount: string;
  /** Numeric count carried as a string */
  monthlyListeners: string;
  isVerified: boolean;
  socialLinks: Array<SocialLink>;
  artwork: Array<Image>;
  nationality: string;
}

export interface ArtistID {
  /** The artist identifier. */
  value: string;
}

export interface LocalizedString {
  /** Text resolved for the request locale (Accept-Language). */
  value: string;
  /** Text in the item's original language. */
  originalValue: string;
}

export interface SocialLink {
  platform: string;
  url: string;
}

export interface Image {
  url: string;
  /** Pixels */
  width: number;
  /** Pixels */
  height: number;
}

export type AudioQuality = "AUDIO_QUALITY_LOW" | "AUDIO_QUALITY_STANDARD" | "AUDIO_QUALITY_HIGH" | "AUDIO_QUALITY_LOSSLESS";

export interface GetRelatedArtistsResponse {
  artists: Array<Artist>;
  /** Opaque token of the next page; empty on the last page. */
  nextPageToken: string;
}

export interface Song {
  id?: SongID;
  title?: LocalizedString;
  artists?: Array<SongArtistRef>;
  albumId?: AlbumID;
  /** Milliseconds */
  durationMs?: number;
  /** Track number within the album */
  trackNumber?: number;
  /** Disc number for multi-disc albums */
  discNumber?: number;
  /** YYYY-MM-DD */
  releaseDate?: string;
  genres?: Array<string>;
  isExplicit?: boolean;
  /** May be empty for some regional content. */
  isrc?: string;
  hasLyrics?: boolean;
  /** 0 to 100; higher is more popular */
  popularity?: number;
  artwork?: Array<Image>;
  /** May be empty. */
  previewUrl?: string;
}

export interface SongID {
  /** The song identifier. */
  value: string;
}

export interface SongArtistRef {
  id?: ArtistID;
  name?: LocalizedString;
}

export interface AlbumID {
  /** The album identifier. */
  value: string;
}

export interface TokenInfoResponse {
  active: true;
  scope: string;
  client_id: string;
  /** The user id */
  sub: string;
  /** Issued at, Unix seconds */
  iat: number;
  /** Expires at, Unix seconds */
  exp: number;
  /** Seconds left */
  expires_in: number;
  token_type: "Bearer";
}
