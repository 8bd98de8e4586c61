import { createHash } from 'node:crypto';

/** A strong validator of bytes served whole (RFC 9110 §8.8.3): the first 132 bits of their SHA-256. */
export function contentEtag(body: Buffer | string): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
}
