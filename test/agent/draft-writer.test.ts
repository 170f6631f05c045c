import assert from "node:assert/strict";
import { test } from "node:test";
import { DraftWriter } from "../../core/agent/draft-writer";
import { Session, type Draft } from "../../core/session";

function recorder() {
  const writes: Draft[] = [];
  let release: (() => void) | undefined;
  return {
    writes,
    slow: false,
    async writeDraft(_s: Session, draft: Draft) {
      writes.push(draft);
      if (this.slow) await new Promise<void>((r) => (release = r));
    },
    finish: () => release?.(),
  };
}

test("a burst of updates within one interval writes the draft once, with the latest snapshot when it flushes", async () => {
  let now = 1_000;
  const storage = recorder();
  const writer = new DraftWriter(storage, new Session({ id: "s" }), { draftId: "d1" }, 100, () => now);
  for (let i = 0; i < 50; i++) writer.update(() => [{ type: "text", text: `v${i}` }]);
  assert.equal(storage.writes.length, 1, "first update writes at once, the rest wait for the interval");
  assert.deepEqual(storage.writes[0]!.blocks, [{ type: "text", text: "v0" }]);
  now += 100;
  // The trailing write fires on a real timer: wait for it (bounded), then count.
  for (let i = 0; i < 200 && storage.writes.length < 2; i++) await new Promise((r) => setTimeout(r, 10));
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(storage.writes.length, 2, "exactly one trailing write after the interval");
  assert.deepEqual(storage.writes[1]!.blocks, [{ type: "text", text: "v49" }], "it carries the newest snapshot");
  await writer.settle();
  writer.update(() => [{ type: "text", text: "late" }]);
  assert.equal(storage.writes.length, 2, "nothing is written after settle (the draft is about to be discarded)");
});

test("only one write is in flight; updates meanwhile collapse into one follow-up write", async () => {
  let now = 1_000;
  const storage = recorder();
  storage.slow = true;
  const writer = new DraftWriter(storage, new Session({ id: "s" }), { draftId: "d1" }, 100, () => now);
  writer.update(() => [{ type: "text", text: "a" }]);
  now = 1_500;
  writer.update(() => [{ type: "text", text: "b" }]);
  writer.update(() => [{ type: "text", text: "c" }]);
  assert.equal(storage.writes.length, 1);
  storage.slow = false;
  storage.finish();
  await new Promise((r) => setImmediate(r));
  await new Promise((r) => setImmediate(r));
  assert.equal(storage.writes.length, 2);
  assert.deepEqual(storage.writes[1]!.blocks, [{ type: "text", text: "c" }]);
  await writer.settle();
});

test("the live view never waits for the disk: with a write in flight, the next snapshot still shows after the interval", async () => {
  let now = 1_000;
  const storage = recorder();
  storage.slow = true;
  const shown: string[] = [];
  const writer = new DraftWriter(
    storage,
    new Session({ id: "s" }),
    { draftId: "d1" },
    100,
    () => now,
    (blocks) => shown.push(blocks.map((b) => (b.type === "text" ? b.text : b.type)).join("")),
  );
  writer.update(() => [{ type: "text", text: "The" }]);
  assert.deepEqual(shown, ["The"], "the first text shows at once");
  assert.equal(storage.writes.length, 1, "and is written at once");
  now += 100;
  writer.update(() => [{ type: "text", text: "The inventory" }]);
  assert.deepEqual(shown, ["The", "The inventory"], "the write still in flight holds nothing back");
  assert.equal(storage.writes.length, 1, "one write in flight at a time");
  writer.update(() => [{ type: "text", text: "The inventory module" }]);
  assert.equal(shown.length, 2, "within the interval the view waits (a burst costs one update)");
  // The end of the stream: the views get the newest text before the write in flight is waited for.
  const settled = writer.settle();
  assert.deepEqual(shown.at(-1), "The inventory module");
  storage.finish();
  await settled;
  assert.equal(shown.length, 3);
  assert.equal(storage.writes.length, 1, "nothing more is written once settled");
});

test("the stream's opening empty delta is neither shown nor written, so the first text does not wait an interval", () => {
  const now = 1_000;
  const storage = recorder();
  const shown: number[] = [];
  const writer = new DraftWriter(
    storage,
    new Session({ id: "s" }),
    { draftId: "d1" },
    100,
    () => now,
    (blocks) => shown.push(blocks.length),
  );
  writer.update(() => []);
  writer.update(() => [{ type: "text", text: "" }]);
  assert.equal(storage.writes.length, 0);
  assert.deepEqual(shown, []);
  // Same instant: without the skip this would wait out the interval the empty delta started.
  writer.update(() => [{ type: "text", text: "The" }]);
  assert.equal(storage.writes.length, 1);
  assert.deepEqual(storage.writes[0]!.blocks, [{ type: "text", text: "The" }]);
  assert.deepEqual(shown, [1]);
});
