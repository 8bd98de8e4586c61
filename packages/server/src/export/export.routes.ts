import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { UserExport } from '@maqam/contract';
import { uncachedAnswers } from '../http/answers.ts';
import { userOf } from '../http/credentials.ts';
import { exportFileName, type ExportService } from './export.service.ts';

export interface ExportRouteDeps {
  exports: ExportService;
}

/** A chunk is a page of rows (100 KB or so): the stream holds one and asks for the next once it has been written. */
const STREAM_BUFFER_BYTES = 64 * 1024;

/**
 * A person's own data, whole (LibraryService ExportMyData): the GDPR's
 * rights of access and portability. Scope `read`; an API key has no user.
 */
export async function exportRoutes(scope: FastifyInstance, { exports }: ExportRouteDeps): Promise<void> {
  const routes = scope.withTypeProvider<TypeBoxTypeProvider>();
  uncachedAnswers(scope);

  routes.get('/v1/users/me/export', {
    schema: {
      operationId: 'ExportMyData', tags: ['LibraryService'],
      summary: 'Everything the signed-in user has put into Maqam, as one JSON document to download.',
      description:
        'The profile, saved songs and albums, followed artists, the whole kept listening history (skips included, newest first), the user\'s playlists with every '
        + 'entry in order, and every viewing position. Items are named by id and by title in the request\'s language. Streamed as it is read (an export of '
        + 'years of plays starts at once); answered with `Content-Disposition: attachment`. Nothing of another user is in it.',
      response: { 200: UserExport },
    },
    config: { access: 'user-read' },
  }, async (request, reply) => {
    const opened = await exports.open(userOf(request), request.negotiation.chain);
    reply.header('content-disposition', contentDisposition(exportFileName(opened.user, opened.exportedAt)));
    return sendStream(reply, Readable.from(opened.chunks, { objectMode: false, highWaterMark: STREAM_BUFFER_BYTES }));
  });
}

/** The schema documents the body; a stream is sent as it is, so the document writer keeps to it (export.test.ts checks the document against it). */
function sendStream(reply: FastifyReply, body: Readable): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(body);
}

/** RFC 6266: an ASCII filename for every client, and the UTF-8 one (RFC 8187) where the name has other characters. */
function contentDisposition(fileName: string): string {
  const ascii = fileName.replace(/[^A-Za-z0-9._-]/g, '_');
  return ascii === fileName ? `attachment; filename="${fileName}"` : `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName)}`;
}
