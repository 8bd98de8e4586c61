import { closeOnSignals, seedDemoCatalog, startServer, type Config } from '@maqam/server';
import type { Output } from '../output.ts';

export async function serve(config: Config, out: Output, flags: { demo?: boolean }): Promise<number> {
  const server = await startServer(config, {
    beforeListen: async (storage) => {
      if (!flags.demo) return;
      const anyArtist = await storage.db.selectFrom('artists').select('id').limit(1).executeTakeFirst();
      if (anyArtist) return;
      out.info('empty database: seeding the demo catalog (50,000 songs)...');
      await seedDemoCatalog(storage, {});
    },
  });
  closeOnSignals(server);
  if (flags.demo) {
    out.info(
      [
        '',
        `Maqam is serving the demo catalog at ${server.url}`,
        `  API reference:  ${server.url}/docs`,
        '  Make an API key:  npx maqam keys create --name demo',
        `  Then:  curl -s ${server.url}/v1/music/songs:batchGet -H "x-api-key: <key>" \\`,
        `           -H 'content-type: application/json' -H 'accept-language: en' \\`,
        `           -d '{"songIdList":[{"value":"song-1"},{"value":"song-2"}]}'`,
        `         curl -s '${server.url}/v1/music/artists/artist-1/related?page_size=5' -H "x-api-key: <key>"`,
        '',
      ].join('\n'),
    );
  }
  return 0;
}
