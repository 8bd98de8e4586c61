import { createHash, randomBytes } from 'node:crypto';
import { closeOnSignals, createClientsService, createUsersService, seedDemoCatalog, startServer, type Config, type Storage } from '@maqam/server';
import type { Output } from '../output.ts';

/** The demo's sign-in: printed at start, meant for a machine of one's own. */
export const DEMO_USER = { username: 'demo', password: 'maqam-demo' };
export const DEMO_CLIENT_ID = 'maqam-demo';

/** On an empty database: the demo catalog, a demo user and a public demo client. */
async function seedDemo(storage: Storage, config: Config, out: Output): Promise<void> {
  const anyArtist = await storage.db.selectFrom('artists').select('id').limit(1).executeTakeFirst();
  if (!anyArtist) {
    out.info('empty database: seeding the demo catalog (50,000 songs)...');
    await seedDemoCatalog(storage, {});
  }
  const anyUser = await storage.db.selectFrom('users').select('id').limit(1).executeTakeFirst();
  if (!anyUser) await createUsersService(storage.db).create(DEMO_USER.username, DEMO_USER.password);
  const clients = createClientsService(storage.db);
  if (!(await clients.find(DEMO_CLIENT_ID))) {
    await clients.create({
      clientId: DEMO_CLIENT_ID,
      name: 'Maqam Demo',
      redirectUris: [`${config.publicUrl}/demo/callback`, 'http://127.0.0.1:8765/callback'],
      scopes: ['read', 'stream'],
    });
  }
}

export async function serve(config: Config, out: Output, flags: { demo?: boolean }): Promise<number> {
  const server = await startServer(config, { beforeListen: flags.demo ? (storage) => seedDemo(storage, config, out) : undefined });
  closeOnSignals(server);
  if (flags.demo) {
    const base = config.publicUrl;
    const verifier = randomBytes(32).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const redirect = 'http://127.0.0.1:8765/callback';
    const authorize = `${base}/v1/auth/authorize?${new URLSearchParams({
      response_type: 'code', client_id: DEMO_CLIENT_ID, redirect_uri: redirect, scope: 'read stream', state: 'demo',
      code_challenge: challenge, code_challenge_method: 'S256',
    })}`;
    out.info(
      [
        '',
        `Maqam is serving the demo catalog at ${base}`,
        `  API reference:  ${base}/docs`,
        '',
        'With an API key:',
        '  npx maqam keys create --name demo',
        `  curl -s ${base}/v1/music/songs:batchGet -H "x-api-key: <key>" \\`,
        `    -H 'content-type: application/json' -H 'accept-language: en' \\`,
        `    -d '{"songIdList":[{"value":"song-1"},{"value":"song-2"}]}'`,
        `  curl -s '${base}/v1/music/artists/artist-1/related?page_size=5' -H "x-api-key: <key>"`,
        '',
        `With OAuth (user "${DEMO_USER.username}", password "${DEMO_USER.password}", client "${DEMO_CLIENT_ID}"):`,
        `  1. open ${authorize}`,
        `  2. sign in; the browser lands on ${redirect}?code=...`,
        `  3. curl -s ${base}/v1/auth/token -H 'content-type: application/json' -d '{"grant_type":"authorization_code",` +
          `"client_id":"${DEMO_CLIENT_ID}","redirect_uri":"${redirect}","code_verifier":"${verifier}","code":"<code>"}'`,
        '',
      ].join('\n'),
    );
  }
  return 0;
}
