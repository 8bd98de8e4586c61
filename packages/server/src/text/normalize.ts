/**
 * Text normalization for search (contract section 11), the same at index
 * time and at query time. Three levels, each a function:
 *
 * - `foldText`: what "the same text" means (rules 1 and 2). Arabic letter
 *   variants fold to one letter (أ إ آ ٱ → ا, ى ی → ي, ة → ه, ؤ → و, ئ → ي,
 *   ک → ك), tatweel and every diacritic go, Arabic-Indic digits become ASCII;
 *   Latin text loses case and accents (É → e, ç → c); punctuation becomes a
 *   space and runs of spaces one. "أُمّ كلثوم" → "ام كلثوم", "Fairūz!" → "fairuz".
 * - `searchWords`: the words of a folded text, the definite article removed
 *   (rule 3): "الحب" → "حب", also after a clitic ("والحب", "بالحب", "فالحب",
 *   "كالحب" → "حب"; "للحب" → "حب"). Latin "al"/"el" standing alone are
 *   articles too ("El Leila" → "leila"), as are "bel", "wel", "fel", "lel"
 *   ("bel seif" for "بالصيف"); "abdel", "abdul" become "abd" as "عبد" does.
 * - `phoneticKey`: a consonant skeleton shared by Arabic script, Latin
 *   transliterations and Arabizi (rules 6, 7, 8). Vowels go (a e i o u, and
 *   ا ع ء and و ي inside a word, where they are long vowels); w and y stay at
 *   the start of a word; a final h (ه, ة, ح) goes; letters that transliterate alike map to one symbol
 *   (ح ه h → h; خ kh k ق q → k; ث th س ص s → s; ذ dh ز ظ z → z; ج j g → j;
 *   غ gh → g; ش sh ch → x; ط t ت → t; ض د d → d); Arabizi digits map as the
 *   letters they stand for (2 ء, 3 ع, 5 خ, 6 ط, 7 ح, 8 ق, 9 ص); doubled
 *   symbols collapse. So "Amr", "Amro", "3amr" and "عمرو"
 *   are all "mr"; "Kulthum", "Kalsoum" and "كلثوم" are "klsm"; "Adele" and
 *   "اديل" are "dl".
 */

const ARABIC_FOLDS: Record<string, string> = {
  'أ': 'ا', 'إ': 'ا', 'آ': 'ا', 'ٱ': 'ا', 'ى': 'ي', 'ی': 'ي', 'ة': 'ه', 'ؤ': 'و', 'ئ': 'ي', 'ک': 'ك',
};
// Harakat, tanwin, shadda, sukun, superscript alef, Quranic marks; and tatweel.
const ARABIC_MARKS = /[\u064B-\u065F\u0670\u06D6-\u06ED\u0640]/g;
const ARABIC_DIGITS = /[\u0660-\u0669\u06F0-\u06F9]/g;
const LATIN_MARKS = /\p{M}/gu;
const NOT_WORD = /[^\p{L}\p{N}]+/gu;

/** Rules 1 and 2: one spelling per text. */
export function foldText(text: string): string {
  return text
    .normalize('NFKD')
    .replace(ARABIC_MARKS, '')
    .replace(LATIN_MARKS, '')
    .normalize('NFC')
    .replace(/[أإآٱىیةؤئک]/g, (c) => ARABIC_FOLDS[c]!)
    .replace(ARABIC_DIGITS, (d) => String((d.charCodeAt(0) - (d.charCodeAt(0) >= 0x06f0 ? 0x06f0 : 0x0660))))
    .toLowerCase()
    .replace(NOT_WORD, ' ')
    .trim();
}

const ARTICLE = /^(?:[وبفك]?ال|لل)(?=..)/;
// The article as Latin spellings write it, alone or fused with a clitic ("bel seif" for "بالصيف"), and the
// Arabic article standing alone: "نور ال" is "نور العين" half typed, and the article is optional (rule 3),
// so alone it asks for nothing.
const LONE_ARTICLES = new Set(['al', 'el', 'il', 'bel', 'bil', 'wel', 'wil', 'fel', 'fil', 'lel', 'lil', 'ال', 'وال', 'بال', 'فال', 'كال', 'لل']);

/** Rule 3: a word without its definite article (Arabic, also after a clitic). */
export function stripArticle(word: string): string {
  if (word.startsWith('عبدال')) return word; // عبدالله is one name, not عبد + article
  return word.replace(ARTICLE, '');
}

