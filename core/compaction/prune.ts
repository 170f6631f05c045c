/** Length in Unicode code points, without allocating. */
export function codePointLength(text: string): number {
  let n = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

/** Index in UTF-16 units after `count` code points from the start. */
function offsetOfCodePoint(text: string, count: number): number {
  let i = 0;
  for (let seen = 0; seen < count && i < text.length; seen++) {
    const c = text.charCodeAt(i);
    i += c >= 0xd800 && c <= 0xdbff && i + 1 < text.length ? 2 : 1;
  }
  return i;
}

/**
 * Keeps the first `head` and last `tail` code points of a text longer than `max`,
 * with a marker saying how much was cut (003's tool-result pruner).
 */
export function pruneText(text: string, max: number, head: number, tail: number, what = "output"): string {
  const length = codePointLength(text);
  if (length <= max) return text;
  const headEnd = offsetOfCodePoint(text, head);
  const tailStart = offsetOfCodePoint(text, length - tail);
  const cut = length - head - tail;
  return `${text.slice(0, headEnd)}\n\n[… ${cut} characters of ${what} folded by compaction …]\n\n${text.slice(tailStart)}`;
}
