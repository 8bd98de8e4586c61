// Whether the signed-in account manages API keys here, and the scope the
// sign-in asks for to let it. The server grants the `developer` scope to any
// account that asks through a client allowed it, and refuses DeveloperService
// to an account without the developer role (403): so the Developer section
// shows only when the token has the scope and the server lets the account
// list its keys.
import { PermissionDeniedError, type TokenInfoResponse } from '@maqam/sdk';
import { maqam } from './session.ts';

/** Set when the client was registered without the developer scope: sign-ins stop asking for it. */
const CLIENT_REFUSES_DEVELOPER = 'maqam-demo:client-refuses-developer';

/** What the sign-in asks for: the library's scopes, and managing API keys when the client may ask for it. */
export const signInScope = () => (localStorage.getItem(CLIENT_REFUSES_DEVELOPER) ? 'read stream write' : 'read stream write developer');

/**
 * Whether a sign-in's redirect refused the developer scope (a client
 * registered before DeveloperService): if so, sign-ins stop asking for it,
 * and the caller starts one again. Once only: a second refusal is another
 * problem, and shows as one.
 */
export function developerScopeRefused(redirect: string): boolean {
  if (new URL(redirect).searchParams.get('error') !== 'invalid_scope' || localStorage.getItem(CLIENT_REFUSES_DEVELOPER)) return false;
  localStorage.setItem(CLIENT_REFUSES_DEVELOPER, '1');
  return true;
}

export const hasDeveloperScope = (user: TokenInfoResponse | null) => user?.scope.split(' ').includes('developer') ?? false;

/**
 * Whether the account may manage keys: its token has the scope, and a page
 * of one key is answered (an account without the role is a 403). Anything
 * else (the network) leaves the section out: the page is an extra, and a
 * reload asks again.
 */
export async function managesKeys(user: TokenInfoResponse): Promise<boolean> {
  if (!hasDeveloperScope(user)) return false;
  try {
    await maqam.developer.keys.listPage({ pageSize: 1 });
    return true;
  } catch (error) {
    if (!(error instanceof PermissionDeniedError)) console.warn('the Developer section is left out:', error);
    return false;
  }
}
