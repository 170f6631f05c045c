/** Small helpers shared by the benchmarks: medians, timing, memory. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Milliseconds taken by `fn`. */
export function timeMs(fn: () => void): number {
  const start = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

export async function timeMsAsync(fn: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

export const mib = (bytes: number) => bytes / 1024 / 1024;
export const fmt = (n: number, digits = 2) => n.toFixed(digits);

/** Prints a markdown table. */
export function table(headers: string[], rows: (string | number)[][]): void {
  console.log(`| ${headers.join(" | ")} |`);
  console.log(`|${headers.map(() => "---").join("|")}|`);
  for (const row of rows) console.log(`| ${row.join(" | ")} |`);
}
