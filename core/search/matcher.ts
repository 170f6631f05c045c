import type { SearchOptions } from "../protocol/search";
import { SearchQueryError } from "./errors";
import { fold as foldCase } from "./fold";
import { compileRegex } from "./re2";
import { isWordUnit } from "./word-chars";

export type Range = [number, number];

/** Finds the matches of one query in a text; built once per query. */
export interface Matcher {
  readonly caseSensitive: boolean;
  /**
   * Literal runs every match contains, folded unless case-sensitive (the index narrows
   * by them); empty when the pattern has none.
   */
  readonly required: readonly string[];
  /** Up to `max` non-overlapping matches, in order. */
  find(text: string, max: number): Range[];
}

/** Smart case: an upper-case letter outside an escape makes the query case-sensitive. */
export function smartCase(query: string, regex: boolean): boolean {
  const plain = regex ? query.replace(/\\./g, "") : query;
  return /\p{Lu}/u.test(plain);
}

export function createMatcher(options: Pick<SearchOptions, "query" | "regex" | "word" | "caseSensitive">): Matcher {
  const query = options.query;
  if (query.length === 0) throw new SearchQueryError("the search text is empty");
  const regex = options.regex === true;
  const caseSensitive = options.caseSensitive ?? smartCase(query, regex);
  const fold = (s: string) => (caseSensitive ? s : foldCase(s));
  if (!regex) {
    // indexOf over the folded text: linear, and faster than any pattern engine here.
    const needle = fold(query);
    return {
      caseSensitive,
      required: [needle],
      find(text, max) {
        const out: Range[] = [];
        const hay = caseSensitive ? text : fold(text);
        let from = 0;
        while (out.length < max) {
          const at = hay.indexOf(needle, from);
          if (at < 0) break;
          const end = at + needle.length;
          if (
            options.word &&
            ((at > 0 && isWordUnit(text.charCodeAt(at - 1))) || (end < text.length && isWordUnit(text.charCodeAt(end))))
          ) {
            from = at + 1;
            continue;
          }
          out.push([at, end]);
          from = end;
        }
        return out;
      },
    };
  }
  const compiled = compileRegex(query, { caseSensitive, word: options.word === true });
  const required = compiled.required.map(fold);
  // A text without the pattern's longest literal cannot match: one native scan instead of the engine
  // (re2js does this itself for case-sensitive patterns, not for case-insensitive ones).
  const quick =
    !caseSensitive && required.length > 0 ? required.reduce((a, b) => (b.length > a.length ? b : a)) : undefined;
  return {
    caseSensitive,
    required,
    find(text, max) {
      if (quick !== undefined && !fold(text).includes(quick)) return [];
      return compiled.find(text, max);
    },
  };
}
