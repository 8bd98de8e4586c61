import { searchTerms, type SearchTerm } from '../text/normalize.ts';
import { kindWord, ratedKindWord, wholeNameWord, type IndexedItem, type SearchKind } from './search-item.ts';

/**
 * The posting words an import has met, each numbered the first time, and
 * each search term (a word with its phonetic keys). A text's words are kept
 * as numbers (TextWords), so a batch's postings are built by index: a
 * million items name about ten words each, and looking those strings up
 * again in every batch was most of the index's time on the importing thread.
 */
class WordNumbers {
  readonly words: string[] = [];
  readonly #numbers = new Map<string, number>();
  /** Per term: its word's number, and its vocabulary row's keys. */
  readonly termWord: number[] = [];
  readonly termKeys: string[] = [];
  readonly #terms = new Map<string, number>();
  /** The kind words, numbered first. */
  readonly kinds: Readonly<Record<SearchKind, number>> = {
    song: this.word(kindWord('song')), album: this.word(kindWord('album')), artist: this.word(kindWord('artist')),
    show: this.word(kindWord('show')), movie: this.word(kindWord('movie')),
  };

  word(word: string): number {
    let number = this.#numbers.get(word);
    if (number === undefined) {
      number = this.words.length;
      this.#numbers.set(word, number);
      this.words.push(word);
    }
    return number;
  }

  term(term: SearchTerm): number {
    const keys = term.keys.join(' ');
    // A word is never empty and has no '\n'; its keys are its own.
    const text = `${term.word}\n${keys}`;
    let number = this.#terms.get(text);
    if (number === undefined) {
      number = this.termWord.length;
      this.#terms.set(text, number);
      this.termWord.push(this.word(term.word));
      this.termKeys.push(keys);
    }
    return number;
  }
}

/** A normalized text: its terms and their words, by number, and its whole-name word (-1 for a text without words). */
interface TextWords {
  readonly terms: readonly number[];
  readonly words: readonly number[];
  readonly whole: number;
  /** The last call of searchWords that took its terms' vocabulary rows. */
  visited: number;
}

/**
 * A load repeats the same names and titles many times, within a batch and
 * across batches (a song carries its artists' names and album title; an
 * album is indexed again whenever a new song raises its popularity): each
 * text is normalized once while it is among the recently seen. Two
 * generations of MEMO_SIZE: when the newer fills, it becomes the older and
 * the texts still in use move up on their next use, so a load whose texts
 * outnumber one generation does not start again from nothing (the 1M demo
 * catalog has about 150,000 distinct texts). The normalizer is a pure
 * function, so a remembered result is always right. An import's IndexMemo
 * holds one for the whole import and drops it with the memo at its end, so
 * a server keeps none. The word numbers last as long as the texts that use
 * them: once they pass NUMBERED_WORDS (mostly whole names, about one a
 * distinct text), the next call of searchWords starts both again.
 */
const MEMO_SIZE = 100_000;
const NUMBERED_WORDS = 1_000_000;

/**
 * A group's words, by the group's identity: a song names its artists and
 * album, which many songs of every batch name too. Looking each of their
 * texts up by content in every batch was 5 s of the 1M import's main
 * thread. A group is the array an IndexMemo keeps the names in, so the
 * entry lives as long as the memo keeps the names.
 */
interface GroupWords {
  readonly words: readonly number[];
  readonly terms: readonly number[];
  visited: number;
}

export class NormalizedTexts {
  #wordNumbers = new WordNumbers();
  #recentTexts = new Map<string, TextWords>();
  #olderTexts = new Map<string, TextWords>();
  #calls = 0;
  #groupWords = new WeakMap<readonly string[], GroupWords>();

  #normalized(text: string): TextWords {
    let known = this.#recentTexts.get(text);
    if (known !== undefined) return known;
    known = this.#olderTexts.get(text);
    if (known === undefined) {
      const wordNumbers = this.#wordNumbers;
      const terms = searchTerms(text);
      const termNumbers = terms.map((term) => wordNumbers.term(term));
      known = {
        terms: termNumbers,
        words: termNumbers.map((term) => wordNumbers.termWord[term]!),
        whole: terms.length === 0 ? -1 : wordNumbers.word(wholeNameWord(terms.map((term) => term.word))),
        visited: 0,
      };
    }
    if (this.#recentTexts.size >= MEMO_SIZE) {
      this.#olderTexts = this.#recentTexts;
      this.#recentTexts = new Map();
    }
    this.#recentTexts.set(text, known);
    return known;
  }

  #forget(): void {
    this.#wordNumbers = new WordNumbers();
    this.#groupWords = new WeakMap();
    this.#recentTexts = new Map();
    this.#olderTexts = new Map();
  }

  /**
   * Each item's posting words (by number), the numbered words, and the
   * vocabulary rows of the items' search words (a word's keys as its first
   * appearance here has them). An item's list may name a word more than once
   * (a song's title word that is also its album's): writeSegment keeps one
   * posting an item, by its last number, instead of a set per item here.
   * (The loop that built the sets was 6.2 s of a 219 s profile of the 1M
   * import; the import's time did not measurably change without them on a
   * noisy machine, bench/README.md at 9b0c7f5.)
   */
  searchWords(items: readonly IndexedItem[]): {
    wordsOf: ItemWords;
    words: readonly string[];
    vocabulary: { word: string; keys: string }[];
  } {
    if (this.#wordNumbers.words.length > NUMBERED_WORDS) this.#forget();
    const call = ++this.#calls;
    const { termWord, termKeys, kinds } = this.#wordNumbers;
    /** Each search word's first term here. */
    const firstTerms = new Map<number, number>();
    /** Takes the vocabulary rows of a text's or group's terms, once a call. */
    const visit = <Known extends { readonly terms: readonly number[]; visited: number }>(known: Known): Known => {
      if (known.visited !== call) {
        known.visited = call;
        for (const term of known.terms) if (!firstTerms.has(termWord[term]!)) firstTerms.set(termWord[term]!, term);
      }
      return known;
    };
    const wordsOfGroup = (group: readonly string[]): readonly number[] => {
      let known = this.#groupWords.get(group);
      if (known === undefined) {
        const texts = group.map((text) => this.#normalized(text));
        known = { words: texts.flatMap((text) => text.words), terms: texts.flatMap((text) => text.terms), visited: 0 };
        this.#groupWords.set(group, known);
      }
      return visit(known).words;
    };
    const all: number[] = [];
    const starts = new Uint32Array(items.length + 1);
    items.forEach((item, i) => {
      all.push(kinds[item.kind]);
      if (item.rank !== undefined) all.push(this.#wordNumbers.word(ratedKindWord(item.kind, item.rank)));
      for (const text of item.texts) {
        const { words, whole } = visit(this.#normalized(text));
        if (whole >= 0) {
          all.push(whole);
          for (const word of words) all.push(word);
        }
      }
      for (const group of item.related) for (const word of wordsOfGroup(group)) all.push(word);
      starts[i + 1] = all.length;
    });
    const { words } = this.#wordNumbers;
    const vocabulary = [...firstTerms].map(([word, term]) => ({ word: words[word]!, keys: termKeys[term]! }));
    return {
      wordsOf: { numbers: Int32Array.from(all), starts },
      words,
      vocabulary: vocabulary.sort((a, b) => (a.word < b.word ? -1 : a.word > b.word ? 1 : 0)),
    };
  }
}

/** Every item's word numbers, one run after another: item i's are numbers[starts[i]] up to numbers[starts[i + 1]]. */
export interface ItemWords {
  readonly numbers: Int32Array;
  readonly starts: Uint32Array;
}
