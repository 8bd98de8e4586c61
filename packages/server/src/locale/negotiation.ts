import { MESSAGE_LOCALES, type MessageLocale } from '../errors.ts';

/** One language range of an Accept-Language header, with its weight. */
interface WeightedRange {
  readonly range: string;
  readonly q: number;
}

// RFC 9110 §12.5.4 and §12.4.2: language-range (RFC 4647) with an optional weight.
const RANGE = /^(?:\*|[A-Za-z]{1,8}(?:-[A-Za-z0-9]{1,8})*)$/;
const QVALUE = /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/;

/** Parses Accept-Language; returns null when the header is not syntactically valid. */
export function parseAcceptLanguage(header: string): WeightedRange[] | null {
  const ranges: WeightedRange[] = [];
  for (const element of header.split(',')) {
    const trimmed = element.trim();
    if (trimmed === '') continue; // RFC 9110 §5.6.1: empty list elements are ignored
    const [rangePart = '', ...params] = trimmed.split(';');
    const range = rangePart.trim();
    if (!RANGE.test(range)) return null;
    let q = 1;
    if (params.length > 1) return null;
    if (params.length === 1) {
      const match = /^\s*[qQ]=(.*)$/.exec(params[0]!);
      if (!match || !QVALUE.test(match[1]!.trim())) return null;
      q = Number(match[1]);
    }
    ranges.push({ range: range.toLowerCase(), q });
  }
  // Stable sort keeps the header order among equal weights.
  return ranges.sort((a, b) => b.q - a.q);
}

/**
 * RFC 4647 §3.4 lookup: "zh-hant-cn" is tried as zh-hant-cn, zh-hant, zh; a
 * singleton left at the end after truncation ("x" in "en-x-foo") goes too.
 */
export function lookupCandidates(range: string): string[] {
  const subtags = range.split('-');
  const candidates: string[] = [];
  while (subtags.length > 0) {
    candidates.push(subtags.join('-'));
    subtags.pop();
    if (subtags.length > 0 && subtags[subtags.length - 1]!.length === 1) subtags.pop();
  }
  return candidates;
}

/** What the request's Accept-Language resolves to, against the catalog's languages. */
export interface Negotiation {
  /** Catalog languages to try, in order, for every LocalizedString; the original text comes after. */
  readonly chain: readonly string[];
  /** `chain` joined: the song cache keys fragments by it. */
  readonly chainKey: string;
  /**
   * The Content-Language of the response: the languages its texts were looked
   * up in, in order (RFC 9110 §8.5 allows a list). `Accept-Language: fr`
   * answers `fr, ar` when the default is Arabic, since an item without French
   * is served in Arabic; naming `fr` alone would claim French for Arabic texts.
   */
  readonly contentLanguage: string;
  /** The language of error messages. */
  readonly messageLocale: MessageLocale;
}

const NEGOTIATION_CACHE_SIZE = 1000;

/**
 * Negotiates locales. Results are memoized per header value: real traffic
 * repeats a handful of Accept-Language values, and the catalog's language set
 * only changes on import (then `setCatalogLanguages` resets the memo).
 */
export class LocaleNegotiator {
  readonly #defaultLocale: string;
  #catalogLanguages: ReadonlySet<string> = new Set();
  readonly #memo = new Map<string, Negotiation | null>();

  constructor(defaultLocale: string) {
    this.#defaultLocale = defaultLocale;
  }

  setCatalogLanguages(tags: Iterable<string>): void {
    this.#catalogLanguages = new Set([...tags].map((t) => t.toLowerCase()));
    this.#memo.clear();
  }

  /** Returns null when the header is not valid per RFC 9110. */
  negotiate(header: string | undefined): Negotiation | null {
    const key = header ?? '';
    let result = this.#memo.get(key);
    if (result === undefined) {
      result = this.#compute(header);
      if (this.#memo.size >= NEGOTIATION_CACHE_SIZE) this.#memo.clear();
      this.#memo.set(key, result);
    }
    return result;
  }

  /** Best effort for error messages: an invalid header falls back to the default. */
  messageLocale(header: string | undefined): MessageLocale {
    return (this.negotiate(header) ?? this.negotiate(undefined)!).messageLocale;
  }

  #compute(header: string | undefined): Negotiation | null {
    const ranges = header === undefined ? [] : parseAcceptLanguage(header);
    if (ranges === null) return null;
    const requested: string[] = [];
    for (const { range, q } of ranges) {
      if (q === 0 || range === '*') continue; // RFC 4647 §3.4: lookup ignores the wildcard
      for (const candidate of lookupCandidates(range)) {
        if (!requested.includes(candidate)) requested.push(candidate);
      }
    }
    const preferred = [...requested, ...lookupCandidates(this.#defaultLocale)];
    const chain = [...new Set(preferred.filter((tag) => this.#catalogLanguages.has(tag)))];
    const messageLocale = (preferred.find((tag) => (MESSAGE_LOCALES as readonly string[]).includes(tag)) ??
      'en') as MessageLocale;
    return {
      chain,
      chainKey: chain.join(','),
      contentLanguage: chain.length > 0 ? chain.join(', ') : this.#defaultLocale,
      messageLocale,
    };
  }
}

/**
 * Picks the text of a LocalizedString: the first language of the chain the
 * item has, else its original text (contract section 3).
 */
export function resolveLocalizedString(
  texts: Readonly<Record<string, string>>,
  originalLanguage: string,
  chain: readonly string[],
): { value: string; originalValue: string } {
  const originalValue = texts[originalLanguage] ?? Object.values(texts)[0] ?? '';
  for (const tag of chain) {
    const text = texts[tag];
    if (text !== undefined) return { value: text, originalValue };
  }
  return { value: originalValue, originalValue };
}
