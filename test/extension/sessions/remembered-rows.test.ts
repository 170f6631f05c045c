import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { RememberedFirstRows, type RememberedRows } from "../../../extension/sessions/remembered-rows";
import { tempDir } from "../../support/temp";

const rows = (...ids: string[]): RememberedRows => ({
  live: ids.map((sessionId) => ({ agentId: "code", sessionId })),
  archived: [],
});

test("remembered rows round-trip through the file, the newest 32 folders kept, a snapshot taken at the write", async (t) => {
  const file = join(tempDir(t), "storage", "sessions-first-rows.json");
  const writer = new RememberedFirstRows(file, () => {}, 60_000);
  for (let i = 0; i < 40; i++) writer.remember(`file:///folder-${i}`, () => rows(`s-${i}`));
  let snapshot = rows("early");
  writer.remember("file:///live", () => snapshot);
  snapshot = rows("at-write"); // what the folder shows when the write runs, not when the change came
  await writer.flush();
  const reader = new RememberedFirstRows(file, () => {});
  assert.deepEqual(reader.get("file:///live"), rows("at-write"));
  assert.deepEqual(reader.get("file:///folder-39"), rows("s-39"));
  assert.equal(reader.get("file:///folder-8"), undefined, "the oldest folders are dropped");
  assert.deepEqual(reader.get("file:///folder-9"), rows("s-9"));
});

test("a write that fails is said once, and retried at the next change", async (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, "not-a-folder"), "");
  const logged: string[] = [];
  const remembered = new RememberedFirstRows(join(dir, "not-a-folder", "rows.json"), (l) => logged.push(l), 60_000);
  for (let i = 0; i < 3; i++) {
    remembered.remember("file:///f", () => rows(`s-${i}`));
    await remembered.flush();
  }
  const failed = logged.filter((l) => l.startsWith("remembering the Sessions view's first rows failed"));
  assert.equal(failed.length, 1, logged.join(" | "));
  assert.match(failed[0]!, /EEXIST|ENOTDIR/);
});
