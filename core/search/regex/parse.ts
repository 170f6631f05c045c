import { SearchQueryError } from "../errors";

/**
 * The regular expressions search accepts, parsed to a tree the linear-time VM
 * (`./vm.ts`) compiles. JavaScript syntax minus what needs backtracking: back-references
 * and look-around are refused with a clear error, so no pattern can take more than
 * O(text × pattern) steps on the extension host's thread.
 */

/** Code-unit ranges, inclusive; `negated` inverts the set. */
export interface CharSet {
  ranges: number[];
  negated: boolean;
}

export type Node =
  | { t: "set"; set: CharSet }
  | { t: "cat"; items: Node[] }
  | { t: "alt"; items: Node[] }
  | { t: "rep"; node: Node; min: number; max: number; lazy: boolean }
  | { t: "group"; node: Node }
  | { t: "assert"; kind: Assertion }
  | { t: "empty" };

/** `word-start` / `word-end`: the whole-word option (Unicode letters, digits and `_`). */
export type Assertion = "start" | "end" | "boundary" | "not-boundary" | "word-start" | "word-end";

/** Repetition counts above this are refused: `a{100000}` would compile to a huge program. */
const MAX_COUNT = 1000;

const DIGIT = [0x30, 0x39];
const WORD = [0x30, 0x39, 0x41, 0x5a, 0x5f, 0x5f, 0x61, 0x7a];
const SPACE = [0x09, 0x0d, 0x20, 0x20, 0xa0, 0xa0, 0x1680, 0x1680, 0x2000, 0x200a, 0x2028, 0x2029, 0x202f, 0x202f, 0x205f, 0x205f, 0x3000, 0x3000, 0xfeff, 0xfeff];
/** `.`: anything but a line terminator (as in JavaScript without the `s` flag). */
export const DOT: CharSet = { ranges: [0x0a, 0x0a, 0x0d, 0x0d, 0x2028, 0x2029], negated: true };

const single = (c: number): CharSet => ({ ranges: [c, c], negated: false });

/** The complement of a sorted list of ranges over 0..0xffff (for \D \W \S inside a class). */
function complement(ranges: readonly number[]): number[] {
  const pairs: [number, number][] = [];
  for (let i = 0; i < ranges.length; i += 2) pairs.push([ranges[i]!, ranges[i + 1]!]);
  pairs.sort((a, b) => a[0] - b[0]);
  const out: number[] = [];
  let next = 0;
  for (const [lo, hi] of pairs) {
    if (lo > next) out.push(next, lo - 1);
    next = Math.max(next, hi + 1);
  }
  if (next <= 0xffff) out.push(next, 0xffff);
  return out;
}

