import assert from "node:assert/strict";
import { test } from "node:test";
import { runCases } from "../support/storage/fuzz";

// A fixed seed, so a failure reproduces: `bench/storage-fuzz.ts` runs 10,000+ cases.
const FIRST_SEED = 1;
const CASES = 210;

test(
  `fuzz: ${CASES} damaged and hostile session folders (active log, segments, draft, meta, lock, folders, symlinks) are repaired, opened read-only or refused, never a defect`,
  { timeout: 240_000 },
  async () => {
    const { counts, byFamily, defects } = await runCases(FIRST_SEED, CASES);
    assert.deepEqual(defects.slice(0, 5), [], JSON.stringify(counts));
    // Every family reaches its outcomes: the mutations really damage.
    for (const [family, c] of Object.entries(byFamily))
      assert.ok(c.repaired + c["read-only"] + c.refused > 0, `${family}: ${JSON.stringify(c)}`);
    assert.ok(counts["read-only"] > 0 && counts.refused > 0 && counts.repaired > 0, JSON.stringify(counts));
  },
);
