import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SendResult } from '@fastify/send';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { AcquireMusicStreamRequest, AcquireMusicStreamResponse } from '@maqam/contract';
import { ApiError } from '../errors.ts';
import { MEDIA_FILE } from './qualities.ts';
import type { SegmentSender } from './segment-body.ts';
import type { StreamClaims, StreamUrlKind, StreamUrlSigner } from './stream-urls.ts';
import type { StreamingService } from './streaming.service.ts';

export interface StreamingRouteDeps {
  streaming: StreamingService;
  signer: StreamUrlSigner;
  mediaRoot: string;
  publicUrl: string;
  /** Sends a segment's bytes through the app's pooled blocks (segment-body.ts). */
  sendSegment: SegmentSender;
  /** The app's clock (AppDeps.clock): how long a signed URL's answer may be cached. */
  clock: () => number;
}

const CONTENT_TYPES: Record<string, string> = { ts: 'video/mp2t', m4s: 'audio/mp4', mp4: 'audio/mp4' };

/**
 * Serving a segment's bytes is @fastify/send's (RFC 9110: a single range as 206, Accept-Ranges, ETag and
 * Last-Modified, If-None-Match and If-Modified-Since as 304, If-Match and If-Unmodified-Since, If-Range); who
 * may read which file is ours. Its own headers stay off: the cache lifetime is the signed URL's, the type the
 * segment format's. Each bare HTML answer it makes in place of a file becomes the contract's error instead. The
 * bytes go through pooled buffers (segment-body.ts).
 */
const SEND_OPTIONS = { index: false, cacheControl: false, contentType: false } as const;

function errorOf(answer: Exclude<SendResult, { type: 'file' }>): Error {
  answer.stream.destroy();
  if (answer.statusCode === 416) return new ApiError('rangeNotSatisfiable', { headers: { 'content-range': answer.headers['Content-Range']! } });
  if (answer.statusCode === 412) return new ApiError('segmentPreconditionFailed');
  // A file that is not there (404) is a URL that opens nothing, as a segment name no file has.
  if (answer.statusCode < 500) return new ApiError('streamUrlInvalid');
  // A disk that fails: a plain 500 with the request id.
  return answer.type === 'error' ? answer.metadata.error : new Error(`segment answered ${answer.statusCode}`);
}

export function streamingRoutes(app: FastifyInstance, deps: StreamingRouteDeps): void {
  const { streaming, signer, mediaRoot, publicUrl, sendSegment } = deps;

  app.withTypeProvider<TypeBoxTypeProvider>().post(
    '/v1/streaming/music',
    {
      schema: {
        operationId: 'AcquireMusicStream',
        tags: ['StreamingService'],
        summary: 'Acquires a signed HLS stream of a song for the signed-in user (OAuth scope `stream`; API keys are refused).',
        description: 'Answers a signed `manifestUrl` (HLS) at the best quality the song has up to `maxQuality`, and the qualities that exist. The manifest must be first fetched within `expiresInSeconds`; the segments it leads to stay valid for the whole listening window (acquisition + the song\'s duration + `MAQAM_STREAM_GRACE`). A stream is billed once per user, song and quality per `expiresInSeconds`; asking again inside it is not billed again.',
        body: AcquireMusicStreamRequest,
        response: { 200: AcquireMusicStreamResponse },
      },
      config: { access: 'stream' },
    },
    async (request, reply) => {
      const principal = request.principal;
      if (principal?.kind !== 'token') throw new ApiError('apiKeyNotAllowed');
      const { stream } = await streaming.acquire(principal, request.body.songId.value, request.body.maxQuality);
      reply.header('cache-control', 'no-store');
      return { stream };
    },
  );

  /** The claims of a valid token that opens `kind`, and the media directory of its song and quality; or a 403. */
  async function directoryOf(token: string, kind: StreamUrlKind): Promise<{ directory: string; claims: StreamClaims }> {
    const claims = signer.verify(token, kind);
    if (!claims) throw new ApiError('streamUrlInvalid');
    const directory = await streaming.mediaDirectory(claims.songId, claims.quality);
    if (directory === undefined) throw new ApiError('streamUrlInvalid');
    return { directory: join(mediaRoot, directory), claims };
  }

  const privateUntil = (reply: FastifyReply, expiresAt: number) =>
    reply.header('cache-control', `private, max-age=${Math.max(0, Math.floor((expiresAt - deps.clock()) / 1000))}`);

  app.get<{ Params: { token: string } }>('/v1/streaming/hls/:token/index.m3u8', { schema: { hide: true } }, async (request, reply) => {
    const { directory, claims } = await directoryOf(request.params.token, 'manifest');
    const playlist = await readFile(join(directory, 'index.m3u8'), 'utf8');
    // What the playlist leads to is signed until the listening window the manifest token carries, fixed at
    // acquisition: fetching the playlist again, however late in its TTL, never lengthens it.
    const media = signer.sign({ ...claims, kind: 'media', expiresAt: claims.listenUntil });
    const base = `${publicUrl}/v1/streaming/hls/${media}/`;
    // Segment lines, and the fMP4 initialization segment of #EXT-X-MAP, become absolute URLs carrying the media token.
    const signed = playlist
      .split('\n')
      .map((line) => (MEDIA_FILE.test(line.trim()) ? base + line.trim() : line.replace(/^(#EXT-X-MAP:URI=")([^"]+)"/, (map, prefix: string, name: string) => (MEDIA_FILE.test(name) ? `${prefix}${base}${name}"` : map))))
      .join('\n');
    privateUntil(reply, claims.expiresAt);
    return reply.type('application/vnd.apple.mpegurl').send(signed);
  });

  app.get<{ Params: { token: string; segment: string } }>('/v1/streaming/hls/:token/:segment', { schema: { hide: true } }, async (request, reply) => {
    const { directory, claims } = await directoryOf(request.params.token, 'media');
    if (!MEDIA_FILE.test(request.params.segment)) throw new ApiError('streamUrlInvalid');
    const answer = await sendSegment(request.raw, request.params.segment, { ...SEND_OPTIONS, root: directory });
    if (answer.type !== 'file') throw errorOf(answer);
    privateUntil(reply, claims.expiresAt);
    reply.code(answer.statusCode).headers(answer.headers);
    if (answer.statusCode !== 304) reply.type(CONTENT_TYPES[request.params.segment.split('.').pop()!]!);
    return reply.send(answer.stream);
  });
}
