import type { MaqamClient } from '../client.js';
import type { Tokens } from '../auth/session.js';
export interface LoopbackSignInOptions {
    /** Scopes to ask for; default "read stream". */
    scope?: string;
    /**
     * Shows the user the URL to sign in at: open a browser, print it. Default:
     * printed to stderr.
     */
    open?: (url: string) => void | Promise<void>;
    /** Give up after this long; default 5 minutes. */
    timeoutMs?: number;
    signal?: AbortSignal;
}
/**
 * Signs a command-line user in through their browser (RFC 8252, OAuth for
 * native apps): listens on the loopback redirect URI the client was made with,
 * hands out the authorization URL, receives the browser's redirect there,
 * checks and exchanges it, and resolves with the stored tokens.
 *
 * The redirect URI must be registered exactly, port included (Maqam matches
 * redirect URIs exactly), e.g. `http://127.0.0.1:8765/callback`.
 *
 * @example
 * import { MaqamClient, memoryTokens } from '@maqam/sdk';
 * import { signInWithLoopback } from '@maqam/sdk/node';
 *
 * const maqam = new MaqamClient({
 *   baseUrl: 'http://127.0.0.1:3000',
 *   auth: { clientId: 'maqam-demo', redirectUri: 'http://127.0.0.1:8765/callback', storage: memoryTokens() },
 * });
 * await signInWithLoopback(maqam, { open: (url) => console.log(`Sign in at ${url}`) });
 * console.log(await maqam.auth.tokenInfo());
 */
export declare function signInWithLoopback(maqam: MaqamClient, options?: LoopbackSignInOptions): Promise<Tokens>;
