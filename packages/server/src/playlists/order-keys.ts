/**
 * Where a playlist's entries stand: each has an order key, a text compared
 * by its bytes, and the entries are in the order of their keys. A key is a
 * number written in base 62 (digits 0-9, A-Z, a-z, in byte order): a whole
 * part of WHOLE_DIGITS digits, then as many fraction digits as it needs.
 * A playlist's first entries stand in the middle of the whole part's range
 * (FIRST_WHOLE), and entries appended after the last or put before the
 * first are ORDER_KEY_GAP apart in the whole part, so adding to either end
 * never lengthens a key; an entry added or moved between two others gets a
 * key between theirs, with more fraction digits when there is no room. So a
 * key, once given, never changes while its entry stays where it is: a page
 * token that holds the key of the last entry it showed finds its place in
 * any later version of the playlist, whatever moved or came between
 * (contract section 14).
 *
 * Keys are bounded: MAX_FRACTION_DIGITS (about 300 entries put one at a
 * time at the same spot between the same two entries). Past it a write there
 * is refused (keysBetween answers null); anywhere else, or several entries in
 * one write, still fits. It keeps every key, page token and key computation
 * small: unbounded, 20,000 alternating moves at one spot made keys of 3,340
 * digits and a computation of 870 ms.
 */
export const ORDER_KEY_GAP = 1 << 20;

const DIGITS = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const BASE = 62n;
/** 62^9 is past 2^53: the whole part of a key given by appends or prepends never leaves it. */
const WHOLE_DIGITS = 9;
/** Where a playlist's keys start: the middle of the whole part's range (migration 018 put the keys before it there too). */
export const FIRST_WHOLE = 2 ** 52;
/** The most fraction digits a key has. */
export const MAX_FRACTION_DIGITS = 48;
const DIGIT_VALUE = new Map([...DIGITS].map((digit, i) => [digit, BigInt(i)]));

/** A key's value with `fractionDigits` fraction digits, as a whole number (the fraction's extra digits are 0). */
function valueOf(key: string, fractionDigits: number): bigint {
  let value = 0n;
  const digits = WHOLE_DIGITS + fractionDigits;
  for (let i = 0; i < digits; i++) value = value * BASE + (i < key.length ? DIGIT_VALUE.get(key[i]!)! : 0n);
  return value;
}

/** The key of a value with `fractionDigits` fraction digits, without the fraction's trailing zeros. */
function keyOf(value: bigint, fractionDigits: number): string {
  const digits: string[] = [];
  for (let i = 0; i < WHOLE_DIGITS + fractionDigits; i++) {
    digits.push(DIGITS[Number(value % BASE)]!);
    value /= BASE;
  }
  if (value !== 0n) throw new RangeError('order key past its whole digits');
  let key = digits.reverse().join('');
  while (key.length > WHOLE_DIGITS && key.endsWith('0')) key = key.slice(0, -1);
  return key;
}

/** The key migration 018 gave an entry whose key was the whole number `key` (FIRST_WHOLE after it). */
export const keyBefore018 = (key: number): string => keyOf(BigInt(FIRST_WHOLE + key), 0);

/**
 * `count` increasing keys strictly between `before` (the key of the entry
 * they follow; null: the start) and `after` (the key of the entry they
 * precede; null: the end), spread evenly, with as few fraction digits as
 * that takes; null when that would take more than MAX_FRACTION_DIGITS.
 */
export function keysBetween(before: string | null, after: string | null, count: number): string[] | null {
  const gap = BigInt(ORDER_KEY_GAP);
  if (after === null) return appended(before, count);
  if (before === null) {
    // Put first: whole steps before the first key, while the whole part has room.
    const whole = valueOf(after, 0);
    if (whole > gap * BigInt(count)) return Array.from({ length: count }, (_, i) => keyOf(whole - gap * BigInt(count - i), 0));
  }
  const fractionLength = (key: string | null) => (key === null ? 0 : key.length - WHOLE_DIGITS);
  for (let fractionDigits = Math.max(fractionLength(before), fractionLength(after)); fractionDigits <= MAX_FRACTION_DIGITS; fractionDigits++) {
    const low = before === null ? 0n : valueOf(before, fractionDigits);
    const high = valueOf(after, fractionDigits);
    const step = (high - low) / BigInt(count + 1);
    if (step >= 1n) return Array.from({ length: count }, (_, i) => keyOf(low + step * BigInt(i + 1), fractionDigits));
  }
  return null;
}

/** Keys appended after `before` (the last key; null: an empty playlist): whole steps after its whole part. */
function appended(before: string | null, count: number): string[] {
  const gap = BigInt(ORDER_KEY_GAP);
  const whole = before === null ? BigInt(FIRST_WHOLE) - gap : valueOf(before, 0);
  return Array.from({ length: count }, (_, i) => keyOf(whole + gap * BigInt(i + 1), 0));
}

/** `count` keys for a playlist's first entries, or all of them at once (create, replace). */
export const firstKeys = (count: number): string[] => appended(null, count);
