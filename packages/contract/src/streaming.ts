import { Type, type Static } from 'typebox';
import { SongID } from './catalog.ts';
import { EpisodeID, MovieID } from './video.ts';

export const AUDIO_QUALITIES = ['AUDIO_QUALITY_LOW', 'AUDIO_QUALITY_STANDARD', 'AUDIO_QUALITY_HIGH', 'AUDIO_QUALITY_LOSSLESS'] as const;
export const AudioQuality = Type.Unsafe<(typeof AUDIO_QUALITIES)[number]>({ type: 'string', enum: [...AUDIO_QUALITIES], title: 'AudioQuality' });
export type AudioQuality = Static<typeof AudioQuality>;

/** AcquireMusicStream request (contract section 7); also accepted as song_id / max_quality. */
export const AcquireMusicStreamRequest = Type.Object(
  {
    songId: SongID,
    maxQuality: Type.Optional({ ...AudioQuality, description: 'The best quality wanted; unset: the best the song has.' }),
  },
  { title: 'AcquireMusicStreamRequest' },
);
export type AcquireMusicStreamRequest = Static<typeof AcquireMusicStreamRequest>;

export const AcquireMusicStreamResponse = Type.Object(
  {
    stream: Type.Object({
      manifestUrl: Type.String({ description: 'Signed HLS playlist URL, bound to the user, song and quality.' }),
      expiresInSeconds: Type.Integer(),
      drmScheme: Type.Literal('DRM_SCHEME_UNSPECIFIED'),
      licenseUrl: Type.String(),
      drmParams: Type.Record(Type.String(), Type.String()),
      availableQualities: Type.Array(Type.Object({ label: Type.String(), bitrateKbps: Type.Integer(), codec: Type.String() })),
    }),
  },
  { title: 'AcquireMusicStreamResponse' },
);
export type AcquireMusicStreamResponse = Static<typeof AcquireMusicStreamResponse>;

// ---- Contract section 15: AcquireVideoStream ----

export const VIDEO_QUALITIES = ['VIDEO_QUALITY_SD', 'VIDEO_QUALITY_HD', 'VIDEO_QUALITY_FULL_HD', 'VIDEO_QUALITY_UHD'] as const;
export const VideoQuality = Type.Unsafe<(typeof VIDEO_QUALITIES)[number]>({
  type: 'string', enum: [...VIDEO_QUALITIES], title: 'VideoQuality', description: 'SD 480p, HD 720p, FULL_HD 1080p, UHD 2160p.',
});
export type VideoQuality = Static<typeof VideoQuality>;

/** AcquireVideoStream request: exactly one of movieId and episodeId (also movie_id, episode_id, max_quality). */
export const AcquireVideoStreamRequest = Type.Object(
  {
    movieId: Type.Optional(MovieID),
    episodeId: Type.Optional(EpisodeID),
    maxQuality: Type.Optional({ ...VideoQuality, description: 'The best quality wanted; unset: every quality the title has.' }),
  },
  { title: 'AcquireVideoStreamRequest' },
);
export type AcquireVideoStreamRequest = Static<typeof AcquireVideoStreamRequest>;

export const AcquireVideoStreamResponse = Type.Object(
  {
    stream: Type.Object({
      manifestUrl: Type.String({ description: 'Signed HLS master playlist URL, bound to the user and title: a variant per packaged rendition up to maxQuality.' }),
      expiresInSeconds: Type.Integer(),
      drmScheme: Type.Literal('DRM_SCHEME_UNSPECIFIED'),
      licenseUrl: Type.String(),
      drmParams: Type.Record(Type.String(), Type.String()),
      availableQualities: Type.Array(Type.Object({ label: Type.String(), bitrateKbps: Type.Integer(), codec: Type.String() }), {
        description: 'Every quality the title is packaged in, lowest first.',
      }),
    }),
  },
  { title: 'AcquireVideoStreamResponse' },
);
export type AcquireVideoStreamResponse = Static<typeof AcquireVideoStreamResponse>;
