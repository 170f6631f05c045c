import { isWordUnit } from "../word-chars";

/**
 * The index's terms: maximal runs of word characters (Unicode letters and digits, `_`)
 * of the folded text. A query's literal is split the same way, and each of its terms
 * must be a substring of some indexed word of a unit for that unit to be read. Words
 * longer than PIECE are indexed as overlapping pieces (step STEP), so any term of up to
 * STEP characters inside them is still inside one piece.
 */
export const PIECE = 128;
export const STEP = 64;

const ASCII = new Uint8Array(128);
for (let c = 0; c < 128; c++) ASCII[c] = isWordUnit(c) ? 1 : 0;

function add(into: Set<string>, text: string, start: number, end: number): void {
  if (end - start <= PIECE) {
    into.add(text.slice(start, end));
    return;
  }
  for (let at = start; ; at += STEP) {
    into.add(text.slice(at, Math.min(end, at + PIECE)));
    if (at + PIECE >= end) return;
  }
}

/** Adds the words of an already folded text. */
export function addWords(folded: string, into: Set<string>): void {
  let start = -1;
  const n = folded.length;
  for (let i = 0; i < n; i++) {
    const c = folded.charCodeAt(i);
    const word = c < 128 ? ASCII[c] === 1 : isWordUnit(c);
    if (word) {
      if (start < 0) start = i;
    } else if (start >= 0) {
      add(into, folded, start, i);
      start = -1;
    }
  }
  if (start >= 0) add(into, folded, start, n);
}

/** The terms a folded literal requires (each cut to STEP characters: a substring of a term is required too). */
export function literalTerms(folded: string): string[] {
  const words = new Set<string>();
  addWords(folded, words);
  return [...words].map((w) => (w.length > STEP ? w.slice(0, STEP) : w));
}
