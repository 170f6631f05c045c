import assert from "node:assert/strict";
import { test } from "node:test";
import {
  assistantEv,
  conversation,
  ev,
  helloWith,
  REF,
  skipReason,
  snapshot,
  useChat,
  violations,
} from "../support/webview/harness";

const open = useChat();

const FINAL = [
  "Here is the plan.",
  "",
  "1. Read `src/app.ts`",
  "2. Change the handler",
  "",
  "```ts",
  "export function add(a: number, b: number): number {",
  "  return a + b;",
  "}",
  "```",
  "",
  "Done — the **tests** pass.",
].join("\n");

test(
  "streaming renders incrementally, one row per frame, and ends in exactly the final message",
  { skip: skipReason },
  async (t) => {
    const events = conversation(1, 6);
    const { page, host } = await open(t, helloWith(snapshot(events)));
    await page.getByRole("log").getByText("Question 5").waitFor();
    const base = { sessionId: REF.sessionId, agentId: REF.agentId };
    await host.event({ type: "agent", folderKey: REF.folderKey, event: { type: "turn-started", ...base } });
    await page.getByRole("button", { name: "Stop" }).waitFor();

    const rendersBefore = await page.evaluate(() => (window as any).__downcityStats.rowRenders as number);
    let sawOpenFencePlain = false;
    let sawPartial = false;
    // Deltas in chunks of 7 characters, two animation frames apart every few deltas.
    for (let end = 7; end < FINAL.length + 7; end += 7) {
      const text = FINAL.slice(0, Math.min(end, FINAL.length));
      await host.event({
        type: "agent",
        folderKey: REF.folderKey,
        event: { type: "draft", ...base, draftId: "d1", blocks: [{ type: "text", text }] },
      });
      if (end % 35 === 0) {
        await host.frames();
        const state = await page.evaluate(() => {
          const streaming = document.querySelector(".message.assistant.streaming");
          return {
            text: streaming?.textContent ?? "",
            hljs: !!streaming?.querySelector(".hljs-keyword"),
            code: !!streaming?.querySelector("pre"),
          };
        });
        if (state.text.length > 0 && state.text.length < FINAL.length) sawPartial = true;
        // While the fence is open its code is plain text (no highlight spans).
        if (text.includes("```ts") && !text.slice(text.indexOf("```ts") + 5).includes("```") && state.code) {
          assert.equal(state.hljs, false, "an open code fence stays plain");
          sawOpenFencePlain = true;
        }
      }
    }
    await host.frames();
    assert.ok(sawPartial, "the message grew while streaming");
    assert.ok(sawOpenFencePlain, "an open fence was seen rendered plain");
    const rendersDuring =
      (await page.evaluate(() => (window as any).__downcityStats.rowRenders as number)) - rendersBefore;
    const frames = Math.ceil(FINAL.length / 7);
    // Only the streamed row re-renders: at most one render per delta (coalescing makes it fewer).
    assert.ok(rendersDuring <= frames + 2, `row renders while streaming: ${rendersDuring} for ${frames} deltas`);

    const final = assistantEv(7, FINAL);
    await host.event({
      type: "agent",
      folderKey: REF.folderKey,
      event: { type: "session-event", ...base, event: final },
    });
    await host.event({
      type: "agent",
      folderKey: REF.folderKey,
      event: { type: "draft-cleared", ...base, draftId: "d1" },
    });
    await host.event({
      type: "agent",
      folderKey: REF.folderKey,
      event: { type: "turn-ended", ...base, reason: "completed" },
    });
    await page.getByRole("button", { name: "Stop" }).waitFor({ state: "detached" });
    await host.frames();

    const result = await page.evaluate(() => {
      const messages = Array.from(document.querySelectorAll(".message.assistant"));
      const last = messages[messages.length - 1]!;
      return {
        streaming: document.querySelectorAll(".message.assistant.streaming").length,
        html: last.querySelector(".markdown")!.innerHTML,
        text: last.querySelector(".markdown")!.textContent,
        highlighted: !!last.querySelector(".hljs-keyword"),
        copy: !!last.querySelector('button[aria-label="Copy code"]'),
      };
    });
    assert.equal(result.streaming, 0);
    assert.ok(result.highlighted, "the closed fence is highlighted");
    assert.ok(result.copy, "code blocks have a copy button");
    assert.match(result.text!, /Here is the plan\./);
    assert.match(result.text!, /return a \+ b;/);
    assert.match(result.text!, /Done — the tests pass\./);

    // Exactly the final message: the same HTML a fresh view renders from history.
    const fresh = await open(t, helloWith(snapshot([...events, ev(7, "assistant/message", final.data as object)])));
    await fresh.page.getByText("Done — the").waitFor();
    const freshHtml = await fresh.page.evaluate(() => {
      const messages = Array.from(document.querySelectorAll(".message.assistant"));
      return messages[messages.length - 1]!.querySelector(".markdown")!.innerHTML;
    });
    // Lit's marker comments carry a per-page random id; the rendered markup must match.
    const strip = (h: string) => h.replace(/<!--\?lit\$\d+\$-->/g, "");
    assert.equal(strip(result.html), strip(freshHtml));
    assert.deepEqual(await violations(page), []);
  },
);
