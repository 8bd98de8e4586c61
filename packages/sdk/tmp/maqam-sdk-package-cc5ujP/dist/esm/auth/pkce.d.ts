/** A random 43-character PKCE verifier (RFC 7636) or state. */
export declare function randomToken(): string;
/** The S256 challenge of a verifier. */
export declare function s256(verifier: string): Promise<string>;
