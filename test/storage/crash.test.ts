import assert from "node:assert/strict";
import { test } from "node:test";
import { bundleChild, crashTrials } from "./crash-harness";

test("SIGKILL at random points: every flushed event survives, seqs contiguous, drafts recovered once (200 trials)", { timeout: 120_000 }, async () => {
  const bundle = await bundleChild();
  try {
    const { failures, stats } = await crashTrials(bundle.file, 200, 5, 250);
    assert.deepEqual(failures, [], JSON.stringify(failures.slice(0, 3), null, 1));
    assert.equal(stats.trials, 200);
    // The kill points must actually land mid-work: repairs and draft recoveries happen.
    assert.ok(stats.repaired >= 10, `only ${stats.repaired} trials needed repair`);
    assert.ok(stats.draftsRecovered >= 3, `only ${stats.draftsRecovered} drafts recovered`);
    assert.ok(stats.maxAcked > 20);
  } finally {
    bundle.cleanup();
  }
});