export function parseRegex(source: string): Node {
  let pos = 0;
  const fail = (message: string): never => {
    throw new SearchQueryError(`invalid regular expression at ${pos + 1}: ${message}`);
  };
  const peek = () => source.charCodeAt(pos);
  const eat = (ch: string) => {
    if (source[pos] === ch) {
      pos++;
      return true;
    }
    return false;
  };

  const hex = (digits: number): number => {
    const text = source.slice(pos, pos + digits);
    if (text.length !== digits || !/^[0-9a-fA-F]+$/.test(text)) fail(`expected ${digits} hex digits`);
    pos += digits;
    return parseInt(text, 16);
  };

  /** An escape after `\`: a set (class escapes, literal chars) or an assertion. */
  const escape = (inClass: boolean): CharSet | Assertion => {
    if (pos >= source.length) fail("\\ at the end of the pattern");
    const c = source[pos++]!;
    switch (c) {
      case "d":
        return { ranges: [...DIGIT], negated: false };
      case "D":
        return { ranges: [...DIGIT], negated: true };
      case "w":
        return { ranges: [...WORD], negated: false };
      case "W":
        return { ranges: [...WORD], negated: true };
      case "s":
        return { ranges: [...SPACE], negated: false };
      case "S":
        return { ranges: [...SPACE], negated: true };
      case "b":
        return inClass ? single(0x08) : "boundary";
      case "B":
        if (inClass) fail("\\B in a character class");
        return "not-boundary";
      case "n":
        return single(0x0a);
      case "r":
        return single(0x0d);
      case "t":
        return single(0x09);
      case "f":
        return single(0x0c);
      case "v":
        return single(0x0b);
      case "0":
        if (/[0-9]/.test(source[pos] ?? "")) fail("octal escapes are not supported");
        return single(0);
      case "x":
        return single(hex(2));
      case "u":
        if (eat("{")) {
          const end = source.indexOf("}", pos);
          if (end < 0) fail("unterminated \\u{…}");
          const cp = parseInt(source.slice(pos, end), 16);
          if (!(cp <= 0xffff)) fail("\\u{…} beyond U+FFFF is not supported");
          pos = end + 1;
          return single(cp);
        }
        return single(hex(4));
      case "k":
        return fail("back-references are not supported (they need backtracking)");
      default:
        if (/[1-9]/.test(c)) return fail("back-references are not supported (they need backtracking)");
        if (/[A-Za-z0-9]/.test(c)) return fail(`unknown escape \\${c}`);
        return single(c.charCodeAt(0));
    }
  };

  const charClass = (): CharSet => {
    // after '['
    const negated = eat("^");
    const ranges: number[] = [];
    let first = true;
    while (pos < source.length && (source[pos] !== "]" || (first && false))) {
      first = false;
      let lo: number;
      if (eat("\\")) {
        const e = escape(true);
        if (typeof e === "string") return fail("assertion in a character class");
        if (e.ranges.length !== 2 || e.ranges[0] !== e.ranges[1] || e.negated) {
          ranges.push(...(e.negated ? complement(e.ranges) : e.ranges));
          continue;
        }
        lo = e.ranges[0]!;
      } else lo = source.charCodeAt(pos++);
      if (source[pos] === "-" && source[pos + 1] !== "]" && pos + 1 < source.length) {
        pos++;
        let hi: number;
        if (eat("\\")) {
          const e = escape(true);
          if (typeof e === "string" || e.ranges.length !== 2 || e.ranges[0] !== e.ranges[1] || e.negated) return fail("a class escape cannot end a range");
          hi = e.ranges[0]!;
        } else hi = source.charCodeAt(pos++);
        if (hi < lo) fail("range out of order in character class");
        ranges.push(lo, hi);
      } else ranges.push(lo, lo);
    }
    if (!eat("]")) fail("unterminated character class");
    return { ranges, negated };
  };

  const count = (): number | undefined => {
    const m = /^\d+/.exec(source.slice(pos));
    if (!m) return undefined;
    pos += m[0].length;
    const n = Number(m[0]);
    if (n > MAX_COUNT) fail(`repetition count ${n} is over ${MAX_COUNT}`);
    return n;
  };

  const atom = (): Node => {
    const c = source[pos]!;
    if (c === "(") {
      pos++;
      if (eat("?")) {
        if (eat(":")) {
          /* non-capturing */
        } else if (source[pos] === "=" || source[pos] === "!" || source.startsWith("<=", pos) || source.startsWith("<!", pos)) {
          fail("look-around is not supported (it needs backtracking)");
        } else if (eat("<")) {
          const end = source.indexOf(">", pos);
          if (end < 0 || !/^[A-Za-z_$][\w$]*$/.test(source.slice(pos, end))) fail("bad group name");
          pos = end + 1;
        } else fail("unknown group (?…)");
      }
      const inner = alternation();
      if (!eat(")")) fail("missing )");
      return { t: "group", node: inner };
    }
    pos++;
    switch (c) {
      case "[":
        return { t: "set", set: charClass() };
      case ".":
        return { t: "set", set: DOT };
      case "^":
        return { t: "assert", kind: "start" };
      case "$":
        return { t: "assert", kind: "end" };
      case "\\": {
        const e = escape(false);
        return typeof e === "string" ? { t: "assert", kind: e } : { t: "set", set: e };
      }
      case "*":
      case "+":
      case "?":
        return fail(`nothing to repeat before ${c}`);
      case ")":
        return fail("unmatched )");
      default:
        return { t: "set", set: single(c.charCodeAt(0)) };
    }
  };

  const repeat = (): Node => {
    let node = atom();
    for (;;) {
      let min: number;
      let max: number;
      const c = source[pos];
      if (c === "*") [min, max] = [0, Infinity];
      else if (c === "+") [min, max] = [1, Infinity];
      else if (c === "?") [min, max] = [0, 1];
      else if (c === "{" && /^\{\d+(,\d*)?\}/.test(source.slice(pos))) {
        pos++;
        min = count()!;
        max = min;
        if (eat(",")) max = count() ?? Infinity;
        if (max < min) fail("numbers out of order in {…}");
        // pos is on the '}', consumed below
      } else return node;
      pos++;
      if (node.t === "assert") fail("nothing to repeat (an assertion)");
      if (node.t === "rep") fail("nothing to repeat (a quantifier follows a quantifier)");
      const lazy = eat("?");
      node = { t: "rep", node, min, max, lazy };
    }
  };

  const concatenation = (): Node => {
    const items: Node[] = [];
    while (pos < source.length && source[pos] !== "|" && source[pos] !== ")") items.push(repeat());
    return items.length === 0 ? { t: "empty" } : items.length === 1 ? items[0]! : { t: "cat", items };
  };

  function alternation(): Node {
    const items = [concatenation()];
    while (eat("|")) items.push(concatenation());
    return items.length === 1 ? items[0]! : { t: "alt", items };
  }

  const tree = alternation();
  if (pos < source.length) {
    if (peek() === 0x29) fail("unmatched )");
    fail("unexpected character");
  }
  return tree;
}

/**
 * Literal runs every match must contain (for the index and a quick `includes` test):
 * the literal characters of the top-level sequence, broken at anything optional.
 */
export function requiredLiterals(node: Node): string[] {
  const out: string[] = [];
  let run = "";
  const flush = () => {
    if (run.length > 0) out.push(run);
    run = "";
  };
  const visit = (n: Node) => {
    if (n.t === "set" && !n.set.negated && n.set.ranges.length === 2 && n.set.ranges[0] === n.set.ranges[1]) run += String.fromCharCode(n.set.ranges[0]!);
    else if (n.t === "cat") n.items.forEach(visit);
    else if (n.t === "group") visit(n.node);
    else if (n.t === "rep" && n.min >= 1) {
      // The first copy is required; what follows it may repeat, so the run ends there.
      visit(n.node);
      flush();
    } else if (n.t === "assert" || n.t === "empty") {
      /* zero-width: the run goes on */
    } else flush();
  };
  visit(node);
  flush();
  return out;
}
