import assert from "node:assert/strict";
import { test } from "node:test";
import { assistantEv, conversation, helloWith, REF, skipReason, snapshot, useChat } from "../support/webview/harness";

const open = useChat();

test("malformed host events are dropped without breaking the view", { skip: skipReason }, async (t) => {
  const { page, host } = await open(t, helloWith(snapshot(conversation(1, 4))));
  const base = { sessionId: REF.sessionId, agentId: REF.agentId };
  await page.getByText("Question 3").waitFor();
  const junk: unknown[] = [
    null,
    "hello",
    42,
    { kind: "event" },
    { kind: "event", event: { type: "nope" } },
    { kind: "event", event: { type: "agent", folderKey: REF.folderKey, event: { type: "draft", ...base } } },
    {
      kind: "event",
      event: {
        type: "agent",
        folderKey: REF.folderKey,
        event: { type: "session-event", ...base, event: { seq: -1, type: "user/message" } },
      },
    },
    { kind: "event", event: { type: "session-switched", snapshot: { ref: REF } } },
    { kind: "response", id: 999, result: {} },
    { kind: "response", id: "x", error: 1 },
    {
      kind: "event",
      event: {
        type: "agent",
        folderKey: REF.folderKey,
        event: { type: "usage", ...base, usage: { inputTokens: -5, outputTokens: 1 } },
      },
    },
  ];
  for (const m of junk) await host.postRaw(m);
  await host.frames();
  const dropped = await page.evaluate(() => (window as any).__downcityChat.rpc.dropped as number);
  assert.equal(dropped, junk.length - 1, "every malformed message was dropped (the stray response is ignored)");
  assert.equal(await page.getByText("Question 3").count(), 1, "the conversation is intact");

  // The view still works: a valid event after the junk renders.
  await host.event({
    type: "agent",
    folderKey: REF.folderKey,
    event: { type: "session-event", ...base, event: assistantEv(5, "Still alive after the junk.") },
  });
  await page.getByText("Still alive after the junk.").waitFor();
  const errors = host.sent.filter((s) => (s.method as string) === "pageerror");
  assert.deepEqual(errors, []);
});
