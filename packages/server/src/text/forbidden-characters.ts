/**
 * Characters no catalog text may hold:
 *
 * - C0 controls other than tab, line feed and carriage return: no title,
 *   name or lyric line means them, and XML 1.0 cannot hold them, so a name
 *   with U+0001 made the drawn SVG artwork ill-formed (a broken image);
 * - the non-characters U+FFFE and U+FFFF, which XML cannot hold either;
 * - lone surrogates: JSON's `\ud800` escapes make them, and they are not
 *   text in any encoding (UTF-8 turns them into U+FFFD, so what was stored
 *   is not what is served).
 *
 * The import refuses texts that hold them (`forbiddenCharacterIn`); what
 * draws XML drops them (`withoutForbiddenCharacters`), for texts stored
 * before the import refused them.
 */
const FORBIDDEN = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const FORBIDDEN_EVERYWHERE = new RegExp(FORBIDDEN.source, 'g');

/** The first forbidden character of `text` as `U+XXXX`, or undefined when there is none. */
export function forbiddenCharacterIn(text: string): string | undefined {
  const match = FORBIDDEN.exec(text);
  return match === null ? undefined : `U+${match[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
}

/** `text` without its forbidden characters. */
export function withoutForbiddenCharacters(text: string): string {
  return FORBIDDEN.test(text) ? text.replace(FORBIDDEN_EVERYWHERE, '') : text;
}
