import { SearchQueryError } from "../errors";
import type { Assertion, CharSet, Node } from "./parse";

/**
 * A Pike VM (Thompson NFA simulation with thread priorities): every instruction runs at
 * most once per text position, so a search costs O(text × program) steps whatever the
 * pattern — `(a+)+$` cannot backtrack because nothing does. Matches are leftmost-first,
 * like JavaScript's. `steps` counts the work, so tests bound it without a clock.
 */

type Inst =
  | { op: "set"; set: CharSet }
  | { op: "split"; x: number; y: number }
  | { op: "jmp"; x: number }
  | { op: "assert"; kind: Assertion }
  | { op: "match" };

/** Programs above this size are refused (a nested `{n}` multiplies). */
export const MAX_PROGRAM = 20_000;

export function compile(tree: Node): Inst[] {
  const prog: Inst[] = [];
  const emit = (inst: Inst) => {
    if (prog.length >= MAX_PROGRAM) throw new SearchQueryError(`the regular expression is too large (over ${MAX_PROGRAM} steps once its repetitions are expanded)`);
    prog.push(inst);
    return prog.length - 1;
  };
  const gen = (n: Node): void => {
    switch (n.t) {
      case "set":
        emit({ op: "set", set: n.set });
        return;
      case "empty":
        return;
      case "group":
        gen(n.node);
        return;
      case "assert":
        emit({ op: "assert", kind: n.kind });
        return;
      case "cat":
        n.items.forEach(gen);
        return;
      case "alt": {
        const jumps: number[] = [];
        for (let i = 0; i < n.items.length; i++) {
          if (i < n.items.length - 1) {
            const split = emit({ op: "split", x: 0, y: 0 });
            (prog[split] as { x: number }).x = prog.length;
            gen(n.items[i]!);
            jumps.push(emit({ op: "jmp", x: 0 }));
            (prog[split] as { y: number }).y = prog.length;
          } else gen(n.items[i]!);
        }
        for (const j of jumps) (prog[j] as { x: number }).x = prog.length;
        return;
      }
      case "rep": {
        for (let i = 0; i < n.min; i++) gen(n.node);
        if (n.max === Infinity) {
          // L: split body, out; body; jmp L
          const split = emit({ op: "split", x: 0, y: 0 });
          gen(n.node);
          emit({ op: "jmp", x: split });
          setSplit(prog, split, split + 1, prog.length, n.lazy);
        } else {
          const splits: number[] = [];
          for (let i = n.min; i < n.max; i++) {
            splits.push(emit({ op: "split", x: 0, y: 0 }));
            gen(n.node);
          }
          for (const s of splits) setSplit(prog, s, s + 1, prog.length, n.lazy);
        }
        return;
      }
    }
  };
  gen(tree);
  emit({ op: "match" });
  return prog;
}

function setSplit(prog: Inst[], at: number, body: number, out: number, lazy: boolean): void {
  const inst = prog[at] as { x: number; y: number };
  inst.x = lazy ? out : body;
  inst.y = lazy ? body : out;
}

/** Adds assertions of a whole-word search around a compiled program's pattern. */
export function wholeWord(tree: Node): Node {
  return { t: "cat", items: [{ t: "assert", kind: "word-start" }, { t: "group", node: tree }, { t: "assert", kind: "word-end" }] };
}

// Case folding per UTF-16 code unit, computed once.
let lowerTable: Uint16Array | undefined;
let upperTable: Uint16Array | undefined;
function foldTables(): [Uint16Array, Uint16Array] {
  if (!lowerTable || !upperTable) {
    lowerTable = new Uint16Array(0x10000);
    upperTable = new Uint16Array(0x10000);
    for (let c = 0; c < 0x10000; c++) {
      const s = String.fromCharCode(c);
      const l = s.toLowerCase();
      const u = s.toUpperCase();
      lowerTable[c] = l.length === 1 ? l.charCodeAt(0) : c;
      upperTable[c] = u.length === 1 ? u.charCodeAt(0) : c;
    }
  }
  return [lowerTable, upperTable];
}

function inSet(set: CharSet, c: number): boolean {
  const r = set.ranges;
  let hit = false;
  for (let i = 0; i < r.length; i += 2) {
    if (c >= r[i]! && c <= r[i + 1]!) {
      hit = true;
      break;
    }
  }
  return hit !== set.negated;
}

