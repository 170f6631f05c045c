// Issue 24 in the real workbench: three turns each edit files (edits auto-approved by the
// workspace's settings); "Restore to Here" on the second turn's answer shows the preview
// (every file, its diff now ↔ checkpoint), Confirm Restore puts the files back as they
// were at the end of that turn, and the notification's "Undo Restore" returns them.
// dist/downcity.vsix in code-server, the model played by the loopback provider server.
// A screenshot per step lands in test/.tmp/e2e/restore-ui/.
import { strict as assert } from "node:assert";
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { FrameLocator, Page } from "playwright-core";
import { PROJECT_ROOT, workbenchUrl } from "../support/workbench/code-server";
import { wire, startProviderServer } from "../support/provider-server";
import { scriptedModel } from "../support/scripted-model";
import {
  gotoWorkbench,
  fileMatches,
  missingVsCode,
  openChatWorkbench,
  outputDir,
  installPackagedVsix,
} from "./helpers";
import { untilElement } from "./until-element";

const sse = (script: Parameters<typeof wire.openaiChat>[0]) => () => ({
  sse: wire.openaiChat({ model: "gpt-4o", usage: { input: 120, output: 20 }, ...script }),
});
const write = (id: string, path: string, content: string) =>
  sse({ toolCalls: [{ id, name: "write_file", arguments: { path, content } }] });
const edit = (id: string, path: string, oldText: string, newText: string) =>
  sse({ toolCalls: [{ id, name: "edit_file", arguments: { path, edits: [{ oldText, newText }] } }] });

