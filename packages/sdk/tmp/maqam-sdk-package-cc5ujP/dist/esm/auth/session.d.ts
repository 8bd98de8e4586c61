import { SignInRequiredError } from '../errors.js';
import { type HttpOptions } from '../http.js';
import type { TokenStorage } from './storage.js';
/** The tokens of a signed-in user, as the SDK stores them. */
export interface Tokens {
    readonly accessToken: string;
    readonly refreshToken: string;
    /** Unix milliseconds. */
    readonly expiresAt: number;
    readonly scope: string;
}
export interface OAuthOptions {
    clientId: string;
    redirectUri: string;
    storage: TokenStorage;
    /** The server's issuer (its MAQAM_PUBLIC_URL); default: the client's baseUrl. Checked against `iss` on the redirect. */
    issuer?: string;
    /** Called whenever the stored tokens change: sign-in, every rotation, sign-out (null). */
    onTokens?: (tokens: Tokens | null) => void;
    /** Called once when a refresh is refused and the user must sign in again. */
    onSignedOut?: (error: SignInRequiredError) => void;
    /** Refresh this long before expiry (default 30 s). */
    refreshAheadMs?: number;
    /** Prefix of the storage keys (default "maqam"). */
    storageKey?: string;
    /**
     * Share token changes with the other tabs of this origin over a
     * BroadcastChannel, so every tab holds the newest tokens and hears of
     * sign-outs (whatever the storage). Default: on in browsers, off elsewhere,
     * where one process may hold sessions of several users.
     */
    shareAcrossTabs?: boolean;
}
/**
 * An OAuth 2.0 sign-in (authorization code + PKCE S256) and its tokens.
 * Refreshes are single-flight: however many calls need a fresh token at once,
 * one refresh request is made; across browser tabs, Web Locks make sure two
 * tabs never spend the same refresh token.
 */
export declare class OAuthSession {
    #private;
    constructor(http: HttpOptions, options: OAuthOptions);
    get redirectUri(): string;
    tokens(): Promise<Tokens | null>;
    /** Starts a sign-in: keeps the verifier and state, returns the URL to send the user to. */
    createAuthorizationUrl(options?: {
        scope?: string;
        state?: string;
    }): Promise<string>;
    /** Finishes a sign-in from the redirect URL: checks state and iss, exchanges the code, stores the tokens. */
    handleRedirect(url: string | URL): Promise<Tokens>;
    /** A live access token, refreshed ahead of expiry; throws SignInRequiredError when there is no session. */
    accessToken(): Promise<string>;
    /**
     * Refreshes once for every caller that saw `staleAccessToken` rejected or
     * expiring. If the stored token already changed (another call or tab
     * refreshed), that one is used and no request is made.
     */
    refresh(staleAccessToken: string): Promise<Tokens>;
    /** Revokes the session's refresh token (and with it every token of the sign-in) and forgets the tokens. */
    signOut(): Promise<void>;
}
