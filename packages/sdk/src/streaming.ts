import type { AcquireMusicStreamResponse, AudioQuality } from './types.ts';
import { requestJson, type CallContext, type Transport } from './request.ts';
import { assert } from './pages.ts';

/** Streams of the catalog's songs for the signed-in user. */
export function createStreaming(transport: Transport) {
  return {
    /**
     * A signed HLS stream of a song for the signed-in user (scope `stream`).
     *
     * @example
     * const { stream } = await maqam.streaming.acquireMusic('song-1', { maxQuality: 'AUDIO_QUALITY_STANDARD' });
     * audio.src = stream.manifestUrl; // Safari; elsewhere an HLS player library
     */
    acquireMusic: async (songId: string, options: CallContext & { maxQuality?: AudioQuality | undefined } = {}): Promise<AcquireMusicStreamResponse> => {
      assert(typeof songId === 'string' && songId !== '', 'songId must be a non-empty string');
      const body = { songId: { value: songId }, ...(options.maxQuality ? { maxQuality: options.maxQuality } : {}) };
      // Acquisition is billable: not repeated after a network failure.
      return requestJson<AcquireMusicStreamResponse>(transport, { method: 'POST', path: '/v1/streaming/music', body, idempotent: false, context: options });
    },
  };
}

/** The streaming resource, by name (see Catalog in catalog.ts). */
export type Streaming = ReturnType<typeof createStreaming>;
