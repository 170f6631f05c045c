// Issue 19 item 2 in the real workbench: one decision per edit approval, answered from the
// chat card or the diff editor's title bar, whichever is first, and Undo after an applied
// edit. dist/downcity.vsix in code-server, the model played by the loopback provider
// server (an edit_file call, then an answer, per prompt). A screenshot per step lands in
// test/.tmp/e2e/approve-ui/.
import { strict as assert } from "node:assert";
import { cpSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { FrameLocator, Page } from "playwright-core";
import { PROJECT_ROOT, workbenchUrl } from "../support/workbench/code-server";
import { startProviderServer, wire } from "../support/provider-server";
import { scriptedModel } from "../support/scripted-model";
import {
  gotoWorkbench,
  fileMatches,
  missingVsCode,
  openChatWorkbench,
  outputDir,
  runPaletteCommandUntil,
  toolResult,
  installPackagedVsix,
} from "./helpers";

const OLD_LINE = "items.map((item) => ({ ...item, quantity: item.quantity + amount }))";
const NEW_LINE = "items.map((item) => (item.sku === sku ? { ...item, quantity: item.quantity + amount } : item))";
const DOC_OLD = "/** Items whose quantity is at or below the threshold. */";
const DOC_NEW = "/** Items at or below the threshold, in their order. */";

const sse = (script: Parameters<typeof wire.openaiChat>[0]) =>
  wire.openaiChat({ model: "gpt-4o", usage: { input: 120, output: 20 }, ...script });
const editCall = (id: string, oldText: string, newText: string) => () => ({
  sse: sse({
    toolCalls: [{ id, name: "edit_file", arguments: { path: "src/inventory.ts", edits: [{ oldText, newText }] } }],
  }),
});
const answer = (text: string) => () => ({ sse: sse({ text }) });

test(
  "approvals in the real workbench: the card, the diff's title bar, Deny, no toast to depend on, Stop, Undo",
  { skip: missingVsCode(), timeout: 600_000 },
  async (t) => {
    const out = outputDir("approve-ui");
    await installPackagedVsix(out);
    const workspace = join(out, "sample-workspace");
    cpSync(join(PROJECT_ROOT, "sample-workspace"), workspace, { recursive: true });
    const inventory = join(workspace, "src", "inventory.ts");
    const original = readFileSync(inventory, "utf8");

    const model = scriptedModel([
      editCall("call_card", OLD_LINE, NEW_LINE), // (a) approved on the card
      answer("Fixed restock."),
      editCall("call_title", OLD_LINE, NEW_LINE), // (b) accepted in the title bar, after (e)'s Undo
      answer("Fixed restock again."),
      editCall("call_deny", DOC_OLD, DOC_NEW), // (c) denied on the card
      answer("Left the comment as it is."),
      editCall("call_late", DOC_OLD, DOC_NEW), // (d) the diff tab closed; approved on the card later
      answer("Reworded the comment."),
      editCall("call_stop", DOC_NEW, DOC_OLD), // Stop while it waits
    ]);
    const provider = await startProviderServer(model.handler);
    t.after(() => provider.close());
    const { workbench, page, chat, step } = await openChatWorkbench(t, out, provider.baseURL);

    await step(
      "01 an edit waits on the card and in the diff editor, with Accept / Reject in its title bar",
      async () => {
        await gotoWorkbench(page, workbenchUrl(workbench.server, workspace));
        await page.locator(".monaco-workbench .part.activitybar").waitFor({ timeout: 60_000 });
        await page
          .locator('.part.activitybar .action-item a.action-label[aria-label^="Downcity"]')
          .click({ timeout: 60_000 });
        await chat().getByRole("button", { name: "New Session", exact: true }).click({ timeout: 60_000 });
        await send(chat(), "Fix restock so it only changes the matching SKU.");
        await activeReview(page).waitFor({ timeout: 60_000 });
        await titleBarAction(page, "Accept").waitFor({ timeout: 60_000 });
        await titleBarAction(page, "Reject").waitFor({ timeout: 60_000 });
        await card(chat(), "waiting for approval")
          .getByRole("button", { name: "Approve", exact: true })
          .waitFor({ timeout: 60_000 });
        assert.equal(await editToasts(page).count(), 0, "no toast carries the decision");
      },
    );

    await step(
      "02 (a) Approve on the card: written to disk, the diff tab closes, the card says approved, the run goes on",
      async () => {
        const clicked = performance.now();
        await card(chat(), "waiting for approval")
          .getByRole("button", { name: "Approve", exact: true })
          .click({ timeout: 60_000 });
        await fileMatches(inventory, new RegExp(escape(NEW_LINE)), 60_000);
        const written = performance.now();
        await reviewTab(page).waitFor({ state: "detached", timeout: 60_000 });
        figure("card Approve click → file on disk", written - clicked);
        const done = card(chat(), "done");
        await done.locator(".tool-decision", { hasText: /^approved$/ }).waitFor({ timeout: 60_000 });
        assert.doesNotMatch(
          toolResult(await model.request(1, "the answer after the approved edit"), "call_card"),
          /denied|refused|nothing was written/i,
        );
        await assistant(chat(), "Fixed restock.").waitFor({ timeout: 60_000 });
      },
    );

    await step("03 (e) Undo on the card restores the file on disk, and the card says so", async () => {
      const clicked = performance.now();
      await card(chat(), "done").getByRole("button", { name: "Undo", exact: true }).click({ timeout: 60_000 });
      await fileMatches(inventory, new RegExp(`^${escape(original)}$`), 60_000);
      figure("card Undo click → file restored on disk", performance.now() - clicked);
      await card(chat(), "done").locator(".tool-undone").waitFor({ timeout: 60_000 });
      assert.equal(
        await card(chat(), "done").getByRole("button", { name: "Undo", exact: true }).count(),
        0,
        "one step: no second Undo",
      );
    });

    await step("04 (b) Accept in the diff editor's title bar: written, and the card updates at once", async () => {
      await send(chat(), "Fix restock again.");
      await activeReview(page).waitFor({ timeout: 60_000 });
      const waiting = card(chat(), "waiting for approval");
      await waiting.waitFor({ timeout: 60_000 });
      const clicked = performance.now();
      await titleBarAction(page, "Accept").click({ timeout: 60_000 });
      await fileMatches(inventory, new RegExp(escape(NEW_LINE)), 60_000);
      figure("title-bar Accept click → file on disk", performance.now() - clicked);
      await reviewTab(page).waitFor({ state: "detached", timeout: 60_000 });
      await waiting
        .getByRole("button", { name: "Approve", exact: true })
        .waitFor({ state: "detached", timeout: 60_000 });
      await assistant(chat(), "Fixed restock again.").waitFor({ timeout: 60_000 });
      assert.equal(
        await chat()
          .locator(".tool-decision", { hasText: /^approved$/ })
          .count(),
        2,
      );
    });

    await step("05 (c) Deny on the card: the file is unchanged, the card says denied, the diff closes", async () => {
      const before = readFileSync(inventory, "utf8");
      await send(chat(), "Reword the lowStock comment.");
      await reviewTab(page).waitFor({ timeout: 60_000 });
      await card(chat(), "waiting for approval")
        .getByRole("button", { name: "Deny", exact: true })
        .click({ timeout: 60_000 });
      await card(chat(), "refused")
        .locator(".tool-decision", { hasText: /^denied/ })
        .waitFor({ timeout: 60_000 });
      await reviewTab(page).waitFor({ state: "detached", timeout: 60_000 });
      assert.match(toolResult(await model.request(5, "the answer after the denial"), "call_deny"), /denied/);
      await assistant(chat(), "Left the comment as it is.").waitFor({ timeout: 60_000 });
      assert.equal(readFileSync(inventory, "utf8"), before);
    });

    await step(
      "06 (d) no toast to outlive: with the diff tab closed by the user, the card still approves",
      async () => {
        await send(chat(), "Reword the lowStock comment after all.");
        await reviewTab(page).waitFor({ timeout: 60_000 });
        // The user closes the review's tab without answering; the decision stays open on the card.
        await reviewTab(page).locator(".tab-actions .action-label").click({ timeout: 60_000 });
        await reviewTab(page).waitFor({ state: "detached", timeout: 60_000 });
        assert.equal(await editToasts(page).count(), 0);
        await openNotificationCentre(page);
        assert.equal(
          await page.locator(".notifications-center .notification-list-item", { hasText: "src/inventory.ts" }).count(),
          0,
          "nothing in the notification centre either",
        );
        await workbench.screenshot("06a-diff-closed-no-toast");
        // The card's Open diff brings the review back, title-bar actions and all.
        await card(chat(), "waiting for approval")
          .getByRole("button", { name: "Open diff", exact: true })
          .click({ timeout: 60_000 });
        await activeReview(page).waitFor({ timeout: 60_000 });
        await titleBarAction(page, "Accept").waitFor({ timeout: 60_000 });
        await card(chat(), "waiting for approval")
          .getByRole("button", { name: "Approve", exact: true })
          .click({ timeout: 60_000 });
        // The decision is logged before any tab is closed: a run once waited on the workbench here, none logged.
        await fileMatches(
          sessionLog(workspace),
          /"type":"tool\/approval","data":\{"toolCallId":"call_late","decision":"approved"/,
          30_000,
        );
        await fileMatches(inventory, new RegExp(escape(DOC_NEW)), 60_000);
        await assistant(chat(), "Reworded the comment.").waitFor({ timeout: 60_000 });
      },
    );

    await step("07 Stop while an edit waits: cancelled on the card, the diff closes, nothing is written", async () => {
      const before = readFileSync(inventory, "utf8");
      await send(chat(), "Put the old comment back.");
      await reviewTab(page).waitFor({ timeout: 60_000 });
      await card(chat(), "waiting for approval").waitFor({ timeout: 60_000 });
      await chat().getByRole("button", { name: "Stop", exact: true }).click({ timeout: 60_000 });
      await reviewTab(page).waitFor({ state: "detached", timeout: 60_000 });
      await card(chat(), "cancelled").waitFor({ timeout: 60_000 });
      assert.equal(await titleBarAction(page, "Accept").count(), 0);
      assert.equal(readFileSync(inventory, "utf8"), before);
    });

    await step("08 a reloaded window shows the same outcomes, the undo included", async () => {
      await page.reload();
      await page.locator(".monaco-workbench .part.activitybar").waitFor({ timeout: 60_000 });
      await page.locator(".part.statusbar .statusbar-item", { hasText: "gpt-4o" }).first().waitFor({ timeout: 60_000 });
      // The end of the log first: the stopped call, cancelled as it was live.
      await card(chat(), "cancelled")
        .locator(".tool-decision", { hasText: /^cancelled$/ })
        .waitFor({ timeout: 60_000 });
      // The list is virtual: the first card is drawn once scrolled to.
      await chat()
        .locator(".log-scroller")
        .evaluate((el) => el.scrollTo({ top: 0 }));
      const undone = chat()
        .getByRole("group", { name: "Tool edit_file: done" })
        .filter({ has: chat().locator(".tool-undone") });
      await undone.waitFor({ timeout: 60_000 });
      assert.match(await undone.innerText(), /approved[\s\S]*Undone: src\/inventory.ts is back/);
      assert.equal(await undone.getByRole("button", { name: "Undo", exact: true }).count(), 0);
    });
  },
);

async function send(chat: FrameLocator, text: string): Promise<void> {
  await chat.getByRole("textbox", { name: "Message", exact: true }).fill(text, { timeout: 60_000 });
  await chat.getByRole("button", { name: "Send", exact: true }).click({ timeout: 60_000 });
}

/** The last edit_file card with this status. */
const card = (chat: FrameLocator, status: string) =>
  chat.getByRole("group", { name: `Tool edit_file: ${status}`, exact: true }).last();
const assistant = (chat: FrameLocator, text: string) =>
  chat.locator('article.message.assistant[aria-label="Assistant"]', { hasText: text }).last();
const reviewTab = (page: Page) => page.locator(".tabs-container .tab", { hasText: "Proposed by Downcity" }).first();
/** The review's tab as the active editor: its title bar is the one the Accept / Reject actions are on. */
const activeReview = (page: Page) =>
  page.locator(".tabs-container .tab.active", { hasText: "Proposed by Downcity" }).first();
/** A title-bar action of the active editor group (the diff editor). */
const titleBarAction = (page: Page, title: string) =>
  page.locator(`.editor-actions .action-label[aria-label^="${title}"]`).filter({ visible: true }).first();
const editToasts = (page: Page) =>
  page.locator(".notifications-toasts .notification-toast", { hasText: "src/inventory.ts" });

/** The log of the workspace's one session (every step sends into the same one). */
function sessionLog(workspace: string): string {
  const dir = join(workspace, ".downcity", "agents", "code", "sessions");
  const sessions = readdirSync(dir).filter((name) => name.startsWith("session-"));
  assert.equal(sessions.length, 1, `one session in ${dir}`);
  return join(dir, sessions[0]!, "messages", "active.jsonl");
}

async function openNotificationCentre(page: Page): Promise<void> {
  await runPaletteCommandUntil(page, "Notifications: Show Notifications", page.locator(".notifications-center"));
}

/** A measured figure for BENCHMARKS.md, printed (never asserted: the machine is shared). */
function figure(what: string, ms: number): void {
  console.log(`figure: ${what}: ${ms.toFixed(0)} ms`);
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
