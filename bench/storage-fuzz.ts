// Fuzz benchmark of damaged and hostile session folders (issue 9).
// Usage: node --import tsx bench/storage-fuzz.ts [cases=10000] [firstSeed=1] [parallel=4]
// Prints counts by outcome (repaired, clean, read-only, refused, defect) overall and per
// family, then the first defects with their seeds (re-run one with cases=1 firstSeed=N).
import { runCases } from "../test/support/storage/fuzz";

async function main() {
  const [cases = 10_000, firstSeed = 1, parallel = 4] = process.argv.slice(2).map(Number);
  const t0 = performance.now();
  let done = 0;
  const running: Record<string, number> = {};
  const { counts, byFamily, defects } = await runCases(firstSeed, cases, {
    parallel,
    onResult: (r) => {
      running[r.outcome] = (running[r.outcome] ?? 0) + 1;
      if (++done % 500 === 0)
        process.stderr.write(
          `${done} cases ${JSON.stringify(running)} ${Math.round((performance.now() - t0) / 1000)} s\n`,
        );
      if (r.outcome === "defect") process.stderr.write(`${JSON.stringify(r)}\n`);
    },
  });
  console.log(JSON.stringify({ cases, firstSeed, ...counts, seconds: Math.round((performance.now() - t0) / 1000) }));
  for (const [family, c] of Object.entries(byFamily).sort()) console.log(family.padEnd(9), JSON.stringify(c));
  for (const d of defects.slice(0, 20)) console.log(JSON.stringify(d));
  if (defects.length > 0) process.exitCode = 1;
}
void main();
