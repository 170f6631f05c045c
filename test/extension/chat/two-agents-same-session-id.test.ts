import assert from "node:assert/strict";
import { test } from "node:test";
import type { AgentEvent } from "../../../core/protocol";
import { PendingDecisions } from "../../../extension/approval/decisions";
import { LiveState } from "../../../extension/chat/live-state";

// DESIGN allows two agents to hold the same session id (and a cloned `.downcity/` can do it on purpose):
// nothing one of them does may show in, or answer for, the other.
const SAME = "2026-12-02T00-00-00-000Z-aaaa";
const code = { agentId: "code", sessionId: SAME };
const ask = { agentId: "ask", sessionId: SAME };

test("live state keeps two agents' sessions of the same id apart", () => {
  const live = new LiveState();
  const events: AgentEvent[] = [
    { type: "turn-started", ...code },
    { type: "draft", ...code, draftId: "d1", blocks: [{ type: "text", text: "code's answer" }] },
    {
      type: "approval-requested",
      ...ask,
      toolCallId: "call-1",
      toolName: "run_command",
      kind: "command",
      summary: "run `make`",
    },
    { type: "usage", ...ask, usage: { inputTokens: 10, outputTokens: 2 } },
  ];
  for (const event of events) live.apply(event);
  assert.equal(live.get("code", SAME)?.running, true);
  assert.equal(live.get("code", SAME)?.draft?.draftId, "d1");
  assert.equal(live.get("code", SAME)?.pending.size, 0, "the other agent's approval is not code's");
  assert.equal(live.get("code", SAME)?.usage, undefined);
  assert.equal(live.get("ask", SAME)?.running, false, "code's turn does not run ask's session");
  assert.equal(live.get("ask", SAME)?.draft, undefined);
  assert.deepEqual([...live.get("ask", SAME)!.pending.keys()], ["call-1"]);
  assert.equal(live.get("ask", SAME)?.usage?.usage.inputTokens, 10);

  // Ending code's turn clears code's draft and approvals only.
  live.apply({ type: "turn-ended", ...code, reason: "completed" });
  assert.equal(live.get("code", SAME)?.draft, undefined);
  assert.deepEqual([...live.get("ask", SAME)!.pending.keys()], ["call-1"]);
  live.forget("code", SAME);
  assert.equal(live.get("code", SAME), undefined);
  assert.ok(live.get("ask", SAME), "forgetting one agent's session keeps the other's");
});

test("approvals of two agents' sessions of the same id (and of two folders) are separate decisions", async () => {
  const decisions = new PendingDecisions();
  const signal = new AbortController().signal;
  const key = (agent: { agentId: string; sessionId: string }, folderKey = "file:///a") => ({
    folderKey,
    ...agent,
    toolCallId: "call-1",
  });
  const codes = decisions.ask(key(code), signal);
  const asks = decisions.ask(key(ask), signal);
  const otherFolder = decisions.ask(key(code, "file:///b"), signal);
  assert.notEqual(codes, asks);
  assert.notEqual(codes, otherFolder);
  assert.equal(decisions.answer(key(ask), { approved: false, reason: "no" }), true);
  assert.deepEqual(await asks.decision, { approved: false, reason: "no" });
  assert.equal(decisions.isPending(key(code)), true, "answering ask's call leaves code's open");
  assert.equal(decisions.isPending(key(code, "file:///b")), true, "and the other folder's");
  assert.equal(decisions.answer(key(code), { approved: true, scope: "once" }), true);
  assert.deepEqual(await codes.decision, { approved: true, scope: "once" });
  assert.equal(decisions.isPending(key(code, "file:///b")), true);
  otherFolder.answer({ approved: false, reason: "done" });
});
