import type { Item } from "./conversation";

/**
 * Matching for the chat's find bar, over the rows the view holds (the DOM has only the
 * rows on screen). Same defaults as the core query: literal, case-insensitive unless the
 * query has an upper-case letter (smart case).
 */

/** One occurrence: the row it is in and its index among that row's occurrences. */
export interface FindMatch {
  key: string;
  n: number;
}

export interface Matcher {
  /** Start offsets of every non-overlapping occurrence in `text`. */
  all(text: string): number[];
  length: number;
}

export function matcher(query: string): Matcher | undefined {
  if (!query) return undefined;
  const sensitive = query !== query.toLowerCase();
  const needle = sensitive ? query : query.toLowerCase();
  return {
    length: needle.length,
    all(text) {
      const hay = sensitive ? text : text.toLowerCase();
      const out: number[] = [];
      // toLowerCase keeps UTF-16 lengths for everything but a few letters (İ): offsets are checked by the caller's range.
      for (let at = hay.indexOf(needle); at >= 0; at = hay.indexOf(needle, at + needle.length)) out.push(at);
      return out;
    },
  };
}

/** The text a row shows, as the model holds it (Markdown source for assistant text). */
export function rowText(item: Item): string {
  switch (item.kind) {
    case "user":
    case "assistant":
      return item.blocks.map((b) => (b.type === "text" ? b.text : b.type === "tool-call" ? b.name : "")).join("\n");
    case "summary":
    case "compaction":
    case "notice":
    case "problem":
      return item.text;
  }
}

/** Every occurrence in the rows, top to bottom. */
export function findMatches(items: readonly Item[], m: Matcher): FindMatch[] {
  const out: FindMatch[] = [];
  for (const item of items) {
    const count = m.all(rowText(item)).length;
    for (let n = 0; n < count; n++) out.push({ key: item.key, n });
  }
  return out;
}

/**
 * The row that shows event `seq`: its own row, or for an event with none (a tool result,
 * an approval, a title) the nearest row above it (the assistant message that called the
 * tool). Undefined when nothing at or before `seq` is loaded.
 */
export function rowKeyAt(items: readonly Item[], seq: number): string | undefined {
  let best: string | undefined;
  for (const item of items) {
    const at = "seq" in item ? item.seq : undefined;
    if (at === undefined) continue;
    if (at > seq) break;
    best = item.key;
  }
  // A hit in the streaming draft (seq past every logged event) lands on the last message.
  return best;
}
