// Crash soak (issue 3): node --import tsx bench/storage-soak.ts [trials=1000] [parallel=4]
import { bundleChild, crashTrials } from "../test/support/storage/crash-harness";

async function main() {
  const trials = Number(process.argv[2] ?? 1000);
  const parallel = Number(process.argv[3] ?? 4);
  const bundle = await bundleChild();
  const t0 = performance.now();
  try {
    const { failures, stats } = await crashTrials(bundle.file, trials, parallel, 400, 100_000);
    console.log(
      JSON.stringify({ ...stats, failures: failures.length, seconds: Math.round((performance.now() - t0) / 1000) }),
    );
    for (const f of failures.slice(0, 10)) console.log(JSON.stringify(f));
    if (failures.length) process.exitCode = 1;
  } finally {
    bundle.cleanup();
  }
}
void main();
