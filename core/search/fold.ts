/**
 * The one case fold of search, used by the index and by matching alike, so the two can
 * never disagree: the engine's `toLowerCase` when it keeps the length (offsets then map
 * one to one), else a per-code-unit lower-casing that always does.
 */
let table: Uint16Array | undefined;
function lowerTable(): Uint16Array {
  if (!table) {
    table = new Uint16Array(0x10000);
    for (let c = 0; c < 0x10000; c++) {
      const l = String.fromCharCode(c).toLowerCase();
      table[c] = l.length === 1 ? l.charCodeAt(0) : c;
    }
  }
  return table;
}

export function fold(text: string): string {
  const lower = text.toLowerCase();
  if (lower.length === text.length) return lower;
  const t = lowerTable();
  const units = new Array<string>(text.length);
  for (let i = 0; i < text.length; i++) units[i] = String.fromCharCode(t[text.charCodeAt(i)]!);
  return units.join("");
}
