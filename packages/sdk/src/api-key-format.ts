// The published key format (contract section 16, the README's regular
// expression): `mk_<id>_<secret><checksum>`, the checksum a CRC32 of the rest
// in base62. Standalone, so an app that never calls it ships none of it.

const KEY_FORMAT = /^mk_[a-z0-9]{12}_[A-Za-z0-9_-]{43}[0-9A-Za-z]{6}$/;

/**
 * Whether `text` is a Maqam API key in the published format with a right
 * checksum: a typo or a cut-off paste is caught here, without a request.
 * Keys made before the checksum (`mk_<id>_<secret>`, no checksum) answer
 * false, though the API takes them until they are rotated.
 *
 * @example
 * if (!isApiKey(process.env.MAQAM_API_KEY)) throw new Error('MAQAM_API_KEY is not a whole Maqam key; copy it again');
 */
export function isApiKey(text: unknown): boolean {
  if (typeof text !== 'string' || !KEY_FORMAT.test(text)) return false;
  // CRC-32 (IEEE, as zlib's) bit by bit: the key is ASCII, and a table would cost the bundle 1 KB.
  let crc = -1;
  for (let i = 0; i < text.length - 6; i++) {
    crc ^= text.charCodeAt(i);
    for (let bit = 0; bit < 8; bit++) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
  }
  let n = ~crc >>> 0;
  let checksum = '';
  // Base62 digits 0-9, A-Z, a-z, most significant first, 6 of them (62^6 > 2^32).
  for (let i = 0, digit; i < 6; i++, n = Math.floor(n / 62)) checksum = String.fromCharCode((digit = n % 62) + (digit < 10 ? 48 : digit < 36 ? 55 : 61)) + checksum;
  return checksum === text.slice(-6);
}
