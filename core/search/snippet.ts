import type { Range } from "./matcher";

/** Characters of context before the first match and the snippet's longest length. */
const BEFORE = 60;
const LENGTH = 200;

/**
 * Control characters, bidi overrides and isolates, line and paragraph separators: each
 * replaced by one space, so offsets keep their place and nothing in a snippet can move
 * a terminal's cursor or reorder what a reader sees.
 */
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb]/g;

export function inert(text: string): string {
  return text.replace(UNSAFE, " ");
}

/** JSON whose every unsafe character is a `\uXXXX` escape (JSON.stringify leaves C1 controls and bidi marks raw). */
export function inertJson(value: unknown): string {
  return JSON.stringify(value).replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

const isLow = (c: number) => c >= 0xdc00 && c <= 0xdfff;

/**
 * One line around the first match: up to BEFORE characters before it, LENGTH in all,
 * "…" where text was cut; the ranges that fall inside, moved to snippet offsets.
 */
export function makeSnippet(text: string, matches: readonly Range[]): { snippet: string; ranges: Range[] } {
  const first = matches[0]!;
  let start = Math.max(0, first[0] - BEFORE);
  let end = Math.min(text.length, start + LENGTH);
  // Never cut a surrogate pair in half.
  if (start > 0 && isLow(text.charCodeAt(start))) start--;
  if (end < text.length && isLow(text.charCodeAt(end))) end++;
  const head = start > 0 ? "…" : "";
  const snippet = head + inert(text.slice(start, end)) + (end < text.length ? "…" : "");
  const shift = head.length - start;
  const ranges: Range[] = [];
  for (const [a, b] of matches) {
    if (a >= end) break;
    ranges.push([a + shift, Math.min(b, end) + shift]);
  }
  return { snippet, ranges };
}
