import type { SearchOptions } from "../protocol/search";
import { SearchQueryError } from "./errors";
import { parseRegex, requiredLiterals } from "./regex/parse";
import { compile, isWordUnit, Vm, wholeWord } from "./regex/vm";
import { fold as foldCase } from "./fold";

export type Range = [number, number];

/** Finds the matches of one query in a text; built once per query. */
export interface Matcher {
  readonly caseSensitive: boolean;
  /**
   * Literal runs every match contains, lower-cased unless case-sensitive (the index's
   * trigrams come from them); empty when the pattern has none.
   */
  readonly required: readonly string[];
  /** Up to `max` non-overlapping matches, in order. */
  find(text: string, max: number): Range[];
  /** Regex VM steps so far (0 for literal queries, which run through the engine's own literal search). */
  readonly steps: number;
}

/** Smart case: an upper-case letter outside an escape makes the query case-sensitive. */
export function smartCase(query: string, regex: boolean): boolean {
  const plain = regex ? query.replace(/\\./g, "") : query;
  return /\p{Lu}/u.test(plain);
}


/** Regex steps one query may take (~1 s of one core): linear in the text, but the text may be gigabytes. */
export const MAX_REGEX_STEPS = 300_000_000;

export function createMatcher(options: Pick<SearchOptions, "query" | "regex" | "word" | "caseSensitive">, maxSteps = MAX_REGEX_STEPS): Matcher {
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
      steps: 0,
      find(text, max) {
        const out: Range[] = [];
        const hay = caseSensitive ? text : fold(text);
        let from = 0;
        while (out.length < max) {
          const at = hay.indexOf(needle, from);
          if (at < 0) break;
          const end = at + needle.length;
          if (options.word && ((at > 0 && isWordUnit(text.charCodeAt(at - 1))) || (end < text.length && isWordUnit(text.charCodeAt(end))))) {
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
  let tree = parseRegex(query);
  const required = requiredLiterals(tree).map(fold);
  if (options.word) tree = wholeWord(tree);
  const vm = new Vm(compile(tree), caseSensitive, maxSteps);
  const quick = required.length > 0 ? required.reduce((a, b) => (b.length > a.length ? b : a)) : undefined;
  return {
    caseSensitive,
    required,
    get steps() {
      return vm.steps;
    },
    find(text, max) {
      const out: Range[] = [];
      // A text without the pattern's longest literal cannot match: skip the VM.
      if (quick !== undefined && !fold(text).includes(quick)) return out;
      let from = 0;
      while (out.length < max && from <= text.length) {
        const m = vm.exec(text, from);
        if (!m) break;
        out.push(m);
        from = m[1] > m[0] ? m[1] : m[1] + 1;
      }
      return out;
    },
  };
}
