import assert from "node:assert/strict";
import { test } from "node:test";
import { conversation, ev, helloWith, REF, skipReason, snapshot, useChat } from "../support/webview/harness";

const open = useChat();

// End-to-end tests (and screen readers) find the controls by these names; an icon glyph
// (a codicon's CSS ::before content) must not become part of them.
test("Send, Stop, Approve, Deny and Load earlier are named exactly that", { skip: skipReason }, async (t) => {
  const events = [
    ...conversation(21, 4),
    ev(25, "assistant/message", {
      content: [{ type: "tool-call", id: "c1", name: "run_command", arguments: { command: "ls" } }],
    }),
  ];
  const snap = snapshot(events, {
    running: true,
    page: { events, firstSeq: 21, lastSeq: 25, hasOlder: true },
    pendingApprovals: [
      {
        type: "approval-requested",
        sessionId: REF.sessionId,
        agentId: REF.agentId,
        toolCallId: "c1",
        toolName: "run_command",
        kind: "command",
        summary: "Run ls",
      },
    ],
  });
  const chat = await open(t, (host) => helloWith(snap)(host));
  for (const name of ["Send", "Stop", "Approve", "Deny", "Load earlier"]) {
    await chat.page.getByRole("button", { name, exact: true }).waitFor({ timeout: 10_000 });
  }
  await chat.page.getByRole("textbox", { name: "Message", exact: true }).waitFor({ timeout: 10_000 });
});
