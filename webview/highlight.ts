import type { Matcher } from "./find";

/**
 * Marks find matches with the CSS Custom Highlight API: ranges over the rendered text,
 * so the DOM that lit manages is never split or rewritten, and model text stays text.
 * Only rows on screen exist, so the cost is bounded by the viewport, not the session.
 */
const ALL = "downcity-find";
const CURRENT = "downcity-find-current";

const supported = () => typeof CSS !== "undefined" && "highlights" in CSS && typeof Highlight !== "undefined";
// The registry is maplike; TypeScript types its methods only with the DOM.Iterable lib.
const registry = () => CSS.highlights as unknown as Map<string, Highlight>;

export function clearHighlights(): void {
  if (!supported()) return;
  registry().delete(ALL);
  registry().delete(CURRENT);
}

/**
 * Highlights every occurrence of `m` in `rows` (key → row element); the `current.n`-th
 * occurrence of row `current.key` (or its last, when the rendering shows fewer than the
 * source holds) gets the current-match style. Returns the current range's element.
 */
export function highlightRows(
  rows: Iterable<[string, HTMLElement]>,
  m: Matcher,
  current?: { key: string; n: number },
): Element | undefined {
  if (!supported()) return undefined;
  const all: Range[] = [];
  const now: Range[] = [];
  let currentElement: Element | undefined;
  for (const [key, row] of rows) {
    const ranges = textRanges(row, m);
    const pick = current?.key === key && ranges.length ? Math.min(current.n, ranges.length - 1) : -1;
    ranges.forEach((range, i) => {
      if (i === pick) {
        now.push(range);
        currentElement = range.startContainer.parentElement ?? undefined;
      } else all.push(range);
    });
  }
  registry().set(ALL, new Highlight(...all));
  registry().set(CURRENT, new Highlight(...now));
  return currentElement;
}

/** Text the reader does not see as message content: the row's head (who, badges), a closed card's body. */
const HIDDEN = ".message-head, details:not([open]) > :not(summary)";

/** Ranges of every occurrence in the row's visible text nodes (a match across two nodes is not found). */
function textRanges(row: HTMLElement, m: Matcher): Range[] {
  const out: Range[] = [];
  const walker = document.createTreeWalker(row, NodeFilter.SHOW_TEXT, {
    acceptNode: (node) => (node.parentElement?.closest(HIDDEN) ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT),
  });
  for (let node = walker.nextNode() as Text | null; node; node = walker.nextNode() as Text | null) {
    const text = node.data;
    for (const at of m.all(text)) {
      if (at + m.length > text.length) continue;
      const range = document.createRange();
      range.setStart(node, at);
      range.setEnd(node, at + m.length);
      out.push(range);
    }
  }
  return out;
}
