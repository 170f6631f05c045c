// Issue 19 items 5-7 in the real workbench, the controls that were clicked only in Chromium
// before: Shift+Enter, Copy code ("Copied"), Jump to latest, Tab wrapping inside the chat,
// Escape stopping a run, Ctrl+Alt+N, and Open Chat in Editor moving the conversation (the
// sidebar's placeholder, Bring Chat Back, closing the tab). dist/downcity.vsix in
// code-server, the model played by the loopback provider server. A screenshot per step
// lands in test/.tmp/e2e/first5-keys-ui/.
import { strict as assert } from "node:assert";
import { cpSync, existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { FrameLocator, Page } from "playwright-core";
import { PROJECT_ROOT, workbenchUrl } from "../support/workbench/code-server";
import { chatFrame, quickPickRow, sessionRow } from "../support/workbench/workbench";
import { sessionPaths } from "../../core/storage";
import { startProviderServer, wire } from "../support/provider-server";
import { scriptedModel } from "../support/scripted-model";
import {
  gotoWorkbench,
  chainedSteps,
  fileMatches,
  missingVsCode,
  openWorkbench,
  outputDir,
  runPaletteCommand,
  installPackagedVsix,
} from "./helpers";

const CODE = "export const restock = (sku: string, amount: number) => amount;";
/** Long enough that the chat scrolls: Jump to latest needs somewhere to jump from. */
const LONG_ANSWER = [
  "Here is the restock helper:",
  "",
  "```ts",
  CODE,
  "```",
  "",
  ...Array.from({ length: 60 }, (_, i) => `- Step ${i + 1} of the restock rule.`),
  "",
  "That is the last step.",
].join("\n");
const SECOND_ANSWER = "Both lines arrived in one message.";
const HELD_ANSWER = "Listing every SKU with its stock level, one per line:";
const NEW_PROMPT = "Start over in a new session.";
const NEW_ANSWER = "Started over.";

const sse = (text: string) => wire.openaiChat({ model: "gpt-4o", usage: { input: 120, output: 20 }, text });

function sessionIds(workspace: string, agentId: string): string[] {
  const dir = join(workspace, ".downcity", "agents", agentId, "sessions");
  return existsSync(dir) ? readdirSync(dir) : [];
}

/** The visible Downcity webviews split by where they sit: the sidebar's, and the editor area's (if one is open). */
async function chats(page: Page): Promise<{ sidebar: FrameLocator; editor: FrameLocator | undefined }> {
  const sidebarRight = await page.locator(".part.sidebar").evaluate((el) => el.getBoundingClientRect().right);
  const frames = page
    .locator('iframe.webview.ready[src*="extensionId=downcity.downcity-vscode"]')
    .filter({ visible: true });
  let sidebar: FrameLocator | undefined;
  let editor: FrameLocator | undefined;
  for (let i = 0; i < (await frames.count()); i++) {
    const inner = frames.nth(i).contentFrame().frameLocator("iframe#active-frame");
    if (((await frames.nth(i).boundingBox())?.x ?? 0) >= sidebarRight - 1) editor = inner;
    else sidebar = inner;
  }
  assert.ok(sidebar, "the sidebar chat is visible");
  return { sidebar, editor };
}

/** Where the focus is inside the chat's document: the focused control's name, or null when the chat lost it. */
const focusInChat = (chat: FrameLocator) =>
  chat.locator("body").evaluate(() => {
    const at = document.activeElement as HTMLElement | null;
    if (!document.hasFocus() || !at || at === document.body) return null;
    return at.getAttribute("aria-label") ?? at.textContent?.trim().slice(0, 40) ?? at.tagName;
  });

test(
  "keys and small controls in the real workbench: Shift+Enter, Copied, Jump to latest, Tab, Escape, Ctrl+Alt+N, the editor chat",
  { skip: missingVsCode(), timeout: 800_000 },
  async (t) => {
    const out = outputDir("first5-keys-ui");
    await installPackagedVsix(out);
    const workspace = join(out, "sample-workspace");
    cpSync(join(PROJECT_ROOT, "sample-workspace"), workspace, { recursive: true });

    const model = scriptedModel([
      () => ({ sse: sse(LONG_ANSWER) }),
      () => ({ sse: sse(SECOND_ANSWER) }),
      // Held after a few words until the client goes away (Escape stops the run).
      () => ({ sse: sse(HELD_ANSWER), stallAfter: 6 }),
      () => ({ sse: sse(NEW_ANSWER) }),
    ]);
    const provider = await startProviderServer(model.handler);
    t.after(() => provider.close());
    const workbench = await openWorkbench(out, {
      env: { DOWNCITY_PROTOCOL: "openai-chat", DOWNCITY_BASE_URL: provider.baseURL, DOWNCITY_MODEL: "gpt-4o" },
    });
    t.after(() => workbench.close());
    const { page } = workbench;
    await workbench.browser.addInitScript({ content: "window.__name = (f) => f;" });
    // The host's clipboard in code-server is the browser's: Copy code is checked there.
    await workbench.browser.grantPermissions(["clipboard-read", "clipboard-write"]);
    const chat = () => chatFrame(page);
    const box = () => chat().getByRole("textbox", { name: "Message", exact: true });
    const step = chainedSteps(t, workbench);
    let sessionId = "";
    const active = () => sessionPaths(workspace, "code", sessionId).active;

    await step("01 the first message is answered with code and a long list", async () => {
      await gotoWorkbench(page, workbenchUrl(workbench.server, workspace));
      await page.locator(".monaco-workbench .part.activitybar").waitFor({ timeout: 60_000 });
      await page
        .locator('.part.activitybar .action-item a.action-label[aria-label^="Downcity"]')
        .click({ timeout: 60_000 });
      await box().fill("Show me the restock helper.");
      await box().press("Enter");
      await chat().getByText("That is the last step.").waitFor({ timeout: 60_000 });
      const ids = sessionIds(workspace, "code");
      assert.equal(ids.length, 1, `one session on disk: ${ids.join(", ")}`);
      sessionId = ids[0]!;
      await fileMatches(active(), /That is the last step/, 60_000);
    });

    await step("02 Shift+Enter adds a line, Enter sends both lines as one message", async () => {
      await box().click();
      await page.keyboard.type("First line");
      await page.keyboard.press("Shift+Enter");
      await page.keyboard.type("second line");
      assert.equal(
        await box().inputValue(),
        "First line\nsecond line",
        "Shift+Enter put a newline in the box, and sent nothing",
      );
      await workbench.screenshot("02a-two-lines");
      await page.keyboard.press("Enter");
      const body = await model.request(1, "the two-line message");
      assert.match(JSON.stringify(body.messages.at(-1)), /First line\\nsecond line/, "one message with both lines");
      await chat().locator("article.message.assistant", { hasText: SECOND_ANSWER }).waitFor({ timeout: 60_000 });
      assert.equal(await box().inputValue(), "", "the box is empty after sending");
      await fileMatches(active(), /First line\\nsecond line/, 60_000);
    });

    await step("03 Jump to latest appears once scrolled up and goes back to the end", async () => {
      const jump = chat().getByRole("button", { name: "Jump to latest" });
      assert.equal(await jump.count(), 0, "at the end: no button");
      await chat().locator(".log-scroller").hover();
      await page.mouse.wheel(0, -4000);
      await jump.waitFor({ timeout: 15_000 });
      await workbench.screenshot("03a-scrolled-up");
      await jump.click();
      await jump.waitFor({ state: "detached", timeout: 15_000 });
      await chat().locator("article.message.assistant", { hasText: SECOND_ANSWER }).waitFor({ timeout: 15_000 });
      const gap = await chat()
        .locator(".log-scroller")
        .evaluate((s) => s.scrollHeight - s.scrollTop - s.clientHeight);
      assert.ok(gap <= 24, `back at the end (${gap} px left)`);
    });

    await step("04 Copy code says Copied and puts the code on the clipboard", async () => {
      const copy = chat().getByRole("button", { name: "Copy code" }).first();
      await copy.scrollIntoViewIfNeeded();
      await copy.click();
      await chat().getByRole("button", { name: "Copied" }).waitFor({ timeout: 15_000 });
      await workbench.screenshot("04a-copied");
      const clip = await page.evaluate(() => navigator.clipboard.readText());
      assert.equal(clip.trim(), CODE);
    });

    await step("05 Tab cycles inside the chat and wraps, Shift+Tab too", async () => {
      await box().click();
      const seen: string[] = [];
      let wrapped = false;
      for (let i = 0; i < 40 && !wrapped; i++) {
        await page.keyboard.press("Tab");
        const at = await focusInChat(chat());
        assert.ok(at !== null, `Tab #${i + 1} left the chat (after ${seen.join(" → ")})`);
        seen.push(at);
        wrapped = at === "Message";
      }
      assert.ok(wrapped, `Tab came back to the message box: ${seen.join(" → ")}`);
      assert.ok(seen.length >= 3, `Tab visited the chat's controls: ${seen.join(" → ")}`);
      await page.keyboard.press("Shift+Tab");
      assert.equal(await focusInChat(chat()), seen.at(-2), "Shift+Tab goes back one control");
      await page.keyboard.press("Tab");
      assert.equal(await focusInChat(chat()), "Message");
    });

    await step("06 Escape in the chat stops a held run, and the log says cancelled", async () => {
      await box().fill("List every SKU with its stock level.");
      await box().press("Enter");
      await model.request(2, "the held prompt");
      await chat().getByRole("button", { name: "Stop", exact: true }).waitFor({ timeout: 60_000 });
      await chat().locator("article.message.assistant", { hasText: "Listing every" }).waitFor({ timeout: 60_000 });
      await workbench.screenshot("06a-running");
      await box().press("Escape");
      await chat().getByRole("button", { name: "Stop", exact: true }).waitFor({ state: "detached", timeout: 60_000 });
      await fileMatches(active(), /"turn\/end".*"cancelled"|"cancelled".*"turn\/end"/, 60_000);
    });

    await step(
      "07 Open Chat in Editor moves the conversation: the sidebar says so, Bring Chat Back returns it",
      async () => {
        await runPaletteCommand(page, "Downcity: Open Chat in Editor", 60_000);
        const tab = page.locator(".tabs-container .tab", { hasText: "Downcity: Show me the restock" });
        await tab.first().waitFor({ timeout: 60_000 });
        const moved = (await chats(page)).sidebar.getByRole("heading", { name: "Chat moved to an editor" });
        await moved.waitFor({ timeout: 60_000 });
        const { sidebar, editor } = await chats(page);
        assert.ok(editor, "a chat in the editor area");
        await editor.locator("article.message.assistant", { hasText: SECOND_ANSWER }).waitFor({ timeout: 60_000 });
        assert.equal(
          await sidebar.locator("article.message").count(),
          0,
          "the sidebar no longer shows the conversation",
        );
        await workbench.screenshot("07a-moved");
        await sidebar.getByRole("button", { name: "Bring Chat Back" }).click();
        await tab.first().waitFor({ state: "detached", timeout: 60_000 });
        await chat().locator("article.message.assistant", { hasText: SECOND_ANSWER }).waitFor({ timeout: 60_000 });
        await chat()
          .getByRole("button", { name: /Session title: Show me the restock/ })
          .waitFor({ timeout: 60_000 });
      },
    );

    await step("08 closing the editor tab brings the conversation back to the sidebar too", async () => {
      await runPaletteCommand(page, "Downcity: Open Chat in Editor", 60_000);
      const tab = page.locator(".tabs-container .tab", { hasText: "Downcity: Show me the restock" }).first();
      await tab.waitFor({ timeout: 60_000 });
      await (
        await chats(page)
      ).sidebar
        .getByRole("heading", { name: "Chat moved to an editor" })
        .waitFor({ timeout: 60_000 });
      await tab.hover();
      await tab.locator(".tab-actions .action-label").click();
      await tab.waitFor({ state: "detached", timeout: 60_000 });
      await chat().locator("article.message.assistant", { hasText: SECOND_ANSWER }).waitFor({ timeout: 60_000 });
    });

    await step("09 Ctrl+Alt+N starts a new session: on disk and in the chat", async () => {
      await box().click();
      await page.keyboard.press("Control+Alt+KeyN");
      // The sample workspace has two agents: the new session asks which.
      await quickPickRow(page, /^Code/).click({ timeout: 15_000 });
      await chat()
        .getByRole("button", { name: /Session title: New session/ })
        .waitFor({ timeout: 60_000 });
      assert.equal(await chat().locator("article.message").count(), 0, "the new session is empty");
      await sessionRow(page, "New session").waitFor({ timeout: 60_000 });
      // A session reaches the disk with its first event: its first message lands in a second log, not the first one.
      await box().fill(NEW_PROMPT);
      await box().press("Enter");
      await chat().locator("article.message.assistant", { hasText: NEW_ANSWER }).waitFor({ timeout: 60_000 });
      const fresh = sessionIds(workspace, "code").filter((id) => id !== sessionId);
      assert.equal(fresh.length, 1, `a second session on disk: ${fresh.join(", ")}`);
      await fileMatches(sessionPaths(workspace, "code", fresh[0]!).active, /in a new session/, 60_000);
      assert.doesNotMatch(readFileSync(active(), "utf8"), /in a new session/, "the first session is left as it was");
    });
  },
);
