import { Type, type Static } from 'typebox';
import { SongID } from './catalog.ts';

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
