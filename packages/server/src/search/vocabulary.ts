/** How a vocabulary word matches a query word; lower is better (contract section 11's relevance). */
export const MATCH = { whole: 1, prefix: 2, variant: 3 } as const;
export type MatchQuality = (typeof MATCH)[keyof typeof MATCH];

/** Prefix expansions per query word: search-as-you-type on one letter would otherwise take the whole vocabulary. */
const MAX_PREFIX_WORDS = 200;
/** Rule 5: words of this many letters or more match within one typo. */
const TYPO_MIN_LENGTH = 5;

/** True when a and b are one insertion, deletion, substitution or swap of neighbours apart. */
export function withinOneEdit(a: string, b: string): boolean {
  if (a === b) return true;
  const x = [...a];
  const y = [...b];
  if (Math.abs(x.length - y.length) > 1) return false;
  let i = 0;
  while (i < x.length && i < y.length && x[i] === y[i]) i++;
  if (x.length === y.length) {
    const rest = (from: number) => x.slice(from).join('') === y.slice(from).join('');
    return rest(i + 1) || (x[i] === y[i + 1] && x[i + 1] === y[i] && rest(i + 2));
  }
  const [longer, shorter] = x.length > y.length ? [x, y] : [y, x];
  return longer.slice(i + 1).join('') === shorter.slice(i).join('');
}

/** Every variant of a word with one letter removed. */
function deletions(word: string): string[] {
  const letters = [...word];
  return letters.map((_, i) => [...letters.slice(0, i), ...letters.slice(i + 1)].join(''));
}

/**
 * The index's words, in memory on each node: what a query word expands to
 * before the postings are read. Prefixes come from a sorted list, typos from
 * a deletion index (SymSpell's idea: two words one edit apart share a
 * one-letter deletion), transliterations and cross-script spellings from the
 * phonetic keys. Rebuilt from the database when the catalog changes.
 */
export class Vocabulary {
  readonly #sorted: string[];
  readonly #byKey = new Map<string, string[]>();
  readonly #byDeletion = new Map<string, string[]>();
  readonly #words: Set<string>;

  constructor(rows: readonly { word: string; keys: string }[]) {
    this.#words = new Set(rows.map((row) => row.word));
    // Code-unit order: the same on every node and dialect.
    this.#sorted = [...this.#words].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const push = (map: Map<string, string[]>, key: string, word: string) => {
      const list = map.get(key);
      if (list) list.push(word);
      else map.set(key, [word]);
    };
    for (const row of rows) {
      for (const key of row.keys.split(' ')) if (key !== '') push(this.#byKey, key, row.word);
      if ([...row.word].length >= TYPO_MIN_LENGTH - 1) for (const variant of new Set(deletions(row.word))) push(this.#byDeletion, variant, row.word);
      if ([...row.word].length >= TYPO_MIN_LENGTH - 1) push(this.#byDeletion, row.word, row.word);
    }
  }

  get size(): number {
    return this.#words.size;
  }

  /**
   * The indexed words a query word matches, each with its best quality:
   * itself (whole), words it begins (prefix, for the last query word),
   * words one typo away (5+ letters) and words with a phonetic key in common.
   */
  expand(word: string, keys: readonly string[], asPrefix: boolean): Map<string, MatchQuality> {
    const found = new Map<string, MatchQuality>();
    const note = (candidate: string, quality: MatchQuality) => {
      const known = found.get(candidate);
      if (known === undefined || quality < known) found.set(candidate, quality);
    };
    if (this.#words.has(word)) note(word, MATCH.whole);
    if (asPrefix) {
      let low = 0;
      let high = this.#sorted.length;
      while (low < high) {
        const mid = (low + high) >>> 1;
        if (this.#sorted[mid]! < word) low = mid + 1;
        else high = mid;
      }
      for (let i = low, n = 0; i < this.#sorted.length && n < MAX_PREFIX_WORDS && this.#sorted[i]!.startsWith(word); i++, n++) {
        note(this.#sorted[i]!, MATCH.prefix);
      }
    }
    if ([...word].length >= TYPO_MIN_LENGTH) {
      for (const variant of [word, ...deletions(word)]) {
        for (const candidate of this.#byDeletion.get(variant) ?? []) if (withinOneEdit(word, candidate)) note(candidate, MATCH.variant);
      }
    }
    for (const key of keys) for (const candidate of this.#byKey.get(key) ?? []) note(candidate, MATCH.variant);
    return found;
  }
}
