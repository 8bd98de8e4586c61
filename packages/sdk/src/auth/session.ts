import { MaqamError, SignInRequiredError, type ErrorCode, type FieldViolation } from '../errors.ts';
import { send, type HttpOptions } from '../http.ts';
import { randomToken, s256 } from './pkce.ts';
import type { TokenStorage } from './storage.ts';

/**
 * The tokens of a signed-in user, as the SDK stores them and reports them
 * to `onTokens`.
 *
 * @example
 * const tokens: Tokens | null = await maqam.auth.tokens();
 * const minutesLeft = tokens ? (tokens.expiresAt - Date.now()) / 60_000 : 0;
 */
export interface Tokens {
  readonly accessToken: string;
  readonly refreshToken: string;
  /** When the access token was issued, Unix milliseconds (as this client saw it). */
  readonly issuedAt?: number;
  /** When the access token expires, Unix milliseconds. */
  readonly expiresAt: number;
  readonly scope: string;
}

/**
 * OAuth sign-in settings of a MaqamClient (authorization code + PKCE S256).
 *
 * @example
 * const auth: OAuthOptions = {
 *   clientId: 'maqam-demo',
 *   redirectUri: `${location.origin}/callback`,
 *   storage: localStorageTokens(),
 *   onTokens: (tokens) => renderAccountMenu(tokens !== null),
 *   onSignedOut: () => router.push('/sign-in'),
 * };
 */
export interface OAuthOptions {
  clientId: string;
  redirectUri: string;
  storage: TokenStorage;
  /** The server's issuer (its MAQAM_PUBLIC_URL); default: the client's baseUrl. Checked against `iss` on the redirect. */
  issuer?: string | undefined;
  /** Called whenever the stored tokens change: sign-in, every rotation, sign-out (null). */
  onTokens?: ((tokens: Tokens | null) => void) | undefined;
  /** Called once when a refresh is refused and the user must sign in again. */
  onSignedOut?: ((error: SignInRequiredError) => void) | undefined;
  /** Refresh this long before expiry (default 30 s; at most half the token's lifetime). */
  refreshAheadMs?: number | undefined;
  /** Prefix of the storage keys (default "maqam"). */
  storageKey?: string | undefined;
  /**
   * Share token changes with the other tabs of this origin over a
   * BroadcastChannel, so every tab holds the newest tokens and hears of
   * sign-outs (whatever the storage). Default: on in browsers, off elsewhere,
   * where one process may hold sessions of several users.
   */
  shareAcrossTabs?: boolean | undefined;
  /**
   * The clock token lifetimes are reckoned by, in milliseconds since the
   * epoch (default Date.now): tests move it instead of waiting.
   * @example
   * let now = Date.now();
   * const maqam = new MaqamClient({ baseUrl, auth: { clientId, redirectUri, storage: memoryTokens(), now: () => now } });
   * now += 3_600_000; // an hour on: the access token has expired
   */
  now?: (() => number) | undefined;
}

interface TokenResponse {
  access_token: string;
  refresh_token?: string;
  expires_in: number;
  scope: string;
}

interface LockManagerLike {
  request<T>(name: string, callback: () => Promise<T>): Promise<T>;
  query(): Promise<{ held?: { name?: string }[] }>;
}

/** How long a tab marks a refresh token as spent (see #markSpent), and waits at most for its successor. */
const SPENT_MARK_MS = 30_000;
const SUCCESSOR_WAIT_MS = 5_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** There are no tokens to use: the user must sign in (again). */
const noSession = (message: string) => new SignInRequiredError(message, { code: 'ERROR_CODE_UNAUTHENTICATED', status: 401 });

interface ChannelLike {
  postMessage(message: unknown): void;
  onmessage: ((event: { data: unknown }) => void) | null;
  unref?: () => void;
}

/**
 * An OAuth 2.0 sign-in (authorization code + PKCE S256) and its tokens.
 * Refreshes are single-flight: however many calls need a fresh token at once,
 * one refresh request is made; across browser tabs, Web Locks make sure two
 * tabs never spend the same refresh token.
 */
