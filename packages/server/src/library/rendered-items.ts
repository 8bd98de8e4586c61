import type { Negotiation } from '../locale/negotiation.ts';
import type { CatalogFragments } from '../catalog/catalog.service.ts';

const DAY_MS = 86_400_000;
const two = (n: number) => (n < 10 ? `0${n}` : `${n}`);

/**
 * A time as the library answers it: RFC 3339, UTC, with milliseconds, as
 * Date.prototype.toISOString writes it for years 0 to 9999. Computed here
 * (the civil date from the day number, Howard Hinnant's days_from_civil
 * inverted) because a change feed page writes 500 of them: 0.15 against
 * 0.49 us a time (bench/README.md at 9b0c7f5, "the user's library under load").
 */
export function rfc3339(ms: number): string {
  const days = Math.floor(ms / DAY_MS);
  let rest = ms - days * DAY_MS;
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor((dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365);
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const monthIndex = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * monthIndex + 2) / 5) + 1;
  const month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = Math.floor(rest / 1000);
  const millis = rest - seconds * 1000;
  return `${String(year).padStart(4, '0')}-${two(month)}-${two(day)}T${two(hours)}:${two(minutes)}:${two(seconds)}.${String(millis).padStart(3, '0')}Z`;
}

/**
 * The catalog's rendered `{"<kind>":{...}}` fragment of each item, in
 * order, through the read path (cached): one lookup per kind. Undefined for
 * an item the catalog no longer shows.
 */
export async function itemFragments(
  catalog: CatalogFragments,
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

/** `{"song":{...}}` with more members after the item (`members` starts with its comma), as the parts of one list item. */
export function withMembers(fragment: Buffer, members: string): readonly Buffer[] {
  return [fragment.subarray(0, fragment.length - 1), Buffer.from(`${members}}`)];
}
