import { createCipheriv, createDecipheriv, createSecretKey, randomBytes } from 'node:crypto';

const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

/**
 * The one codec for tokens the server hands out and reads back (page
 * tokens, stream URLs): a JSON value sealed with AES-256-GCM under a
 * purpose-bound key, as one base64url string. Sealed rather than signed, so
 * a token says nothing to whoever holds it (a stream URL in a proxy's log
 * names no user); authenticated, so it cannot be forged or edited. Only the
 * canonical encoding is accepted: there is exactly one spelling of a valid
 * token, so a token cannot be varied to slip past caches or deny-lists.
 */
export interface TokenSealer {
  seal(value: unknown): string;
  /** The sealed value, or null for anything this sealer did not seal (edited, foreign, re-spelled, garbage). */
  open(token: string): unknown;
}

export function createTokenSealer(keyBytes: Buffer): TokenSealer {
  if (keyBytes.length !== 32) throw new Error('a token sealer needs a 32-byte key');
  // A KeyObject made once: given bytes, every cipher would make its own (a search that returns a page token paid for it).
  const key = createSecretKey(keyBytes);
  return {
    seal(value) {
      const nonce = randomBytes(NONCE_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, nonce);
      const sealed = Buffer.concat([nonce, cipher.update(JSON.stringify(value), 'utf8'), cipher.final(), cipher.getAuthTag()]);
      return sealed.toString('base64url');
    },
    open(token) {
      if (token.length > 4096 || !BASE64URL.test(token)) return null;
      const bytes = Buffer.from(token, 'base64url');
      // Node decodes leniently (trailing bits, padding); re-encoding tells the one canonical spelling.
      if (bytes.length < NONCE_BYTES + TAG_BYTES + 1 || bytes.toString('base64url') !== token) return null;
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, NONCE_BYTES));
        decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
        const text = Buffer.concat([decipher.update(bytes.subarray(NONCE_BYTES, bytes.length - TAG_BYTES)), decipher.final()]).toString('utf8');
        return JSON.parse(text) as unknown;
      } catch {
        return null;
      }
    },
  };
}
