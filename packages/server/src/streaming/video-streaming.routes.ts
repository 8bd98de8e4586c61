import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { AcquireVideoStreamRequest, AcquireVideoStreamResponse } from '@maqam/contract';
import { ApiError, invalidRequest } from '../errors.ts';
import { videoQualityRank, VIDEO_PACKAGE_FILE, type VideoPackage } from './video-package.ts';
import type { VideoStreamClaims } from './video-urls.ts';
import type { VideoStreamingService } from './video-streaming.service.ts';
import type { SegmentSender } from './segment-body.ts';

export interface VideoStreamingRouteDeps {
  video: VideoStreamingService;
  mediaRoot: string;
  /** Sends a segment's bytes through the app's pooled blocks (segment-body.ts). */
  sendSegment: SegmentSender;
  /** The app's clock: how long a signed URL's answer may be cached. */
  clock: () => number;
}

const SEND_OPTIONS = { index: false, cacheControl: false, contentType: false } as const;
const CONTENT_TYPES: Record<string, string> = { ts: 'video/mp2t', vtt: 'text/vtt; charset=utf-8', m3u8: 'application/vnd.apple.mpegurl' };
const SEGMENT = /^seg\d{5}\.(?:ts|vtt)$/;

/** Whether a package file may be opened by a stream of these claims: one of the package's renditions, none above the stream's quality. */
function allowed(pkg: VideoPackage, claims: VideoStreamClaims, folder: string): boolean {
  const inFolder = (playlist: string) => playlist.startsWith(`${folder}/`);
  const video = pkg.renditions.find((rendition) => inFolder(rendition.playlist));
  if (video !== undefined) return videoQualityRank(video.quality) <= videoQualityRank(claims.maxQuality);
  return pkg.audio.some((track) => inFolder(track.playlist)) || pkg.subtitles.some((track) => inFolder(track.playlist));
}

/**
 * AcquireVideoStream (contract section 15) and the URLs it leads to: the
 * master playlist Maqam writes, media and I-frame playlists with every
 * segment and the key signed for the viewing window, segments served with
 * Range support, and the key, which checks the viewer's cap again.
 */
export function videoStreamingRoutes(app: FastifyInstance, deps: VideoStreamingRouteDeps): void {
  const { video, mediaRoot, sendSegment } = deps;

  app.withTypeProvider<TypeBoxTypeProvider>().post('/v1/streaming/video', {
    schema: {
      operationId: 'AcquireVideoStream',
      tags: ['StreamingService'],
      summary: 'Acquires a signed HLS stream of a film or an episode for the signed-in user (OAuth scope `stream`; API keys are refused).',
      description:
        'Exactly one of `movieId` and `episodeId`. Answers a signed master playlist with a variant per packaged rendition up to `maxQuality`, ' +
        'an audio rendition per language and WebVTT subtitles; segments are AES-128 encrypted, and the key URL checks the viewer again. ' +
        'Billed as AcquireMusicStream is (once per user, title and quality per `expiresInSeconds`). A title above the user\'s parental cap is a 403 that says why.',
      body: AcquireVideoStreamRequest,
      response: { 200: AcquireVideoStreamResponse },
    },
    config: { access: 'stream' },
  }, async (request, reply) => {
    const principal = request.principal;
    if (principal?.kind !== 'token') throw new ApiError('apiKeyNotAllowed');
    const { movieId, episodeId, maxQuality } = request.body;
    if ((movieId === undefined) === (episodeId === undefined)) throw invalidRequest({ field: movieId ? 'episodeId' : 'movieId', reason: 'oneTitle', params: { first: 'movieId', second: 'episodeId' } });
    const title = movieId ? { kind: 'movie' as const, id: movieId.value } : { kind: 'episode' as const, id: episodeId!.value };
    const { stream } = await video.acquire(principal, title, maxQuality);
    reply.header('cache-control', 'no-store');
    return { stream };
  });

  const privateUntil = (reply: FastifyReply, expiresAt: number) =>
    reply.header('cache-control', `private, max-age=${Math.max(0, Math.floor((expiresAt - deps.clock()) / 1000))}`);

  app.get<{ Params: { token: string } }>('/v1/streaming/video/:token/master.m3u8', { schema: { hide: true } }, async (request, reply) => {
    const { claims, pkg } = await video.opened(request.params.token, 'manifest');
    privateUntil(reply, claims.expiresAt);
    return reply.type(CONTENT_TYPES.m3u8!).send(video.master(claims, pkg));
  });

  app.get<{ Params: { token: string } }>('/v1/streaming/video/:token/key', { schema: { hide: true } }, async (request, reply) => {
    const { claims, pkg } = await video.opened(request.params.token, 'media');
    const key = await video.key(claims, pkg);
    // Never kept by a cache: each fetch is a fresh check of the viewer's cap.
    reply.header('cache-control', 'no-store');
    return reply.type('application/octet-stream').send(key);
  });

  app.get<{ Params: { token: string; folder: string; file: string } }>('/v1/streaming/video/:token/:folder/:file', { schema: { hide: true } }, async (request, reply) => {
    const { token, folder, file } = request.params;
    const { claims, pkg } = await video.opened(token, 'media');
    const path = `${folder}/${file}`;
    if (!VIDEO_PACKAGE_FILE.test(path) || !allowed(pkg, claims, folder)) throw new ApiError('streamUrlInvalid');
    const directory = join(mediaRoot, pkg.directory);
    privateUntil(reply, claims.expiresAt);
    if (file.endsWith('.m3u8')) {
      const playlist = await readFile(join(directory, path), 'utf8').catch(() => undefined);
      if (playlist === undefined) throw new ApiError('streamUrlInvalid');
      const prefix = video.mediaBase(token);
      // Segment lines become absolute URLs under the same media token; the key, its signed URL.
      const signed = playlist
        .split('\n')
        .map((line) => (SEGMENT.test(line.trim()) ? `${prefix}/${folder}/${line.trim()}` : line.replace('URI="key"', `URI="${prefix}/key"`)))
        .join('\n');
      return reply.type(CONTENT_TYPES.m3u8!).send(signed);
    }
    const answer = await sendSegment(request.raw, path, { ...SEND_OPTIONS, root: directory });
    if (answer.type !== 'file') {
      answer.stream.destroy();
      if (answer.statusCode === 416) throw new ApiError('rangeNotSatisfiable', { headers: { 'content-range': answer.headers['Content-Range']! } });
      if (answer.statusCode === 412) throw new ApiError('segmentPreconditionFailed');
      if (answer.statusCode < 500) throw new ApiError('streamUrlInvalid');
      throw answer.type === 'error' ? answer.metadata.error : new Error(`segment answered ${answer.statusCode}`);
    }
    reply.code(answer.statusCode).headers(answer.headers);
    if (answer.statusCode !== 304) reply.type(CONTENT_TYPES[file.split('.').pop()!]!);
    return reply.send(answer.stream);
  });
}
