import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { BlockAssembler } from "../../core/llm";

describe("BlockAssembler", () => {
  test("blocks() is a complete snapshot mid-stream, with half-built tool-call arguments parsed best-effort", () => {
    const a = new BlockAssembler();
    a.push({ type: "block-start", index: 0, block: { type: "text" } });
    a.push({ type: "text-delta", index: 0, text: "Hel" });
    a.push({ type: "block-start", index: 1, block: { type: "tool-call", id: "c1", name: "edit" } });
    a.push({ type: "tool-call-delta", index: 1, argumentsDelta: '{"path":"a.ts","text":"hel' });
    assert.deepEqual(a.blocks(), [
      { type: "text", text: "Hel" },
      { type: "tool-call", id: "c1", name: "edit", arguments: { path: "a.ts", text: "hel" } },
    ]);
    assert.deepEqual(a.completedToolCallIds(), []);
    assert.deepEqual(a.blocks({ dropIncompleteToolCalls: true }), [{ type: "text", text: "Hel" }]);
    a.push({ type: "text-delta", index: 0, text: "lo" });
    assert.deepEqual(a.blocks()[0], { type: "text", text: "Hello" }, "snapshots do not freeze state");
  });

  test("block-end's authoritative block wins; completed calls are reported", () => {
    const a = new BlockAssembler();
    a.push({ type: "block-start", index: 0, block: { type: "tool-call", id: "c1", name: "ls" } });
    a.push({ type: "tool-call-delta", index: 0, argumentsDelta: '{"dir":"sr' });
    a.push({
      type: "block-end",
      index: 0,
      block: { type: "tool-call", id: "c1", name: "ls", arguments: { dir: "src" } },
    });
    a.push({ type: "usage", usage: { inputTokens: 3, outputTokens: 4 } });
    a.push({ type: "finish", reason: "tool-calls", replayState: { adapter: "x:y", version: 1, data: { k: 1 } } });
    assert.deepEqual(a.completedToolCallIds(), ["c1"]);
    assert.deepEqual(a.message(), {
      content: [{ type: "tool-call", id: "c1", name: "ls", arguments: { dir: "src" } }],
      usage: { inputTokens: 3, outputTokens: 4 },
      finishReason: "tool-calls",
      replayState: { adapter: "x:y", version: 1, data: { k: 1 } },
    });
    assert.equal(a.finished, true);
  });

  test("blocks keep stream order by index even when deltas interleave; empty text blocks are omitted", () => {
    const a = new BlockAssembler();
    a.push({ type: "block-start", index: 0, block: { type: "reasoning" } });
    a.push({ type: "block-start", index: 1, block: { type: "text" } });
    a.push({ type: "block-start", index: 2, block: { type: "tool-call", id: "a", name: "f" } });
    a.push({ type: "block-start", index: 3, block: { type: "tool-call", id: "b", name: "g" } });
    a.push({ type: "tool-call-delta", index: 3, argumentsDelta: '{"y":2}' });
    a.push({ type: "tool-call-delta", index: 2, argumentsDelta: '{"x":1}' });
    a.push({ type: "reasoning-delta", index: 0, text: "r" });
    assert.deepEqual(a.blocks(), [
      { type: "reasoning", text: "r" },
      { type: "tool-call", id: "a", name: "f", arguments: { x: 1 } },
      { type: "tool-call", id: "b", name: "g", arguments: { y: 2 } },
    ]);
  });

  test("a delta for a block of another kind, or an unannounced tool call, is rejected loudly", () => {
    const a = new BlockAssembler();
    a.push({ type: "block-start", index: 0, block: { type: "text" } });
    assert.throws(() => a.push({ type: "reasoning-delta", index: 0, text: "x" }), /reasoning-delta for text block 0/);
    assert.throws(() => a.push({ type: "tool-call-delta", index: 5, argumentsDelta: "{" }), /unknown block 5/);
    assert.deepEqual(a.blocks(), [], "nothing half-applied");
  });
});
