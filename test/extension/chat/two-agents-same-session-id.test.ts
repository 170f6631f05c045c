import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { AgentEvent, AgentEventOf } from "../../../core/protocol";
import { PendingDecisions } from "../../../extension/approval/decisions";
import { LiveState } from "../../../extension/chat/live-state";
import { createApprover } from "../../../extension/tools/approvals";
import { startHarness } from "../../agent/harness";
import { wire } from "../../support/provider-server";
import { ChatController, FOLDER, recordingActions, runtimesOf, view } from "./helpers";

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

// The same through the chat host, end to end: one real runtime whose agents "code" and "fix" (both may edit) each hold
// a session "session-test" and each wait for an approval of a call "w1"; the product's approver asks the chat's
// decisions, and each view answers its own card. Keyed by session id (and call) alone, the live state, the events,
// the snapshots or the answers would cross.
test("the chat host keeps two agents' sessions of the same id apart, in live state and in approvals", async (t) => {
  let controller: ChatController | undefined;
  const prompted: string[] = [];
  const approve = createApprover({
    folderKey: FOLDER,
    chat: () => controller?.approvals,
    prompts: { choose: (message) => (prompted.push(message), new Promise(() => {})), reason: async () => undefined },
  });
  const h = await startHarness(
    t,
    ({ body }) => {
      const messages: { role: string; content?: unknown }[] = body.messages;
      if (messages.at(-1)?.role === "tool") return { sse: wire.openaiChat({ text: "Done." }) };
      const file = /write (\w+\.txt)/.exec(JSON.stringify(messages.at(-1)?.content))![1]!;
      const write = { path: file, content: file };
      return { sse: wire.openaiChat({ toolCalls: [{ id: "w1", name: "write_file", arguments: write }] }) };
    },
    {
      agent: { policy: "reads", approve },
      runtime: {
        agents: [
          { id: "code", name: "Code" },
          { id: "fix", name: "Fix" },
        ],
      },
    },
  );
  const fixSession = h.runtime.create("fix", h.agent.session.id);
  const codeRef = { folderKey: FOLDER, agentId: "code", sessionId: h.agent.session.id };
  const fixRef = { folderKey: FOLDER, agentId: "fix", sessionId: fixSession.id };
  assert.equal(fixRef.sessionId, codeRef.sessionId, "the same session id");
  controller = new ChatController(runtimesOf(h.runtime));
  t.after(() => controller!.dispose());
  const codeView = view(controller, recordingActions());
  // Fix's view is hidden at first: its card cannot ask, so a notification asks too (and code's visible view must not
  // count as showing fix's session).
  let fixVisible = false;
  const fixView = view(controller, recordingActions(), () => fixVisible);
  await codeView.request("switchSession", { ref: codeRef });
  await fixView.request("switchSession", { ref: fixRef });

  await codeView.request("prompt", { ref: codeRef, text: "write code.txt" });
  await codeView.until((e) => e.type === "approval-requested");
  await fixView.request("prompt", { ref: fixRef, text: "write fix.txt" });
  await fixView.until((e) => e.type === "approval-requested");
  assert.equal(controller.approvals.decisions.size, 2, "two open decisions, not one");
  assert.equal(prompted.length, 1, "one notification: fix's, whose view is hidden; code's card asks alone");
  assert.match(prompted[0]!, /fix\.txt/);
  fixVisible = true;
  assert.ok(
    codeView.agentEvents().every((e) => e.agentId === "code"),
    "code's view hears code's session only",
  );
  assert.ok(
    fixView.agentEvents().every((e) => e.agentId === "fix"),
    "fix's view hears fix's session only",
  );

  // Live state: each session's snapshot holds its own run and its own open approval.
  const pending = async (v: ReturnType<typeof view>, ref: typeof codeRef) => {
    const snap = await v.request("switchSession", { ref });
    return {
      running: snap.running,
      cards: snap.pendingApprovals.map((a: AgentEventOf<"approval-requested">) => `${a.agentId}:${a.summary}`),
    };
  };
  assert.deepEqual(await pending(codeView, codeRef), { running: true, cards: ["code:write code.txt (8 bytes)"] });
  assert.deepEqual(await pending(fixView, fixRef), { running: true, cards: ["fix:write fix.txt (7 bytes)"] });

  // Approvals: fix's Approve answers fix's call alone; code's stays open, its run still waiting.
  const once = { approved: true, scope: "once" } as const;
  assert.deepEqual(await fixView.request("approve", { ref: fixRef, toolCallId: "w1", decision: once }), {
    resolved: true,
  });
  await fixView.until((e) => e.type === "turn-ended");
  assert.equal(readFileSync(join(h.root, "fix.txt"), "utf8"), "fix.txt");
  assert.ok(!existsSync(join(h.root, "code.txt")), "code's edit waits for code's answer");
  assert.deepEqual(await pending(codeView, codeRef), { running: true, cards: ["code:write code.txt (8 bytes)"] });
  assert.deepEqual(await pending(fixView, fixRef), { running: false, cards: [] });
  assert.deepEqual(
    await fixView.request("approve", { ref: fixRef, toolCallId: "w1", decision: once }),
    { resolved: false },
    "fix's call is answered already; code's call of the same id is not fix's to answer",
  );
  assert.equal(controller.approvals.decisions.size, 1);

  const no = { approved: false, reason: "not this one" };
  assert.deepEqual(await codeView.request("approve", { ref: codeRef, toolCallId: "w1", decision: no }), {
    resolved: true,
  });
  await codeView.until((e) => e.type === "turn-ended");
  assert.ok(!existsSync(join(h.root, "code.txt")), "code's denied edit never ran");
  assert.deepEqual(await pending(codeView, codeRef), { running: false, cards: [] });
  assert.equal(controller.approvals.decisions.size, 0);
});
