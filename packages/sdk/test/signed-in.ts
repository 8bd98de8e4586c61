import { createClientsService, createUsersService } from '@maqam/server';
import { MaqamClient, memoryTokens, type FetchLike } from '@maqam/sdk';
import { dialects } from '../../server/test/dialects.ts';
import { freePort, startTestServer, type TestServer } from '../../server/test/harness.ts';
import { readForm } from '../../server/test/oauth/oauth-helpers.ts';

export const PASSWORD = 'sdk password 1';
const REDIRECT_URI = 'http://127.0.0.1:9/callback';

/**
 * The real server listening on a free port (SQLite), with the user `username`
 * and a client that may ask for read, stream and write; `signedIn(scope)`
 * gives a client signed in as that user, over `fetch` when given. `env` adds
 * settings (MAQAM_MEDIA_DIR, say).
 */
export async function listeningServer(username: string, env: Record<string, string> = {}) {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const server: TestServer = await startTestServer(dialects[0]!, { MAQAM_PUBLIC_URL: baseUrl, MAQAM_RATE_LIMIT: '0', ...env });
  await server.app.listen({ port, host: '127.0.0.1' });
  await createUsersService(server.storage.db).create(username, PASSWORD);
  const { clientId } = await createClientsService(server.storage.db).create({ name: 'SDK tests', redirectUris: [REDIRECT_URI], scopes: ['read', 'stream', 'write'] });
  return {
    server,
    baseUrl,
    signedIn: (scope: string, fetchFn?: FetchLike) => signedInClient({ baseUrl, clientId, redirectUri: REDIRECT_URI, username, password: PASSWORD, scope, fetch: fetchFn }),
  };
}

/** Who signs in, to which client, with which scope; `fetch` is the client's own (a test's double), when given. */
export interface SignIn {
  baseUrl: string;
  clientId: string;
  redirectUri: string;
  username: string;
  password: string;
  scope: string;
  fetch?: FetchLike | undefined;
}

/** A client signed in through the server's own sign-in page, as a person would: the form, Allow, the redirect back. */
export async function signedInClient({ baseUrl, clientId, redirectUri, username, password, scope, fetch: fetchFn }: SignIn): Promise<MaqamClient> {
  const maqam = new MaqamClient({ baseUrl, ...(fetchFn ? { fetch: fetchFn } : {}), auth: { clientId, redirectUri, storage: memoryTokens() } });
  const page = await fetch(await maqam.auth.createAuthorizationUrl({ scope }));
  const { hidden, cookie } = readForm(await page.text(), page.headers.get('set-cookie') ?? undefined);
  const consent = await fetch(page.url.split('?')[0]!, {
    method: 'POST', redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
    body: new URLSearchParams({ ...hidden, username, password, decision: 'allow' }),
  });
  await maqam.auth.handleRedirect(consent.headers.get('location')!);
  return maqam;
}