const ASCII_WORD = (c: number) => (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || c === 0x5f || (c >= 0x61 && c <= 0x7a);
const UNICODE_WORD = /[\p{L}\p{N}_]/u;
/** Word characters of the whole-word option: Unicode letters and digits, and `_`. */
export const isWordUnit = (c: number) => (c < 0x80 ? ASCII_WORD(c) : c >= 0xd800 && c <= 0xdfff ? true : UNICODE_WORD.test(String.fromCharCode(c)));

export class Vm {
  /** Instructions executed so far (threads stepped plus epsilon moves). */
  steps = 0;
  private readonly marks: Int32Array;
  private readonly fold: [Uint16Array, Uint16Array] | undefined;
  private generation = 0;

  constructor(
    private readonly prog: Inst[],
    caseSensitive: boolean,
    /** Linear is not free: a query that would run more steps than this stops with an error instead of holding the thread. */
    private readonly maxSteps = Infinity,
  ) {
    this.marks = new Int32Array(prog.length).fill(-1);
    this.fold = caseSensitive ? undefined : foldTables();
  }

  private test(set: CharSet, c: number): boolean {
    if (inSet(set, c)) return true;
    if (!this.fold) return false;
    const l = this.fold[0][c]!;
    const u = this.fold[1][c]!;
    return (l !== c && inSet(set, l)) || (u !== c && inSet(set, u));
  }

  private holds(kind: Assertion, text: string, i: number): boolean {
    const before = i > 0 ? text.charCodeAt(i - 1) : -1;
    const after = i < text.length ? text.charCodeAt(i) : -1;
    switch (kind) {
      case "start":
        return i === 0 || before === 0x0a;
      case "end":
        return i === text.length || after === 0x0a;
      case "boundary":
      case "not-boundary": {
        const edge = (before >= 0 && ASCII_WORD(before)) !== (after >= 0 && ASCII_WORD(after));
        return kind === "boundary" ? edge : !edge;
      }
      case "word-start":
        return before < 0 || !isWordUnit(before);
      case "word-end":
        return after < 0 || !isWordUnit(after);
    }
  }

  /**
   * Follows epsilon moves from `pc` at position `i`, appending runnable threads to
   * `pcs`/`starts` in priority order. Each pc enters once per position.
   */
  private addThread(pcs: number[], starts: number[], pc0: number, start: number, text: string, i: number): void {
    const stack = [pc0];
    while (stack.length > 0) {
      const pc = stack.pop()!;
      if (this.marks[pc] === this.generation) continue;
      this.marks[pc] = this.generation;
      this.steps++;
      const inst = this.prog[pc]!;
      switch (inst.op) {
        case "jmp":
          stack.push(inst.x);
          break;
        case "split":
          stack.push(inst.y, inst.x);
          break;
        case "assert":
          if (this.holds(inst.kind, text, i)) stack.push(pc + 1);
          break;
        default:
          pcs.push(pc);
          starts.push(start);
      }
    }
  }

  /** The leftmost-first match starting at or after `from`, or undefined. */
  exec(text: string, from: number): [number, number] | undefined {
    if (this.steps > this.maxSteps) throw new SearchQueryError(`the regular expression needs too much work over this history (over ${this.maxSteps.toLocaleString("en-US")} steps): make it more specific, or add a literal word`);
    let pcs: number[] = [];
    let starts: number[] = [];
    let matched: [number, number] | undefined;
    const n = text.length;
    for (let i = from; i <= n; i++) {
      this.generation++;
      // Re-mark the threads carried over so the closure does not add them twice.
      const carried = pcs;
      const carriedStarts = starts;
      pcs = [];
      starts = [];
      for (let k = 0; k < carried.length; k++) this.addThread(pcs, starts, carried[k]!, carriedStarts[k]!, text, i);
      if (!matched) this.addThread(pcs, starts, 0, i, text, i);
      if (pcs.length === 0) {
        if (matched) break;
        continue;
      }
      const nextPcs: number[] = [];
      const nextStarts: number[] = [];
      const c = i < n ? text.charCodeAt(i) : -1;
      for (let k = 0; k < pcs.length; k++) {
        this.steps++;
        const inst = this.prog[pcs[k]!]!;
        if (inst.op === "match") {
          matched = [starts[k]!, i];
          break; // lower-priority threads lose to this one
        }
        if (inst.op === "set" && c >= 0 && this.test(inst.set, c)) {
          nextPcs.push(pcs[k]! + 1);
          nextStarts.push(starts[k]!);
        }
      }
      pcs = nextPcs;
      starts = nextStarts;
      if (pcs.length === 0 && matched) break;
    }
    return matched;
  }
}
