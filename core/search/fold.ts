/**
 * The one case fold of search, used by the index, the literal matcher and the regex
 * prefilter alike, so they can never disagree. It keeps the length (offsets map one to
 * one) and follows Unicode simple case folding, which the regex engine (RE2's
 * case-insensitive mode) uses: the engine's `toLowerCase`, then the few characters it
 * leaves alone that simple folding merges with another (`ſ`→`s`, `ς`→`σ`, `µ`→`μ`, …).
 */
let table: Uint16Array | undefined;
let special: RegExp | undefined;

/** Simple-fold orbits that lower(upper(c)) does not join (their upper case is several characters). */
const ORBITS: [number, number][] = [
  [0x1fd3, 0x0390],
  [0x1fe3, 0x03b0],
  [0xfb05, 0xfb06],
];

function build(): void {
  table = new Uint16Array(0x10000);
  const odd: number[] = [];
  for (let c = 0; c < 0x10000; c++) {
    const s = String.fromCharCode(c);
    const lower = s.toLowerCase();
    const upper = s.toUpperCase();
    const viaUpper = upper.length === 1 ? upper.toLowerCase() : lower;
    const folded = viaUpper.length === 1 ? viaUpper.charCodeAt(0) : lower.length === 1 ? lower.charCodeAt(0) : c;
    table[c] = folded;
    if (lower.length === 1 && folded !== lower.charCodeAt(0)) odd.push(lower.charCodeAt(0));
  }
  for (const [from, to] of ORBITS) {
    table[from] = to;
    odd.push(from);
  }
  const units = [...new Set(odd)].filter((c) => c < 0xd800 || c > 0xdfff);
  special = new RegExp(`[${units.map((c) => `\\u${c.toString(16).padStart(4, "0")}`).join("")}]`);
}

function mapUnits(text: string): string {
  const t = table!;
  const units = new Array<string>(text.length);
  for (let i = 0; i < text.length; i++) units[i] = String.fromCharCode(t[text.charCodeAt(i)]!);
  return units.join("");
}

export function fold(text: string): string {
  if (!table) build();
  const lower = text.toLowerCase();
  if (lower.length !== text.length) return mapUnits(text);
  // The native lower-casing is exact but for a handful of characters: fix those only when present.
  return special!.test(lower) ? mapUnits(lower) : lower;
}
