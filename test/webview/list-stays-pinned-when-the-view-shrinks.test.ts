import assert from "node:assert/strict";
import { test } from "node:test";
import type { Page } from "playwright-core";
import { assistantEv, conversation, helloWith, openChat, REF, skipReason, snapshot, useBrowser, userEv } from "./harness";

const browserOf = useBrowser();

/** Pixels between the scroller's bottom edge and the end of its content (0 = pinned). */
const gapBelow = (page: Page) =>
  page.evaluate(() => {
    const s = document.querySelector<HTMLElement>(".log-scroller")!;
    return Math.round(s.scrollHeight - s.scrollTop - s.clientHeight);
  });

/** Waits (bounded, frame by frame) until the list is pinned to its end. */
async function pinned(page: Page, frames = 60): Promise<number> {
  let gap = Infinity;
  for (let i = 0; i < frames && gap > 2; i++) {
    await page.evaluate(() => new Promise<void>((r) => requestAnimationFrame(() => r())));
    gap = await gapBelow(page);
  }
  return gap;
}

// A reload of VS Code, a composer that grows (the context meter appears) or a resized
// panel shrinks the log: the reader at the bottom stays at the bottom, and what is
// appended next shows (seen in code-server: the follow-up answered off screen).
test("the list stays pinned to the end when the view shrinks, and follows what is appended", { skip: skipReason }, async () => {
  const chat = await openChat(browserOf(), helloWith(snapshot(conversation(1, 12))));
  const { page, host } = chat;
  try {
    await page.getByRole("log").getByText("Answer 12.").waitFor({ timeout: 10_000 });
    assert.ok((await pinned(page)) <= 2, "pinned after opening");
    await page.setViewportSize({ width: 420, height: 420 });
    assert.ok((await pinned(page)) <= 2, `pinned after the view shrank (gap ${await gapBelow(page)} px)`);
    const base = { sessionId: REF.sessionId, agentId: REF.agentId };
    await host.event({ type: "agent", folderKey: REF.folderKey, event: { type: "session-event", ...base, event: userEv(13, "One more question.") } });
    await host.event({ type: "agent", folderKey: REF.folderKey, event: { type: "session-event", ...base, event: assistantEv(14, "The last answer.") } });
    await page.getByRole("log").getByText("The last answer.").waitFor({ timeout: 10_000 });
    assert.ok((await pinned(page)) <= 2, `follows the appended answer (gap ${await gapBelow(page)} px)`);
  } finally {
    await chat.close();
  }
});
