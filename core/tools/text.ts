/** Bytes inspected to decide whether a file is binary (git and ripgrep look at a similar prefix). */
export const BINARY_SNIFF_BYTES = 8_000;

/** A NUL byte in the first few kilobytes marks a file as binary, as git and ripgrep decide. */
export function looksBinary(prefix: Uint8Array): boolean {
  const end = Math.min(prefix.length, BINARY_SNIFF_BYTES);
  for (let i = 0; i < end; i++) if (prefix[i] === 0) return true;
  return false;
}

/** "1 line" / "3 lines". */
export function plural(n: number, word: string): string {
  return `${n.toLocaleString("en-US")} ${word}${n === 1 ? "" : "s"}`;
}
