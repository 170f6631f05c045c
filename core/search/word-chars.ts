/**
 * Word characters of whole-word search and of the index's words: Unicode letters and
 * digits, and `_`, per UTF-16 code unit (a surrogate counts as a word unit: astral
 * letters stay inside their word).
 */
const ASCII_WORD = (c: number) =>
  (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || c === 0x5f || (c >= 0x61 && c <= 0x7a);
const UNICODE_WORD = /[\p{L}\p{N}_]/u;

export const isWordUnit = (c: number) =>
  c < 0x80 ? ASCII_WORD(c) : c >= 0xd800 && c <= 0xdfff ? true : UNICODE_WORD.test(String.fromCharCode(c));

/** The same class in RE2 syntax (code points), for the regex engine's whole-word wrapper. */
export const RE2_WORD_CLASS = "[\\p{L}\\p{N}_]";
