// The premise of test/e2e/until-element.ts, in a real browser: a streamed message keeps its row
// and article when it becomes final, but its text's node is re-created, so a check that held the
// node (CI's workbench-chat failure: closest() null) fails where one that finds it again passes.
import assert from "node:assert/strict";
import { test } from "node:test";
import { untilElement } from "../e2e/until-element";
import {
  assistantEv,
  conversation,
  helloWith,
  REF,
  skipReason,
  snapshot,
  useChat,
  type FakeHost,
} from "../support/webview/harness";

const open = useChat();
type AgentEvent = Extract<Parameters<FakeHost["event"]>[0], { type: "agent" }>["event"];

test(
  "a message's text found again every frame is followed across the final render that replaces its node",
  { skip: skipReason },
  async (t) => {
    const { page, host } = await open(t, helloWith(snapshot(conversation(1, 2))));
    const base = { sessionId: REF.sessionId, agentId: REF.agentId };
    const agent = (event: AgentEvent) => host.event({ type: "agent", folderKey: REF.folderKey, event });
    await agent({ type: "turn-started", ...base });
    await agent({ type: "draft", ...base, draftId: "d1", blocks: [{ type: "text", text: "The answer so" }] });
    const message = page.getByRole("article", { name: "Assistant" }).filter({ hasText: "The answer so" });
    const text = message.locator(".markdown");
    await text.waitFor();
    // Held on purpose: the nodes a check that keeps them across frames would be looking at.
    const heldText = await text.elementHandle();
    const heldArticle = await message.elementHandle();
    const followed = untilElement(
      text,
      (el) =>
        !el.closest(".log-scroller")
          ? "detached"
          : el.textContent?.includes("far is final.")
            ? true
            : `shows ${JSON.stringify(el.textContent)}`,
      30_000,
    );
    await agent({ type: "session-event", ...base, event: assistantEv(3, "The answer so far is final.") });
    await agent({ type: "draft-cleared", ...base, draftId: "d1" });
    await agent({ type: "turn-ended", ...base, reason: "completed" });
    assert.equal(await followed, true);
    assert.equal(await heldText!.evaluate((el) => el.isConnected), false, "the streamed text's node was replaced");
    assert.equal(await heldText!.evaluate((el) => el.closest(".log-scroller")), null);
    // The row is kept (same key, same article): only the text inside it is rendered again.
    assert.equal(
      await heldArticle!.evaluate((el) => el.isConnected && el.getAttribute("aria-busy")),
      "false",
      "the final message took the streamed message's article",
    );
    assert.equal(
      await page.getByRole("article", { name: "Assistant" }).filter({ hasText: "far is final." }).count(),
      1,
    );
  },
);
