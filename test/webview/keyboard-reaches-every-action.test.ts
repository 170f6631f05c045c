import assert from "node:assert/strict";
import { test } from "node:test";
import type { Page } from "playwright-core";
import { conversation, ev, helloWith, REF, skipReason, snapshot, useChat } from "../support/webview/harness";

const open = useChat();

const focused = (page: Page) =>
  page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    return {
      name: el?.getAttribute("aria-label") ?? el?.textContent?.trim() ?? "",
      visible: !!el?.matches(":focus-visible"),
    };
  });

/** Tabs until an element named `name` has focus (bounded). */
async function tabTo(page: Page, name: string, key = "Tab"): Promise<{ name: string; visible: boolean }> {
  for (let i = 0; i < 80; i++) {
    await page.keyboard.press(key);
    const f = await focused(page);
    if (f.name === name) return f;
  }
  throw new Error(`${name} not reachable with ${key}`);
}

test("keyboard alone reaches Load earlier, Approve and Send, with visible focus", { skip: skipReason }, async (t) => {
  const events = [
    ...conversation(21, 6),
    ev(27, "assistant/message", {
      content: [{ type: "tool-call", id: "c1", name: "run_command", arguments: { command: "ls" } }],
    }),
  ];
  const snap = snapshot(events, {
    running: true,
    page: { events, firstSeq: 21, lastSeq: 27, hasOlder: true },
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
  const { page, host } = await open(t, (host) =>
    helloWith(snap)(host)
      .on("approve", () => ({ resolved: true }))
      .on("prompt", () => ({ steered: true }))
      .on("loadEarlier", () => ({ events: conversation(1, 20), firstSeq: 1, lastSeq: 20, hasOlder: false })),
  );
  await page.getByRole("button", { name: "Approve" }).waitFor();
  const load = await tabTo(page, "Load earlier");
  assert.ok(load.visible, "focus is visible on Load earlier");
  const approve = await tabTo(page, "Approve");
  assert.ok(approve.visible, "focus is visible on Approve");
  await page.keyboard.press("Enter");
  await host.waitFor("approve");
  assert.deepEqual(host.sent.find((s) => s.method === "approve")!.params.decision, { approved: true, scope: "once" });

  // Into the message box, type, and Enter sends (Shift+Enter is a new line).
  await tabTo(page, "Message");
  await page.keyboard.type("first line");
  await page.keyboard.press("Shift+Enter");
  await page.keyboard.type("second line");
  const send = await tabTo(page, "Send");
  assert.ok(send.visible, "focus is visible on Send");
  await page.keyboard.press("Enter");
  await host.waitFor("prompt");
  assert.equal(host.sent.find((s) => s.method === "prompt")!.params.text, "first line\nsecond line");

  await tabTo(page, "Message", "Shift+Tab");
  await page.keyboard.type("steer now");
  await page.keyboard.press("Enter");
  await host.waitFor("prompt", 2);
  assert.equal(host.sent.filter((s) => s.method === "prompt")[1]!.params.text, "steer now");

  await tabTo(page, "Load earlier", "Shift+Tab");
  await page.keyboard.press("Enter");
  await host.waitFor("loadEarlier");
});
