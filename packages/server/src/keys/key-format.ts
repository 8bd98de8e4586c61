import { crc32 } from 'node:zlib';

/**
 * API keys as presented (contract section 16): `mk_<keyId>_<secret><checksum>`,
 * the checksum a CRC32 of everything before it in base62, 6 characters, so a
 * secret scanner can tell a key from random text without asking us and a
 * mistyped or truncated key is refused before any database read. Keys made
 * before the checksum (`mk_<keyId>_<secret>`) keep working until rotated.
 *
 * The README publishes CHECKSUMMED_KEY_SOURCE for scanners.
 */
export const KEY_ID_LENGTH = 12;
export const SECRET_LENGTH = 43;
export const CHECKSUM_LENGTH = 6;
export const CHECKSUMMED_KEY_SOURCE = 'mk_[a-z0-9]{12}_[A-Za-z0-9_-]{43}[0-9A-Za-z]{6}';
const CHECKSUMMED_KEY = new RegExp(`^${CHECKSUMMED_KEY_SOURCE}$`);
const LEGACY_KEY = /^mk_[a-z0-9]{12}_[A-Za-z0-9_-]{43}$/;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** The key's format as stored (api_keys.format). */
export const LEGACY_FORMAT = 1;
export const CHECKSUMMED_FORMAT = 2;

/** CRC32 of `body` in base62, left-padded with 0 to 6 characters (62^6 > 2^32). */
export function checksumOf(body: string): string {
  let n = crc32(body);
  let out = '';
  for (let i = 0; i < CHECKSUM_LENGTH; i++) {
    out = BASE62[n % 62]! + out;
    n = Math.floor(n / 62);
  }
  return out;
}

/** The whole key of an id and a secret, with its checksum. */
export function formatKey(keyId: string, secret: string): string {
  const body = `mk_${keyId}_${secret}`;
  return body + checksumOf(body);
}

/** A presented key taken apart: its id, its secret and its format; null when it is neither format or its checksum is wrong. */
export interface ParsedKey {
  readonly keyId: string;
  readonly secret: string;
  readonly format: typeof LEGACY_FORMAT | typeof CHECKSUMMED_FORMAT;
}

export function parseKey(presented: string): ParsedKey | null {
  const keyId = presented.slice(3, 3 + KEY_ID_LENGTH);
  const secret = presented.slice(4 + KEY_ID_LENGTH, 4 + KEY_ID_LENGTH + SECRET_LENGTH);
  if (CHECKSUMMED_KEY.test(presented)) {
    const body = presented.slice(0, -CHECKSUM_LENGTH);
    return checksumOf(body) === presented.slice(-CHECKSUM_LENGTH) ? { keyId, secret, format: CHECKSUMMED_FORMAT } : null;
  }
  return LEGACY_KEY.test(presented) ? { keyId, secret, format: LEGACY_FORMAT } : null;
}
