import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { MaqamClient } from '../client.ts';
import type { Tokens } from '../auth/session.ts';

/**
 * Settings of signInWithLoopback.
 *
 * @example
 * const options: LoopbackSignInOptions = { scope: 'read', timeoutMs: 120_000, open: (url) => execFile('xdg-open', [url]) };
 */
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

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

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
export async function signInWithLoopback(maqam: MaqamClient, options: LoopbackSignInOptions = {}): Promise<Tokens> {
  const redirect = new URL(maqam.auth.redirectUri);
  if (redirect.protocol !== 'http:' || !LOOPBACK_HOSTS.has(redirect.hostname) || !redirect.port) {
    throw new TypeError(`signInWithLoopback: the redirect URI must be http on a loopback address with a port, e.g. http://127.0.0.1:8765/callback (got ${redirect.href})`);
  }
  // RFC 8252 §8.3: listen on the loopback address itself, never on every interface.
  const host = redirect.hostname === 'localhost' ? '127.0.0.1' : redirect.hostname.replace(/^\[|\]$/g, '');
  let resolve!: (tokens: Tokens) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<Tokens>((resolveWith, rejectWith) => {
    resolve = resolveWith;
    reject = rejectWith;
  });

  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', redirect);
    // Only the authorization response may spend the pending sign-in; anything else (a stray visit) is turned away.
    if (request.method !== 'GET' || url.pathname !== redirect.pathname || !(url.searchParams.has('code') || url.searchParams.has('error'))) {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found');
      return;
    }
    // Settle once the page has been handed to the OS: closing the listener must not cut it off.
    maqam.auth.handleRedirect(url).then(
      (tokens) => {
        response.once('finish', () => resolve(tokens));
        finishPage(response, 200, 'تم تسجيل الدخول. يمكنك إغلاق هذه النافذة.', 'Signed in. You can close this window.');
      },
      (error: Error) => {
        response.once('finish', () => reject(error));
        finishPage(response, 400, 'لم يكتمل تسجيل الدخول.', `Sign-in did not complete: ${error.message}`);
      },
    );
  });
  const timer = setTimeout(() => reject(new Error('signInWithLoopback: nobody signed in in time')), options.timeoutMs ?? 300_000);
  const onAbort = () => reject(options.signal!.reason);
  options.signal?.addEventListener('abort', onAbort, { once: true });

  try {
    await new Promise<void>((listening, failed) => {
      server.once('error', failed);
      server.listen(Number(redirect.port), host, () => listening());
    });
    const url = await maqam.auth.createAuthorizationUrl(options.scope === undefined ? {} : { scope: options.scope });
    await (options.open ?? ((address: string) => void process.stderr.write(`Open this address to sign in:\n  ${address}\n`)))(url);
    return await promise;
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
    server.closeAllConnections();
    server.close();
  }
}

function finishPage(response: ServerResponse, status: number, arabic: string, english: string): void {
  const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  response.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', connection: 'close' });
  response.end(`<!doctype html><html lang="ar" dir="rtl"><meta charset="utf-8"><title>Maqam</title><body style="font-family:system-ui;padding:2rem"><p>${escape(arabic)}</p><p lang="en" dir="ltr">${escape(english)}</p></body></html>`);
}