export class OAuthSession {
  readonly #http: HttpOptions;
  readonly #options: Required<Pick<OAuthOptions, 'refreshAheadMs' | 'storageKey'>> & OAuthOptions;
  #refreshing: Promise<Tokens> | undefined;
  readonly #channel: ChannelLike | undefined;
  readonly #now: () => number;

  constructor(http: HttpOptions, options: OAuthOptions) {
    this.#http = http;
    this.#options = { refreshAheadMs: 30_000, storageKey: 'maqam', ...options };
    this.#now = options.now ?? Date.now;
    const Channel = (globalThis as { BroadcastChannel?: new (name: string) => ChannelLike }).BroadcastChannel;
    const share = options.shareAcrossTabs ?? typeof (globalThis as { document?: unknown }).document !== 'undefined';
    if (share && Channel) {
      this.#channel = new Channel(this.#tokensKey);
      this.#channel.onmessage = (event) => void this.#adopt(event.data as { tokens: Tokens | null });
      this.#channel.unref?.(); // Node, Deno: an open channel must not keep the process alive
    }
  }

  /**
   * Takes in the tokens another tab stored, without sending them back. With
   * shared storage (localStorage) they are already there, but this tab's
   * `onTokens` still hears of the change (a sign-out elsewhere, say).
   */
  async #adopt(message: { tokens: Tokens | null }): Promise<void> {
    if (!message || typeof message !== 'object' || !('tokens' in message)) return;
    const current = await this.tokens();
    if (JSON.stringify(current) !== JSON.stringify(message.tokens)) {
      await this.#store(message.tokens, false);
    } else {
      this.#options.onTokens?.(message.tokens);
    }
  }

  get redirectUri(): string {
    return this.#options.redirectUri;
  }

  get #tokensKey() {
    return `${this.#options.storageKey}:tokens:${this.#options.clientId}`;
  }
  get #pendingKey() {
    return `${this.#options.storageKey}:pending:${this.#options.clientId}`;
  }

  async tokens(): Promise<Tokens | null> {
    const raw = await this.#options.storage.get(this.#tokensKey);
    if (!raw) return null;
    try {
      const tokens = JSON.parse(raw) as Tokens;
      return typeof tokens?.accessToken === 'string' && typeof tokens.refreshToken === 'string' ? tokens : null;
    } catch {
      return null; // unreadable (edited by hand, another app's key): as good as signed out
    }
  }

  async #store(tokens: Tokens | null, broadcast = true): Promise<void> {
    if (tokens) await this.#options.storage.set(this.#tokensKey, JSON.stringify(tokens));
    else await this.#options.storage.remove(this.#tokensKey);
    if (broadcast) this.#channel?.postMessage({ tokens });
    this.#options.onTokens?.(tokens);
  }

  async #fromResponse(response: Response, previous?: Tokens): Promise<Tokens> {
    const body = (await response.json()) as TokenResponse;
    const now = this.#now();
    return {
      accessToken: body.access_token,
      // A response without a refresh token keeps the one we had.
      refreshToken: body.refresh_token ?? previous?.refreshToken ?? '',
      issuedAt: now,
      expiresAt: now + body.expires_in * 1000,
      scope: body.scope,
    };
  }

  /** Starts a sign-in: keeps the verifier and state, returns the URL to send the user to. */
  async createAuthorizationUrl(options: { scope?: string; state?: string } = {}): Promise<string> {
    const verifier = randomToken();
    const state = options.state ?? randomToken();
    await this.#options.storage.set(this.#pendingKey, JSON.stringify({ verifier, state }));
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: this.#options.clientId,
      redirect_uri: this.#options.redirectUri,
      scope: options.scope ?? 'read stream',
      state,
      code_challenge: await s256(verifier),
      code_challenge_method: 'S256',
    });
    return `${this.#http.baseUrl}/v1/auth/authorize?${query}`;
  }

  /** Finishes a sign-in from the redirect URL: checks state and iss, exchanges the code, stores the tokens. */
  async handleRedirect(url: string | URL): Promise<Tokens> {
    const params = new URL(url).searchParams;
    const pendingRaw = await this.#options.storage.get(this.#pendingKey);
    await this.#options.storage.remove(this.#pendingKey);
    const fail = (message: string, code: ErrorCode = 'ERROR_CODE_INVALID_REQUEST') => new SignInRequiredError(message, { code, status: 0 });
    if (!pendingRaw) throw fail('no sign-in was started here (or it was already finished)');
    const pending = JSON.parse(pendingRaw) as { verifier: string; state: string };
    if (params.get('state') !== pending.state) throw fail('the redirect does not belong to the sign-in started here (state mismatch)');
    const issuer = this.#options.issuer ?? this.#http.baseUrl;
    if (params.get('iss') !== issuer) throw fail(`the redirect comes from "${params.get('iss')}", not from ${issuer} (RFC 9207)`);
    const error = params.get('error');
    if (error) throw fail(`sign-in ended with ${error}: ${params.get('error_description') ?? ''}`.trim(), error === 'access_denied' ? 'ERROR_CODE_PERMISSION_DENIED' : 'ERROR_CODE_INVALID_REQUEST');
    const code = params.get('code');
    if (!code) throw fail('the redirect carries no code');
    const response = await send(this.#http, {
      method: 'POST',
      path: '/v1/auth/token',
      body: { grant_type: 'authorization_code', code, redirect_uri: this.#options.redirectUri, client_id: this.#options.clientId, code_verifier: pending.verifier },
      idempotent: false,
    });
    const tokens = await this.#fromResponse(response);
    await this.#store(tokens);
    return tokens;
  }

  /** A live access token, refreshed ahead of expiry; throws SignInRequiredError when there is no session. */
  async accessToken(): Promise<string> {
    const tokens = await this.tokens();
    if (!tokens) throw noSession('sign in first');
    if (this.#fresh(tokens)) return tokens.accessToken;
    return (await this.refresh(tokens.accessToken)).accessToken;
  }

  /** Whether the access token is good for longer than the refresh margin. */
  #fresh(tokens: Tokens): boolean {
    // Short-lived tokens get a margin of half their life, or every call would refresh.
    const lifetime = tokens.issuedAt === undefined ? Infinity : tokens.expiresAt - tokens.issuedAt;
    return tokens.expiresAt - Math.min(this.#options.refreshAheadMs, lifetime / 2) > this.#now();
  }

  /**
   * Refreshes once for every caller that saw `staleAccessToken` rejected or
   * expiring. If the stored token already changed (another call or tab
   * refreshed), that one is used and no request is made.
   */
  refresh(staleAccessToken: string): Promise<Tokens> {
    this.#refreshing ??= this.#exclusively(async (locks) => {
      let current = await this.tokens();
      if (!current) throw noSession('sign in first');
      if (locks && (await this.#isSpent(locks, current.refreshToken))) current = await this.#successorOf(current);
      if (current.accessToken !== staleAccessToken && this.#fresh(current)) return current;
      const unmark = locks ? await this.#markSpent(locks, current.refreshToken) : undefined;
      try {
        return await this.#rotate(current);
      } catch (error) {
        // Not refused, just not done (no answer, 5xx, 429): the token may still be good, so no other
        // refresh may wait for a successor that will never come. A refusal ended the session anyway.
        if (!(error instanceof SignInRequiredError)) unmark?.();
        throw error;
      }
    }).finally(() => {
      this.#refreshing = undefined;
    });
    return this.#refreshing;
  }

  // Why the spent marks: another tab's write to shared storage is not seen at
  // once everywhere (Chromium hands localStorage changes to other renderers
  // asynchronously), so a tab granted the refresh lock right after another
  // rotated may still read the spent refresh token, and presenting it again
  // would make the server revoke the sign-in. The lock manager, unlike
  // storage, is one ordered authority for all tabs: a tab takes a lock named
  // after the token's hash before spending it, and holds it a while. A tab
  // that finds the mark waits for the successor to reach its storage (or
  // arrive over the BroadcastChannel) instead of spending the token again.

  async #spentLockName(refreshToken: string): Promise<string> {
    return `${this.#options.storageKey}:spent:${await s256(refreshToken)}`;
  }

  async #isSpent(locks: LockManagerLike, refreshToken: string): Promise<boolean> {
    const name = await this.#spentLockName(refreshToken);
    return ((await locks.query()).held ?? []).some((lock) => lock.name === name);
  }

  /**
   * Takes the token's spent mark, and resolves once the mark is held (before
   * the refresh lock is let go) with a function that takes it back early.
   */
  async #markSpent(locks: LockManagerLike, refreshToken: string): Promise<() => void> {
    const name = await this.#spentLockName(refreshToken);
    return new Promise<() => void>((held) => {
      void locks.request(name, () =>
        new Promise<void>((release) => {
          // Node has Web Locks too: the mark must not keep a finished process alive.
          (setTimeout(release, SPENT_MARK_MS) as { unref?: () => void }).unref?.();
          held(release);
        }));
    });
  }

  /** The tokens that replaced `spent`, once they reach this tab; a lost rotation (its tab closed mid-way) ends the session. */
  async #successorOf(spent: Tokens): Promise<Tokens> {
    // Real time, not `now`: how long another tab may take to store its refresh.
    for (const deadline = Date.now() + SUCCESSOR_WAIT_MS; Date.now() < deadline; await sleep(25)) {
      const current = await this.tokens();
      if (!current) throw noSession('signed out in another tab');
      if (current.refreshToken !== spent.refreshToken) return current;
    }
    throw noSession('another tab refreshed the session but its tokens never arrived; sign in again');
  }

  async #rotate(current: Tokens): Promise<Tokens> {
    let response: Response;
    try {
      response = await send(this.#http, {
        method: 'POST',
        path: '/v1/auth/token/refresh',
        body: { refresh_token: current.refreshToken, client_id: this.#options.clientId },
        idempotent: false, // a refresh spends its token: never replayed blindly
      });
    } catch (error) {
      if (error instanceof MaqamError && (error.status === 401 || error.status === 400)) {
        // Refused for good (spent, revoked, expired): the session is over. Never loop.
        const signedOut = new SignInRequiredError('the session ended; sign in again', {
          code: error.code,
          status: error.status,
          violations: error.violations as FieldViolation[],
          requestId: error.requestId,
        });
        await this.#store(null);
        this.#options.onSignedOut?.(signedOut);
        throw signedOut;
      }
      throw error;
    }
    const tokens = await this.#fromResponse(response, current);
    // Stored before any waiter resumes, so nobody can present the spent token again.
    await this.#store(tokens);
    return tokens;
  }

  /** Runs `work` holding a Web Lock shared by the tabs of this origin, where there are Web Locks. */
  #exclusively<T>(work: (locks: LockManagerLike | undefined) => Promise<T>): Promise<T> {
    const locks = (globalThis as { navigator?: { locks?: LockManagerLike } }).navigator?.locks;
    return locks ? locks.request(`${this.#options.storageKey}:refresh:${this.#options.clientId}`, () => work(locks)) : work(undefined);
  }

  /** Revokes the session's refresh token (and with it every token of the sign-in) and forgets the tokens. */
  async signOut(): Promise<void> {
    const tokens = await this.tokens();
    await this.#store(null);
    if (!tokens) return;
    await send(this.#http, { method: 'POST', path: '/v1/auth/token/revoke', body: { token: tokens.refreshToken, token_type_hint: 'refresh_token' }, idempotent: true }).catch(() => {
      // Revocation is best effort: the tokens are already forgotten here.
    });
  }
}
