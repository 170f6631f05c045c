import type { Matcher } from "./matcher";

/**
 * A test on a unit's stored bytes (an Active log, or a segment once decompressed) before
 * they are decoded: false only when no field of the unit can hold a match. A scan with
 * no index (cold) then decodes only the units that may match: JSON parsing and the
 * checksum cost more than the decompression (BENCHMARKS.md, "Session search … third round").
 *
 * Why it cannot lose a hit: it looks only for the query's required literals' runs of
 * characters that JSON writes as themselves and that no field joins across (letters and
 * `_`; digits are left out, as a number's JSON text is not always the one searched). A
 * field's text holds such a run only if the record's bytes do, unless a `\uXXXX` escape
 * spells a character of it (then the unit is decoded) or, folded, a non-ASCII character
 * folds to an ASCII letter (`K`, `ſ`: then too).
 */
export type RawTest = (plain: Buffer) => boolean;

/** Case-sensitive runs: ASCII letters, `_`, and non-ASCII characters (JSON writes them as UTF-8; a lone surrogate is escaped). */
const EXACT_RUN = /[A-Za-z_\u{a0}-\u{d7ff}\u{e000}-\u{10ffff}]+/gu;
/** Folded runs: ASCII only (the bytes are lower-cased as Latin-1, which is exact for ASCII alone). */
const FOLDED_RUN = /[a-z_]+/g;
const ESCAPE = Buffer.from("\\u", "latin1");

/**
 * The non-ASCII characters that fold to an ASCII letter (ı→i, ſ→s, the Kelvin sign→k): all
 * of them in the BMP (test/search/raw-test.test.ts recomputes the list from `fold`).
 */
export const FOLDS_TO_ASCII: Readonly<Record<string, string>> = { i: "\u0131", s: "\u017f", k: "\u212a" };

function exoticFor(letters: string): Buffer[] {
  const out: Buffer[] = [];
  for (const letter of new Set(letters)) {
    const odd = FOLDS_TO_ASCII[letter];
    if (odd !== undefined) out.push(Buffer.from(odd, "utf8"));
  }
  return out;
}

/** Whether a `\uXXXX` escape in the bytes may spell a character a run could hold (a control character cannot). */
function escapesText(plain: Buffer): boolean {
  for (let at = plain.indexOf(ESCAPE); at >= 0; at = plain.indexOf(ESCAPE, at + 2)) {
    const code = parseInt(plain.toString("latin1", at + 2, at + 6), 16);
    if (!(code < 0x20)) return true;
  }
  return false;
}

/** Benchmarks compare the scan with and without the test in one run; always on otherwise. */
export const rawTests = { enabled: true };

/** The query's test on stored bytes; undefined when its literals hold no run to look for. */
export function rawTest(matcher: Pick<Matcher, "caseSensitive" | "required">): RawTest | undefined {
  if (!rawTests.enabled) return undefined;
  const runs = new Set<string>();
  for (const literal of matcher.required)
    for (const run of literal.match(matcher.caseSensitive ? EXACT_RUN : FOLDED_RUN) ?? []) runs.add(run);
  if (runs.size === 0) return undefined;
  // Longest first: the most selective fails soonest.
  const ordered = [...runs].sort((a, b) => b.length - a.length);
  if (matcher.caseSensitive) {
    const needles = ordered.map((run) => Buffer.from(run, "utf8"));
    return (plain) => needles.every((n) => plain.includes(n)) || escapesText(plain);
  }
  const exotic = exoticFor(ordered.join(""));
  return (plain) => {
    const lower = plain.toString("latin1").toLowerCase();
    return ordered.every((run) => lower.includes(run)) || escapesText(plain) || exotic.some((e) => plain.includes(e));
  };
}
