import assert from "node:assert/strict";
import { test } from "node:test";
import type { ToolResultData } from "../../core/protocol";
import { Sessions } from "../../core/storage";
import { tempRoot, user } from "../support/storage/helpers";

const call = (id: string) => ({
  content: [{ type: "tool-call" as const, id, name: "read", arguments: { path: "a" } }],
});
const result = (id: string) => ({ toolCallId: id, toolName: "read", content: [{ type: "text" as const, text: "ok" }] });

test("recovery pairs tool calls and results within their turn: an id reused across turns (call_0) still gets its synthetic result", async (t) => {
  const root = tempRoot(t);
  const a = new Sessions({ root, batchWindowMs: 1 });
  const s = a.create({ id: "s" });
  for (const turn of [1, 2]) {
    s.append("turn/start", { turn });
    user(s, `turn ${turn}`);
    s.append("assistant/message", call("call_0"), { surface: "append" });
    s.append("tool/call", { toolCallId: "call_0", name: "read", arguments: { path: "a" } });
    if (turn === 1) {
      s.append("tool/result", result("call_0"), { surface: "append" });
      s.append("turn/end", { reason: "completed" });
    }
  }
  // The process dies in turn 2 while call_0 runs.
  await a.flush(s);
  await a.persistence.release(s);
  const b = new Sessions({ root });
  const { session, report } = await b.open({ sessionId: "s" });
  assert.ok(
    report.actions.includes("added 1 synthetic tool result(s) for tool calls without a result (call_0)"),
    report.actions.join(" | "),
  );
  const tail = session.events().slice(-2);
  assert.equal(tail[0]!.type, "tool/result");
  assert.equal((tail[0]!.data as ToolResultData).synthetic, "outcome-unknown");
  assert.equal(tail[1]!.type, "turn/end");
  // The model context: each call_0 is followed by its own result.
  const kinds = session
    .deriveMessages()
    .flatMap((m) => m.content.map((b) => b.type))
    .filter((k) => k === "tool-call" || k === "tool-result");
  assert.deepEqual(kinds, ["tool-call", "tool-result", "tool-call", "tool-result"]);
  await b.close();
  const again = await new Sessions({ root }).open({ sessionId: "s" });
  assert.equal(again.report.repaired, false, `idempotent: ${again.report.actions.join(" | ")}`);
});

test("recovery: a synthetic result written after a turn that had already ended still answers its call (idempotent)", async (t) => {
  const root = tempRoot(t);
  const a = new Sessions({ root, batchWindowMs: 1 });
  const s = a.create({ id: "s" });
  s.append("turn/start", { turn: 1 });
  s.append("assistant/message", call("call_0"), { surface: "append" });
  s.append("turn/end", { reason: "error" });
  s.append("turn/start", { turn: 2 });
  s.append("assistant/message", call("call_0"), { surface: "append" });
  s.append("tool/result", result("call_0"), { surface: "append" });
  s.append("turn/end", { reason: "completed" });
  await a.close();
  const b = new Sessions({ root });
  const first = await b.open({ sessionId: "s" });
  assert.ok(
    first.report.actions.some((x) => x.startsWith("added 1 synthetic")),
    "turn 1's call_0 had no result in its turn",
  );
  await b.close();
  const again = await new Sessions({ root }).open({ sessionId: "s" });
  assert.equal(again.report.repaired, false, again.report.actions.join(" | "));
});
