/** The one contiguous change that turns `before` into `after`: common prefix and suffix kept (one undo step, cursors elsewhere stay). */
export function minimalChange(before: string, after: string): { start: number; end: number; text: string } {
  const max = Math.min(before.length, after.length);
  let start = 0;
  while (start < max && before.charCodeAt(start) === after.charCodeAt(start)) start++;
  let tail = 0;
  while (
    tail < max - start &&
    before.charCodeAt(before.length - 1 - tail) === after.charCodeAt(after.length - 1 - tail)
  )
    tail++;
  // Never split a surrogate pair or a CRLF: back off to a whole character / line break.
  const unsafe = (s: string, i: number) => {
    const c = s.charCodeAt(i);
    return (c >= 0xdc00 && c <= 0xdfff) || (c === 0x0a && s.charCodeAt(i - 1) === 0x0d);
  };
  while (start > 0 && (unsafe(before, start) || unsafe(after, start))) start--;
  while (tail > 0 && (unsafe(before, before.length - tail) || unsafe(after, after.length - tail))) tail--;
  return { start, end: before.length - tail, text: after.slice(start, after.length - tail) };
}
