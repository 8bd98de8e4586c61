import type { Negotiation } from '../locale/negotiation.ts';
import type { CatalogService } from '../catalog/catalog.service.ts';

/** A time as the library answers it: RFC 3339, UTC, with milliseconds. */
export function rfc3339(ms: number): string {
  return new Date(ms).toISOString();
}

/**
 * The catalog's rendered `{"<kind>":{...}}` fragment of each item, in
 * order, through the read path (cached): one lookup per kind. Undefined for
 * an item the catalog no longer shows.
 */
export async function itemFragments(
  catalog: CatalogService,
  items: readonly { readonly kind: 'song' | 'album' | 'artist'; readonly id: string }[],
  negotiation: Negotiation,
): Promise<(Buffer | undefined)[]> {
  const fragments: (Buffer | undefined)[] = new Array(items.length);
  for (const kind of ['song', 'album', 'artist'] as const) {
    const at = items.flatMap((item, i) => (item.kind === kind ? [i] : []));
    if (at.length === 0) continue;
    const rendered = await catalog.fragments(kind, at.map((i) => items[i]!.id), negotiation);
    at.forEach((i, n) => (fragments[i] = rendered[n]));
  }
  return fragments;
}

/** `{"song":{...}}` with more members after the item: `members` starts with its comma. */
export function withMembers(fragment: Buffer, members: string): Buffer {
  return Buffer.concat([fragment.subarray(0, fragment.length - 1), Buffer.from(`${members}}`)]);
}
