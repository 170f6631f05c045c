import type { RE2JS } from "re2js";
import { SearchQueryError } from "./errors";
import { RE2_WORD_CLASS } from "./word-chars";

type Re2js = typeof import("re2js");
let re2jsModule: Re2js | undefined;
/** re2js (150 KB) is loaded at the first regular expression, not with the extension host (its own bundle there). */
const re2js = (): Re2js => (re2jsModule ??= require("re2js") as Re2js);

/**
 * Regular expressions through re2js (a port of RE2): matching is linear in the text by
 * construction, so no pattern can backtrack catastrophically on the extension host's
 * thread. RE2 syntax: no back-references or look-around (refused with a clear error).
 * `^` and `$` match at line breaks, as the JavaScript `m` flag does.
 */
export interface CompiledRegex {
  /** Up to `max` non-overlapping matches, in order, as UTF-16 offsets. */
  find(text: string, max: number): [number, number][];
  /** Literal strings every match contains (case as written); empty when there is none. */
  readonly required: readonly string[];
}

function compile(source: string, flags: number): RE2JS {
  try {
    return re2js().RE2JS.compile(source, flags);
  } catch (error) {
    throw new SearchQueryError(describe(error, source));
  }
}

/** The engine's syntax error, in words a user can act on. */
function describe(error: unknown, source: string): string {
  const { RE2JSException, RE2JSSyntaxException } = re2js();
  if (error instanceof RE2JSSyntaxException) {
    // The engine quotes the part it stopped at, after the flags it prepends; the whole pattern says nothing new.
    const quoted = (error.getPattern() ?? "").replace(/^(\(\?[a-z]+\))+/, "");
    const at = quoted === source ? "" : quoted;
    const hint = /^\\[1-9k]/.test(at)
      ? " (back-references are not supported: they need backtracking)"
      : /^\(\?<?[=!]/.test(at)
        ? " (look-around is not supported: it needs backtracking)"
        : "";
    return `invalid regular expression: ${error.getDescription()}${at ? ` at \`${at}\`` : ""}${hint}`;
  }
  if (error instanceof RE2JSException) return `invalid regular expression: ${error.message}`;
  return `invalid regular expression: ${String(error)}`;
}

/**
 * re2js builds, for its own search, a tree of literals a match must contain (its
 * prefilter: EXACT strings under AND / OR). The AND level's exact strings are what the
 * index and the quick test can use; an OR narrows nothing here, so it is left to the scan.
 */
interface PrefilterNode {
  type: number;
  str: string;
  subs: PrefilterNode[];
}
const EXACT = 1;
const AND = 2;

function requiredOf(re: RE2JS): string[] {
  const tree = (re as unknown as { re2Input?: { prefilter?: PrefilterNode | null } }).re2Input?.prefilter;
  if (!tree || typeof tree !== "object") return [];
  if (tree.type === EXACT && typeof tree.str === "string" && tree.str) return [tree.str];
  if (tree.type !== AND || !Array.isArray(tree.subs)) return [];
  return tree.subs.filter((s) => s.type === EXACT && typeof s.str === "string" && s.str.length > 0).map((s) => s.str);
}

/** `\\Q…` quotes to the end of the pattern when no `\\E` ends it: ended here, so a wrapper after it stays syntax. */
function closeQuote(source: string): string {
  let i = 0;
  while (i < source.length - 1) {
    if (source[i] !== "\\") i++;
    else if (source[i + 1] !== "Q") i += 2;
    else {
      // As RE2 reads it: the quote runs to the first `\E`, whatever precedes it.
      const end = source.indexOf("\\E", i + 2);
      if (end < 0) return `${source}\\E`;
      i = end + 2;
    }
  }
  return source;
}

export function compileRegex(source: string, options: { caseSensitive: boolean; word: boolean }): CompiledRegex {
  const { RE2JS } = re2js();
  const flags = RE2JS.MULTILINE | (options.caseSensitive ? 0 : RE2JS.CASE_INSENSITIVE);
  // Validate the user's own pattern first: errors then point into it, not into the wrapper.
  const plain = compile(source, flags);
  // A case-insensitive pattern has no exact literals in the engine's tree: take them from
  // the case-sensitive parse (a match then holds a case variant of each; callers fold).
  const required = requiredOf(options.caseSensitive ? plain : compile(source, RE2JS.MULTILINE));
  // Whole word: a non-word character (or the text's edge) on both sides, the match itself
  // in group 1. The next search starts where group 1 ended, so "a a" finds both.
  const notWord = `[^${RE2_WORD_CLASS.slice(1)}`;
  const re = options.word ? compile(`(?:\\A|${notWord})(${closeQuote(source)})(?:\\z|${notWord})`, flags) : plain;
  const group = options.word ? 1 : 0;
  const matcher = re.matcher("");
  return {
    required,
    find(text, max) {
      const out: [number, number][] = [];
      matcher.resetMatcherInput(text);
      let from = 0;
      while (out.length < max && from <= text.length && matcher.find(from)) {
        const start = matcher.start(group);
        const end = matcher.end(group);
        out.push([start, end]);
        from = end > start ? end : end + 1;
      }
      return out;
    },
  };
}