/** A search word and the phonetic keys it matches by. */
export interface SearchTerm {
  readonly word: string;
  /**
   * The key of the word, and for an Arabic word that lost a leading "ال"
   * also the key with it: once hamza is folded, "اليسا" (Elissa) looks like
   * an article and a name, and both readings should find "Elissa".
   */
  readonly keys: readonly string[];
}

/** The search words of a text: folded, split, articles removed. */
export function searchWords(text: string): string[] {
  return searchTerms(text).map((term) => term.word);
}

export function searchTerms(text: string): SearchTerm[] {
  const terms: SearchTerm[] = [];
  for (const raw of foldText(text).split(' ')) {
    if (raw === '' || LONE_ARTICLES.has(raw)) continue;
    const word = /^[23]?ab[dt][aeiu]l$/.test(raw) ? 'abd' : stripArticle(raw);
    const keys = new Set([phoneticKey(word)]);
    if (word !== raw && word !== 'abd') keys.add(phoneticKey(raw));
    keys.delete('');
    terms.push({ word, keys: [...keys] });
  }
  return terms;
}

const ARABIC_KEYS: Record<string, string> = {
  'ب': 'b', 'ت': 't', 'ث': 's', 'ج': 'j', 'ح': 'h', 'خ': 'k', 'د': 'd', 'ذ': 'z', 'ر': 'r', 'ز': 'z', 'س': 's', 'ش': 'x',
  'ص': 's', 'ض': 'd', 'ط': 't', 'ظ': 'z', 'غ': 'g', 'ف': 'f', 'ق': 'k', 'ك': 'k', 'ل': 'l', 'م': 'm', 'ن': 'n', 'ه': 'h',
  'ا': '', 'ع': '', 'ء': '', 'و': 'w', 'ي': 'y', 'پ': 'b', 'چ': 'x', 'ڤ': 'f', 'گ': 'j',
};
const ARABIZI_DIGITS: Record<string, string> = { '2': '', '3': '', '5': 'k', '6': 't', '7': 'h', '8': 'k', '9': 's' };
const LATIN_DIGRAPHS: [RegExp, string][] = [
  // Upper case marks a symbol already mapped, so later rules leave it alone.
  [/kh/g, 'K'], [/gh/g, 'G'], [/sch|sh|ch/g, 'X'], [/th/g, 'S'], [/dh/g, 'Z'], [/ph/g, 'F'], [/ou/g, 'u'],
  [/c(?=[eiy])/g, 's'], [/ck|c|q/g, 'k'], [/x/g, 'ks'], [/g/g, 'j'], [/v/g, 'f'], [/p/g, 'b'],
];

/** Rules 6 to 8: the consonant skeleton of one folded word, in either script. Empty when the word has none. */
export function phoneticKey(word: string): string {
  let key: string;
  if (/[\u0600-\u06FF]/.test(word)) {
    key = '';
    const letters = [...word];
    letters.forEach((letter, i) => {
      const mapped = ARABIC_KEYS[letter];
      if (mapped === undefined) {
        key += /[0-9]/.test(letter) ? letter : '';
      } else if ((mapped === 'w' || mapped === 'y') && i > 0) {
        // و and ي inside a word are mostly long vowels: as the Latin vowels they are written as, they go.
      } else if (mapped === 'h' && i === letters.length - 1 && i > 1) {
        // A final ه is mostly ة ("فاطمه" is "Fatma"), and Latin spellings drop a final h (ح) as often as not ("Sabah", "Saba").
      } else {
        key += mapped;
      }
    });
  } else {
    if (/^[0-9]+$/.test(word)) return word;
    let latin = word.replace(/[0-9]/g, (d) => ARABIZI_DIGITS[d] ?? d);
    for (const [pattern, replacement] of LATIN_DIGRAPHS) latin = latin.replace(pattern, replacement);
    // w and y are consonants only at the start; inside a word they spell vowels (Fayrouz, Diyab, Mahmoud).
    latin = latin[0]! + latin.slice(1).replace(/[wy]/g, '');
    if (latin.length > 2) latin = latin.replace(/h$/, '');
    key = latin.replace(/[aeiou]/g, '').toLowerCase().replace(/s(?=s)|z(?=z)/g, '');
  }
  return key.replace(/(.)\1+/g, '$1');
}
