import assert from "node:assert/strict";
import { test } from "node:test";
import { bundleChild, crashTrials } from "../support/storage/crash-harness";

// 40 trials keep the suite fast; `bench/storage-soak.ts` runs 1,000 with the same checks.
const TRIALS = 40;

test(
  `SIGKILL at random points: every flushed event survives, seqs contiguous, drafts recovered once (${TRIALS} trials, each one counted)`,
  { timeout: 120_000 },
  async () => {
    const bundle = await bundleChild();
    try {
      const { failures, stats } = await crashTrials(bundle.file, TRIALS, 4, 250, 1, 1);
      assert.deepEqual(failures, [], JSON.stringify(failures.slice(0, 3), null, 1));
      assert.equal(stats.trials, TRIALS);
      // Every kill landed mid-work (after the first acknowledged flush, by SIGKILL), and
      // the kill points exercise recovery: repairs and draft recoveries happen.
      assert.equal(stats.counted, TRIALS, "every trial was killed mid-work");
      assert.ok(stats.repaired >= TRIALS / 5, `only ${stats.repaired} trials needed repair`);
      assert.ok(stats.draftsRecovered >= 1, `only ${stats.draftsRecovered} drafts recovered`);
      assert.ok(stats.maxAcked > 20);
    } finally {
      bundle.cleanup();
    }
  },
);
