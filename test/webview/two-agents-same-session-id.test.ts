import assert from "node:assert/strict";
import { test } from "node:test";
import type { AgentEvent } from "../../core/protocol";
import { assistantEv, conversation, helloWith, REF, skipReason, snapshot, useChat } from "../support/webview/harness";

const open = useChat();

// DESIGN lets two agents of one folder hold the same session id (a cloned .downcity/ can do it on purpose): the chat
// showing agent "code"'s session s1 must not take in what agent "ask"'s session s1 does.
test(
  "a pushed event of another agent's session with the same id leaves the shown chat alone",
  { skip: skipReason },
  async (t) => {
    const chat = await open(t, helloWith(snapshot(conversation(1, 2))));
    const { page, host } = chat;
    const other = { sessionId: REF.sessionId, agentId: "ask" };
    const own = { sessionId: REF.sessionId, agentId: REF.agentId };
    const push = (event: AgentEvent) => host.event({ type: "agent", folderKey: REF.folderKey, event });
    await page.getByText("Answer 2.").waitFor();
    await push({ type: "turn-started", ...other });
    await push({ type: "draft", ...other, draftId: "d1", blocks: [{ type: "text", text: "Other agent drafting" }] });
    await push({ type: "session-event", ...other, event: assistantEv(3, "Other agent's answer") });
    await push({ type: "notice", ...other, level: "warning", message: "Other agent's notice" });
    // The view applies events in order: once the shown agent's own event is drawn, the others were handled.
    await push({ type: "session-event", ...own, event: assistantEv(3, "Own agent's answer") });
    await page.getByText("Own agent's answer").waitFor();
    await host.frames();

    for (const text of ["Other agent drafting", "Other agent's answer", "Other agent's notice"])
      assert.equal(await page.getByText(text).count(), 0, `"${text}" (agent ask) is not in agent code's chat`);
    assert.equal(
      await page.getByRole("button", { name: "Stop" }).count(),
      0,
      "the other agent's run is not this one's",
    );

    // The same events of the shown agent do apply (the check is not just dropping everything).
    await push({ type: "turn-started", ...own });
    await page.getByRole("button", { name: "Stop" }).waitFor();
    assert.deepEqual(
      host.sent.filter((s) => (s.method as string) === "pageerror"),
      [],
    );
  },
);
