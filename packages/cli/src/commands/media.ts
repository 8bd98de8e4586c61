import { existsSync } from 'node:fs';
import { addMedia, MediaError, type Config } from '@maqam/server';
import { withStorage } from '../context.ts';
import { UsageError, type Output } from '../output.ts';

export async function media(config: Config, out: Output, [action, songId, file]: (string | undefined)[]): Promise<number> {
  if (action !== 'add' || !songId || !file) throw new UsageError('maqam media add SONG_ID AUDIO_FILE');
  if (!existsSync(file)) throw new UsageError(`no such file: ${file}`);
  return withStorage(config, out, async (storage) => {
    try {
      out.info(`packaging ${file} for ${songId} with ffmpeg...`);
      const tiers = await addMedia(storage.db, config.mediaDirectory, songId, file);
      const record = { songId, qualities: tiers.map((t) => ({ label: t.quality, bitrateKbps: t.bitrateKbps, codec: t.codec })) };
      out.record(record, () => `packaged ${songId}: ${tiers.map((t) => `${t.quality} (${t.bitrateKbps} kbps ${t.codec})`).join(', ')}`);
      return 0;
    } catch (error) {
      if (error instanceof MediaError) {
        out.info(`maqam: ${error.message}`);
        return 1;
      }
      throw error;
    }
  });
}