test(
  "Restore to Here on the second of three edited turns: preview, diff, confirm, files as at that turn, Undo Restore puts them back",
  { skip: missingVsCode(), timeout: 600_000 },
  async (t) => {
    const out = outputDir("restore-ui");
    await installPackagedVsix(out);
    const workspace = join(out, "sample-workspace");
    cpSync(join(PROJECT_ROOT, "sample-workspace"), workspace, { recursive: true });
    mkdirSync(join(workspace, ".vscode"), { recursive: true });
    writeFileSync(join(workspace, ".vscode", "settings.json"), JSON.stringify({ "downcity.approval.edits": "auto" }));
    const notes = join(workspace, "notes.txt");
    const plan = join(workspace, "plan.txt");

    const model = scriptedModel([
      write("call_1", "notes.txt", "turn one\n"),
      sse({ text: "Wrote the notes." }),
      edit("call_2", "notes.txt", "turn one", "turn two"),
      write("call_3", "plan.txt", "plan of turn two\n"),
      sse({ text: "Second turn done." }),
      edit("call_4", "notes.txt", "turn two", "turn three"),
      write("call_5", "plan.txt", "plan of turn three\n"),
      sse({ text: "Third turn done." }),
      sse({ text: "Answered the edited message." }),
    ]);
    const provider = await startProviderServer(model.handler);
    t.after(() => provider.close());
    const { workbench, page, chat, step } = await openChatWorkbench(t, out, provider.baseURL);

    await step("01 three turns edit notes.txt and plan.txt", async () => {
      await gotoWorkbench(page, workbenchUrl(workbench.server, workspace));
      await page.locator(".monaco-workbench .part.activitybar").waitFor({ timeout: 60_000 });
      await page
        .locator('.part.activitybar .action-item a.action-label[aria-label^="Downcity"]')
        .click({ timeout: 60_000 });
      await chat().getByRole("button", { name: "New Session", exact: true }).click({ timeout: 60_000 });
      for (const [prompt, answer] of [
        ["Write the notes.", "Wrote the notes."],
        ["Second turn.", "Second turn done."],
        ["Third turn.", "Third turn done."],
      ] as const) {
        await send(chat(), prompt);
        await assistant(chat(), answer).waitFor({ timeout: 60_000 });
      }
      assert.equal(readFileSync(notes, "utf8"), "turn three\n");
      assert.equal(readFileSync(plan, "utf8"), "plan of turn three\n");
    });

    await step("02 Restore to Here on the second turn's answer previews both files, nothing written yet", async () => {
      const answer = assistant(chat(), "Second turn done.");
      await answer.hover();
      await answer.getByRole("button", { name: "Restore to Here", exact: true }).click({ timeout: 30_000 });
      await previewRow(page, "notes.txt").waitFor({ timeout: 60_000 });
      await previewRow(page, "plan.txt").waitFor({ timeout: 60_000 });
      assert.match(await previewRow(page, "notes.txt").innerText(), /will be restored/);
      assert.equal(readFileSync(notes, "utf8"), "turn three\n", "the preview writes nothing");
    });

    await step("03 a file's Open Diff shows now ↔ checkpoint in VS Code's diff editor, the preview stays", async () => {
      const row = previewRow(page, "notes.txt");
      await row.hover();
      await row.locator('.action-label[aria-label="Open Diff"]').click({ timeout: 30_000 });
      const tab = page.locator(".tabs-container .tab", { hasText: "notes.txt (now ↔ checkpoint)" }).first();
      await tab.waitFor({ timeout: 60_000 });
      await page.locator(".monaco-diff-editor").first().waitFor({ timeout: 60_000 });
      await page.locator(".monaco-diff-editor .modified", { hasText: "turn two" }).first().waitFor({ timeout: 60_000 });
      await previewRow(page, "plan.txt").waitFor({ timeout: 30_000 });
    });

    await step("04 Confirm Restore: the files are as they were at the end of the second turn", async () => {
      await page
        .locator(".quick-input-list .monaco-list-row", { hasText: "Confirm Restore" })
        .first()
        .click({ timeout: 30_000 });
      await fileMatches(notes, /^turn two\n$/, 60_000);
      await fileMatches(plan, /^plan of turn two\n$/, 60_000);
      await page
        .locator(".quick-input-widget")
        .filter({ visible: true })
        .waitFor({ state: "detached", timeout: 30_000 })
        .catch(() => undefined);
      await toast(page, "restored 2 files").waitFor({ timeout: 60_000 });
    });

    await step("05 Undo Restore from the notification puts them back", async () => {
      await toast(page, "restored 2 files")
        .getByRole("button", { name: "Undo Restore", exact: true })
        .click({ timeout: 30_000 });
      await fileMatches(notes, /^turn three\n$/, 60_000);
      await fileMatches(plan, /^plan of turn three\n$/, 60_000);
      await toast(page, "Undo Restore put back 2 files").waitFor({ timeout: 60_000 });
      // The log says so: restore, its undo, both ended.
      const sessions = join(workspace, ".downcity", "agents", "code", "sessions");
      assert.ok(existsSync(sessions));
    });

    await step(
      "06 Edit and Resend on the second message: the same preview (no scope: always a fork), files as when it was sent",
      async () => {
        const message = chat().locator('article.message.user[aria-label="You"]', { hasText: "Second turn." }).first();
        await message.hover();
        await message.getByRole("button", { name: "Edit and Resend", exact: true }).click({ timeout: 30_000 });
        await previewRow(page, "notes.txt").waitFor({ timeout: 60_000 });
        await page
          .locator(".quick-input-widget .quick-input-title", { hasText: "Edit and Resend" })
          .first()
          .waitFor({ timeout: 30_000 });
        assert.equal(
          await page
            .locator(".quick-input-list .monaco-list-row", { hasText: "Scope:" })
            .filter({ visible: true })
            .count(),
          0,
          "the conversation always continues in a fork",
        );
        assert.match(await previewRow(page, "plan.txt").innerText(), /will be deleted/);
        await page
          .locator(".quick-input-list .monaco-list-row", { hasText: "Confirm Restore" })
          .first()
          .click({ timeout: 30_000 });
        await fileMatches(notes, /^turn one\n$/, 60_000);
        await waitGone(plan);
        // The fork is shown with the message's text in the composer; the original stays in the tree beside it.
        const box = chat().getByRole("textbox", { name: "Message", exact: true });
        // The composer is filled once the fork is shown: checked frame by frame (bounded), the box found
        // again each time (showing the fork re-renders the webview, which may replace it).
        const filled = await untilElement(
          box,
          (el: HTMLTextAreaElement) => el.value === "Second turn." || `the composer holds ${JSON.stringify(el.value)}`,
          30_000,
        );
        assert.equal(filled, true, `the message's text is not in the fork's composer: ${filled}`);
        await page
          .locator(".monaco-list-row", { hasText: "Fork of Write the notes." })
          .first()
          .waitFor({ timeout: 60_000 });
        await page
          .locator(".monaco-list-row", { hasText: /^Write the notes\./ })
          .first()
          .waitFor({ timeout: 60_000 });
        assert.equal(
          await chat().locator('article.message.user[aria-label="You"]', { hasText: "Third turn." }).count(),
          0,
          "the fork ends before the message",
        );
      },
    );

    await step(
      "07 the edited message is sent in the fork: the request carries the first turn only, and the answer shows",
      async () => {
        await send(chat(), "Second turn, edited.");
        await assistant(chat(), "Answered the edited message.").waitFor({ timeout: 60_000 });
        const body = await model.request(8, "the edited message's request");
        const texts = JSON.stringify(body.messages);
        assert.match(texts, /Write the notes\./);
        assert.match(texts, /Second turn, edited\./);
        assert.doesNotMatch(texts, /Third turn/);
        assert.deepEqual(
          body.messages.map((m: { role: string }) => m.role),
          ["system", "user", "assistant", "tool", "assistant", "user"],
        );
      },
    );
  },
);

/** Waits (bounded, on fs events) until a file is gone. */
async function waitGone(file: string): Promise<void> {
  const { watch } = await import("node:fs");
  const { dirname } = await import("node:path");
  if (!existsSync(file)) return;
  await new Promise<void>((resolve, reject) => {
    const watcher = watch(dirname(file), () => {
      if (!existsSync(file)) finish();
    });
    const timer = setTimeout(() => finish(new Error(`${file} still exists`)), 60_000);
    const finish = (error?: Error) => {
      watcher.close();
      clearTimeout(timer);
      if (error) reject(error);
      else resolve();
    };
    if (!existsSync(file)) finish();
  });
}

async function send(chat: FrameLocator, text: string): Promise<void> {
  await chat.getByRole("textbox", { name: "Message", exact: true }).fill(text, { timeout: 60_000 });
  await chat.getByRole("button", { name: "Send", exact: true }).click({ timeout: 10_000 });
}

const assistant = (chat: FrameLocator, text: string) =>
  chat.locator('article.message.assistant[aria-label="Assistant"]', { hasText: text }).last();
const previewRow = (page: Page, path: string) =>
  page.locator(".quick-input-list .monaco-list-row", { hasText: path }).filter({ visible: true }).first();
const toast = (page: Page, text: string) =>
  page.locator(".notifications-toasts .notification-toast", { hasText: text }).first();
