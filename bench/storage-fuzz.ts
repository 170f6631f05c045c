// Fuzz benchmark of damaged and hostile session folders (issue 9).
// Usage: node --import tsx bench/storage-fuzz.ts [cases=10000] [firstSeed=1] [parallel=4]
// Prints counts by outcome (repaired, clean, read-only, refused, defect) overall and per
// family, then the first defects with their seeds (re-run one with cases=1 firstSeed=N).
import { runCases } from "../test/storage/fuzz";

async function main() {
  const [cases = 10_000, firstSeed = 1, parallel = 4] = process.argv.slice(2).map(Number);
  const t0 = performance.now();
  let done = 0;
  const { counts, byFamily, defects } = await runCases(firstSeed, cases, {
    parallel,
    onResult: () => {
      if (++done % 1000 === 0) process.stderr.write(`${done} cases\n`);
    },
  });
  console.log(JSON.stringify({ cases, firstSeed, ...counts, seconds: Math.round((performance.now() - t0) / 1000) }));
  for (const [family, c] of Object.entries(byFamily).sort()) console.log(family.padEnd(9), JSON.stringify(c));
  for (const d of defects.slice(0, 20)) console.log(JSON.stringify(d));
  if (defects.length > 0) process.exitCode = 1;
}
void main();
