import { createWriteStream } from 'node:fs';
import { resolve } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { exportFileName, openOperatorExport, type Config, type Storage } from '@maqam/server';

/**
 * `maqam users export U`: the document GET /v1/users/me/export streams to U,
 * written by the same code, a page of rows at a time, to a file.
 */
export async function exportUser(
  storage: Storage, config: Config, userId: string, flags: { out?: string; locale?: string },
): Promise<{ username: string; file: string; bytes: number }> {
  const opened = await openOperatorExport(storage, { userId, defaultLocale: config.defaultLocale, acceptLanguage: flags.locale });
  const file = flags.out ?? exportFileName(opened.user, opened.exportedAt);
  let bytes = 0;
  const counted = async function* (chunks: AsyncIterable<string>) {
    for await (const chunk of chunks) {
      bytes += Buffer.byteLength(chunk);
      yield chunk;
    }
  };
  await pipeline(Readable.from(counted(opened.chunks), { objectMode: false }), createWriteStream(file));
  return { username: opened.user.username, file: resolve(file), bytes };
}
