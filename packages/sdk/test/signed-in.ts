import { MaqamClient, memoryTokens, type FetchLike } from '@maqam/sdk';
import { readForm } from '../../server/test/oauth/oauth-helpers.ts';

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
