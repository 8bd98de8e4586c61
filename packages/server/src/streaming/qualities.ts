/** The tiers `maqam media add` packages, lowest first. LOSSLESS is in the contract's enum; no tier is packaged for it yet. */
export const QUALITIES = ['AUDIO_QUALITY_LOW', 'AUDIO_QUALITY_STANDARD', 'AUDIO_QUALITY_HIGH', 'AUDIO_QUALITY_LOSSLESS'] as const;
export type Quality = (typeof QUALITIES)[number];

export interface Tier {
  readonly quality: Quality;
  readonly codec: string;
  readonly bitrateKbps: number;
}

export const PACKAGED_TIERS: readonly Tier[] = [
  { quality: 'AUDIO_QUALITY_LOW', codec: 'aac', bitrateKbps: 64 },
  { quality: 'AUDIO_QUALITY_STANDARD', codec: 'aac', bitrateKbps: 128 },
  { quality: 'AUDIO_QUALITY_HIGH', codec: 'aac', bitrateKbps: 256 },
];

export const rank = (quality: string) => QUALITIES.indexOf(quality as Quality);
