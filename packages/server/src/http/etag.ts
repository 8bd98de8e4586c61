import { createHash } from 'node:crypto';
import { invalidRequest } from '../errors.ts';

/** A strong validator of bytes served whole (RFC 9110 §8.8.3): the first 132 bits of their SHA-256. */
export function contentEtag(body: Buffer | string): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
}

/** The ETag of a resource whose state is numbered by versions (a playlist: contract section 14). */
export const versionEtag = (version: number | string) => `"${version}"`;

/** One entity-tag of a list (RFC 9110 §8.8.3): `W/"x"` (weak) or `"x"`. */
const ENTITY_TAG = /^(W\/)?"([\x21\x23-\x7e\x80-\xff]*)"$/;

/** `*`, or the list's tags; a 400 naming the header when a member is not an entity-tag (`5` for `"5"`, say). */
function entityTags(header: string, name: string): '*' | { weak: boolean; opaque: string }[] {
  if (header.trim() === '*') return '*';
  return header.split(',').map((member) => member.trim()).filter((member) => member !== '').map((member) => {
    const match = ENTITY_TAG.exec(member);
    if (match === null) throw invalidRequest({ field: name, reason: 'entityTag' });
    return { weak: match[1] !== undefined, opaque: match[2]! };
  });
}

/**
 * The versions an If-Match header allows (RFC 9110 §13.1.1, strong
 * comparison: a weak tag matches nothing); undefined when there is no header,
 * or `*` (which any existing resource matches).
 */
export function ifMatchVersions(header: string | string[] | undefined): string[] | undefined {
  if (header === undefined) return undefined;
  const tags = entityTags([header].flat().join(','), 'If-Match');
  return tags === '*' ? undefined : tags.filter((tag) => !tag.weak).map((tag) => tag.opaque);
}

/** Whether If-None-Match names this ETag (RFC 9110 §13.1.2, weak comparison), so a GET answers 304. */
export function noneMatchHolds(header: string | string[] | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const tags = entityTags([header].flat().join(','), 'If-None-Match');
  return tags === '*' || tags.some((tag) => `"${tag.opaque}"` === etag);
}
