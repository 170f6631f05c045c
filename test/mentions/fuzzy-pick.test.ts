import assert from "node:assert/strict";
import { test } from "node:test";
import { fuzzyFilter } from "../../core/mentions";
import { fuzzyScore } from "../../core/mentions/fuzzy";

test("@file fuzzy match: the file name first, its start first, the closest name first; characters in order across folders", () => {
  const paths = [
    "src/lib/file12341.ts",
    "src/utils/file1234.ts",
    "docs/file1234-notes.md",
    "src/inventory.ts",
    "test/inventory.spec.ts",
    "src/in/ven/tory.ts",
    "README.md",
  ];
  assert.deepEqual(fuzzyFilter(paths, "file1234", 3), [
    "src/utils/file1234.ts",
    "src/lib/file12341.ts",
    "docs/file1234-notes.md",
  ]);
  assert.equal(fuzzyFilter(paths, "inventory", 1)[0], "src/inventory.ts");
  assert.equal(fuzzyFilter(paths, "invspec", 1)[0], "test/inventory.spec.ts");
  assert.equal(fuzzyScore("README.md", "xyz"), undefined, "every character must be there, in order");
  assert.equal(fuzzyFilter(paths, "", 2).length, 2, "no query: the shortest paths");
  assert.deepEqual(fuzzyFilter(paths, "INVENTORY", 1), ["src/inventory.ts"], "case-insensitive");
});
