import { hash } from 'node:crypto';

/**
 * What Maqam stores of a secret it issued (API key secrets, access and
 * refresh tokens, authorization codes): its SHA-256, in hex. Each secret is
 * 256 random bits, so one fast hash makes a stolen table useless (slow hashes
 * are for low-entropy passwords), and checking a credential on every request
 * stays cheap (about 3 us).
 */
export function hashSecret(secret: string): string {
  return hash('sha256', secret, 'hex');
}

/** The same hash as bytes, for a constant-time comparison with a stored one. */
export function secretDigest(secret: string): Buffer {
  return hash('sha256', secret, 'buffer');
}
