// The chat as a user meets it: dist/downcity.vsix in code-server, the provider given by
// DOWNCITY_* in code-server's environment (no key) and played by the loopback provider
// server, scripted request by request; the sidebar chat driven through its accessible
// names. A screenshot per step lands in test/.tmp/e2e/workbench-chat/.
import { strict as assert } from "node:assert";
import { cpSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { FrameLocator, Locator, Page } from "playwright-core";
import { PROJECT_ROOT, workbenchUrl } from "../support/workbench/code-server";
import { chatFrame, chatFrameElement } from "../support/workbench/workbench";
import { sessionPaths } from "../../core/storage";
import { startProviderServer, wire, type ProviderServer } from "../support/provider-server";
import { scriptedModel } from "../support/scripted-model";
import {
  gotoWorkbench,
  chainedSteps,
  extensionHostPid,
  fileMatches,
  missingVsCode,
  openWorkbench,
  outputDir,
  runPaletteCommand,
  type Workbench,
  installPackagedVsix,
} from "./helpers";
import { untilElement } from "./until-element";

const FIRST_PROMPT = "What does the inventory module do?";
const FIRST_ANSWER = "The inventory module tracks stock levels per SKU and restocks items.";
const EDIT_PROMPT = "Fix restock so it only changes the matching SKU.";
const OLD_LINE = "items.map((item) => ({ ...item, quantity: item.quantity + amount }))";
const NEW_LINE = "items.map((item) => (item.sku === sku ? { ...item, quantity: item.quantity + amount } : item))";
const EDIT_ANSWER = "Fixed: restock now changes only the item with that SKU.";
const HELD_PROMPT = "Now add a test for restock.";
const HELD_ANSWER = "I will add a test that checks other SKUs stay unchanged.";
const FOLLOW_UP = "Please go on.";
const FOLLOW_UP_ANSWER = "Here is the test for restock.";

/** A promise and its resolver: what the test releases a paused stream with. */
function gate(): { promise: Promise<void>; open(): void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

const sse = (script: Parameters<typeof wire.openaiChat>[0]) =>
  wire.openaiChat({ model: "gpt-4o", usage: { input: 120, output: 20 }, ...script });

test(
  "the chat in the real workbench: stream, edit, reload, crash recovery",
  { skip: missingVsCode(), timeout: 300_000 },
  async (t) => {
    const out = outputDir("workbench-chat");
    await installPackagedVsix(out);
    const workspace = join(out, "sample-workspace");
    cpSync(join(PROJECT_ROOT, "sample-workspace"), workspace, { recursive: true });
    const inventory = join(workspace, "src", "inventory.ts");

    const firstStream = gate();
    const model = scriptedModel([
      // 1: the answer streams in; the stream pauses after "The inventory mo" until released.
      () => ({ sse: sse({ text: FIRST_ANSWER }), pauseAt: { frame: 5, until: firstStream.promise } }),
      // 2–3: an edit_file call, then the answer once the tool result came back.
      () => ({
        sse: sse({
          toolCalls: [
            {
              id: "call_edit",
              name: "edit_file",
              arguments: { path: "src/inventory.ts", edits: [{ oldText: OLD_LINE, newText: NEW_LINE }] },
            },
          ],
        }),
      }),
      () => ({ sse: sse({ text: EDIT_ANSWER }) }),
      // 4: held after "I will add a test th" until the client goes away (the host is killed).
      () => ({ sse: sse({ text: HELD_ANSWER }), stallAfter: 6 }),
      // 5: the follow-up after the recovery.
      () => ({ sse: sse({ text: FOLLOW_UP_ANSWER }) }),
    ]);
    const provider: ProviderServer = await startProviderServer(model.handler);
    t.after(() => provider.close());

    const workbench = await openWorkbench(out, {
      env: { DOWNCITY_PROTOCOL: "openai-chat", DOWNCITY_BASE_URL: provider.baseURL, DOWNCITY_MODEL: "gpt-4o" },
    });
    t.after(() => workbench.close());
    const { page } = workbench;
    // tsx compiles with keepNames: functions shipped to a frame (the webview's too) call its `__name` helper.
    await workbench.browser.addInitScript({ content: "window.__name = (f) => f;" });
    const chat = () => chatFrame(page);
    // Each step builds on the one before: after a failure the rest are skipped, not timed out.
    const step = chainedSteps(t, workbench);
    let sessionId = "";

    await step("01 a prompt sent from the chat streams its answer in", async () => {
      await gotoWorkbench(page, workbenchUrl(workbench.server, workspace));
      await page.locator(".monaco-workbench .part.activitybar").waitFor({ timeout: 60_000 });
      await page
        .locator('.part.activitybar .action-item a.action-label[aria-label^="Downcity"]')
        .click({ timeout: 30_000 });
      await chat().getByRole("button", { name: "New Session", exact: true }).click({ timeout: 30_000 });
      await send(chat(), FIRST_PROMPT);
      const answer = assistantMessages(chat()).last();
      // Part of the text while the server holds the rest: the message is still streaming.
      await answer.filter({ hasText: "The inventory mo" }).waitFor({ timeout: 30_000 });
      assert.equal(await answer.getAttribute("aria-busy"), "true");
      assert.doesNotMatch(await answer.innerText(), /per SKU/);
      await workbench.screenshot("01a-streaming");
      firstStream.open();
      await answer
        .and(chat().locator('[aria-busy="false"]'))
        .filter({ hasText: FIRST_ANSWER })
        .waitFor({ timeout: 30_000 });
      assert.equal((await answer.locator(".markdown").innerText()).trim(), FIRST_ANSWER);
      const body = await model.request(0, "the first prompt");
      assert.match(JSON.stringify(body.messages), new RegExp(FIRST_PROMPT.replace("?", "\\?")));
      sessionId = onlySession(workspace);
    });

    await step("02 the session is in the Sessions tree with its title", async () => {
      await sessionRow(page, FIRST_PROMPT).waitFor({ timeout: 30_000 });
    });

    await step("03 an edit is proposed in the diff editor, accepted, and written to disk", async () => {
      await send(chat(), EDIT_PROMPT);
      await page
        .locator(".tabs-container .tab", { hasText: "Proposed by Downcity" })
        .first()
        .waitFor({ timeout: 30_000 });
      // Accept in the diff editor's title bar (the review has no toast: see approve-ui.test.ts).
      await page
        .locator('.editor-actions .action-label[aria-label^="Accept"]')
        .filter({ visible: true })
        .first()
        .click({ timeout: 30_000 });
      await fileMatches(inventory, new RegExp(escape(NEW_LINE)), 30_000);
      const body = await model.request(2, "the request after the edit");
      const result = body.messages.find(
        (m: { role: string; tool_call_id?: string }) => m.role === "tool" && m.tool_call_id === "call_edit",
      );
      assert.ok(result, `no tool result for call_edit in ${JSON.stringify(body.messages)}`);
      assert.doesNotMatch(JSON.stringify(result.content), /error|refused|denied/i);
      await assistantMessages(chat()).filter({ hasText: EDIT_ANSWER }).waitFor({ timeout: 30_000 });
      await chat().getByRole("group", { name: "Tool edit_file: done" }).waitFor({ timeout: 30_000 });
    });

    await step("04 after a window reload the session and its chat are restored", async () => {
      await page.reload();
      await page.locator(".monaco-workbench .part.activitybar").waitFor({ timeout: 60_000 });
      await openDowncity(page);
      await sessionRow(page, FIRST_PROMPT).waitFor({ timeout: 30_000 });
      await assistantMessages(chat()).filter({ hasText: FIRST_ANSWER }).waitFor({ timeout: 30_000 });
      await assistantMessages(chat()).filter({ hasText: EDIT_ANSWER }).waitFor({ timeout: 30_000 });
    });

    await step("05 a run killed mid-stream is recovered as interrupted and continues", async () => {
      await send(chat(), HELD_PROMPT);
      await model.request(3, "the held prompt");
      const partial = "I will add a test th";
      await assistantMessages(chat()).filter({ hasText: partial }).waitFor({ timeout: 30_000 });
      // The draft on disk is what a crash leaves behind.
      await fileMatches(sessionPaths(workspace, "code", sessionId).draft, new RegExp(partial), 30_000);
      const pid = extensionHostPid(workbench.server.process.pid!);
      process.kill(pid, "SIGKILL");
      await workbench.screenshot("05a-extension-host-killed");
      await page.reload();
      await page.locator(".monaco-workbench .part.activitybar").waitFor({ timeout: 60_000 });
      await openDowncity(page);
      const recovered = assistantMessages(chat())
        .filter({ hasText: partial })
        .filter({ has: chat().locator(".badge", { hasText: "interrupted" }) });
      await recovered.waitFor({ timeout: 30_000 });
      await send(chat(), FOLLOW_UP);
      const body = await model.request(4, "the follow-up");
      const assistants = body.messages
        .filter((m: { role: string }) => m.role === "assistant")
        .map((m: { content: unknown }) => JSON.stringify(m.content));
      assert.ok(
        assistants.some((c: string) => c.includes(partial)),
        `the follow-up does not carry the partial answer: ${assistants.join(" | ")}`,
      );
      const answer = assistantMessages(chat()).filter({ hasText: FOLLOW_UP_ANSWER });
      await answer.waitFor({ timeout: 30_000 });
      const inView = await scrolledIntoView(answer);
      assert.equal(inView, true, `the follow-up's answer is not on screen (${inView}): the log did not follow it`);
      // The turn ended: the tree stops showing the session as running.
      await sessionRow(page, FIRST_PROMPT)
        .and(page.locator(":not(:has(.codicon-loading))"))
        .waitFor({ timeout: 30_000 });
    });
  },
);

/** Shows the Downcity chat view (the activity bar item would toggle a sidebar restored open). */
async function openDowncity(page: Page): Promise<void> {
  // The palette lists only the commands known when it opens: wait until the extension is
  // up (its model item in the status bar) so the view's focus command is among them.
  await page.locator(".part.statusbar .statusbar-item", { hasText: "gpt-4o" }).first().waitFor({ timeout: 60_000 });
  await runPaletteCommand(page, "Focus on Chat View", 30_000);
  await chatFrameElement(page).waitFor({ timeout: 30_000 });
}

async function send(chat: FrameLocator, text: string): Promise<void> {
  const box = chat.getByRole("textbox", { name: "Message", exact: true });
  await box.fill(text, { timeout: 30_000 });
  await chat.getByRole("button", { name: "Send", exact: true }).click({ timeout: 10_000 });
}

/** Whether the message's text ends up inside the log's visible area within 15 s (re-found every frame: see untilElement). */
function scrolledIntoView(message: Locator): Promise<string | true> {
  return untilElement(
    message.locator(".markdown"),
    (el) => {
      const scroller = el.closest(".log-scroller");
      if (!scroller) return "the text's node is not in the log (replaced)";
      const log = scroller.getBoundingClientRect();
      const text = el.getBoundingClientRect();
      return text.top >= log.top - 4 && text.bottom <= log.bottom + 4
        ? true
        : `text ${text.top}-${text.bottom}, log ${log.top}-${log.bottom}`;
    },
    15_000,
  );
}

function assistantMessages(chat: FrameLocator) {
  return chat.locator('article.message.assistant[aria-label="Assistant"]');
}

function sessionRow(page: Workbench["page"], title: string) {
  return page.locator('.monaco-list-row[role="treeitem"]', { hasText: title }).first();
}

function onlySession(workspace: string): string {
  const dir = join(workspace, ".downcity", "agents", "code", "sessions");
  const ids = readdirSync(dir);
  assert.equal(ids.length, 1, `expected one session in ${dir}: ${ids.join(", ")}`);
  return ids[0]!;
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
