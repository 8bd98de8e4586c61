/** The contract's quality tiers, lowest first; `maqam media add` packages every one. */
export const QUALITIES = ['AUDIO_QUALITY_LOW', 'AUDIO_QUALITY_STANDARD', 'AUDIO_QUALITY_HIGH', 'AUDIO_QUALITY_LOSSLESS'] as const;
export type Quality = (typeof QUALITIES)[number];

export interface Tier {
  readonly quality: Quality;
  readonly codec: string;
  /** For lossless, the ceiling: FLAC of 16-bit 44.1 kHz stereo never needs more than the PCM rate. */
  readonly bitrateKbps: number;
  /**
   * HLS segment format: MPEG-TS for AAC (plays everywhere, Safari natively);
   * fragmented MP4 for FLAC, which MPEG-TS cannot carry (RFC 8216 §3.3, §3.4).
   */
  readonly container: 'mpegts' | 'fmp4';
}

export const PACKAGED_TIERS: readonly Tier[] = [
  { quality: 'AUDIO_QUALITY_LOW', codec: 'aac', bitrateKbps: 64, container: 'mpegts' },
  { quality: 'AUDIO_QUALITY_STANDARD', codec: 'aac', bitrateKbps: 128, container: 'mpegts' },
  { quality: 'AUDIO_QUALITY_HIGH', codec: 'aac', bitrateKbps: 256, container: 'mpegts' },
  { quality: 'AUDIO_QUALITY_LOSSLESS', codec: 'flac', bitrateKbps: 1411, container: 'fmp4' },
];

/** Media files a playlist may name: numbered segments of either container, and the fMP4 initialization segment. */
export const MEDIA_FILE = /^(?:seg\d{3,6}\.(?:ts|m4s)|init\.mp4)$/;

export const rank = (quality: string) => QUALITIES.indexOf(quality as Quality);
